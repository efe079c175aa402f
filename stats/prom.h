/*
 * prom.h - the Prometheus text exposition format (prom.c); the writer
 * thread that puts it in LOCKSWAP_STATS_PROM is export.h's, the arm in
 * every output arm.h's.  docs/arms.md describes them.
 */
#ifndef LS_STATS_PROM_H
#define LS_STATS_PROM_H

#include <stdint.h>

#include "report.h"

/* prom.c: one exposition of the snapshot.  Keeps, per process, which
 * call sites have a series of their own and the last values written, so
 * that counters never go back between writes (runs serialised with the
 * dumps, see export.c). */
bool ls_stats_write_prom(const struct ls_snap *s, struct ls_out *o); /* false: no memory */
void ls_stats_prom_reset(void); /* fork child: a new process, new series */

#endif
