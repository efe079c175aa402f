/*
 * arm.h - the arm of an experiment in every output (arm.c; docs/arms.md).
 */
#ifndef LS_STATS_ARM_H
#define LS_STATS_ARM_H

#include "hooks.h"
#include "report.h"

/* the arm's record, nothing without LOCKSWAP_ARMS. */
const struct ls_stats_arm *ls_stats_arm(void);
void ls_stats_write_arm_json(struct ls_out *o); /* ,"arm":{...} */
void ls_stats_write_arm_text(struct ls_out *o); /* "  arm ...\n" */

#endif
