/*
 * prom.h - the arm in every output (arm.c) and the Prometheus export:
 * the text exposition format (prom.c) and the writer thread that puts it
 * in LOCKSWAP_STATS_PROM (export.c).  docs/arms.md describes both.
 */
#ifndef LS_STATS_PROM_H
#define LS_STATS_PROM_H

#include <stdint.h>

#include "report.h"

/* table.c: the settings given by the shim (never NULL; fields may be). */
const struct ls_stats_settings *ls_stats_given(void);

/* arm.c: the arm's record, nothing without LOCKSWAP_ARMS. */
const struct ls_stats_arm *ls_stats_arm(void);
void ls_stats_write_arm_json(struct ls_out *o); /* ,"arm":{...} */
void ls_stats_write_arm_text(struct ls_out *o); /* "  arm ...\n" */

/* prom.c: one exposition of the snapshot.  Keeps, per process, which
 * call sites have a series of their own and the last values written, so
 * that counters never go back between writes (runs serialised with the
 * dumps, see export.c). */
bool ls_stats_write_prom(const struct ls_snap *s, struct ls_out *o); /* false: no memory */
void ls_stats_prom_reset(void); /* fork child: a new process, new series */

/* export.c */
void ls_stats_export_start(void);                     /* constructor: the writer thread */
void ls_stats_export_at_dump(const struct ls_snap *s); /* from a dump, serialised */
void ls_stats_export_after_fork(void);
void ls_stats_export_stop(void);                      /* exit: the exit dump is the last */
/* A fork child that exports starts its writer on its first lock call from
 * the main executable, as the signal helper does (dump.c calls this). */
void ls_stats_export_child_maybe_start(void);

#endif
