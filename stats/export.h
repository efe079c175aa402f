/*
 * export.h - the writer thread that puts the Prometheus exposition in
 * LOCKSWAP_STATS_PROM (export.c; docs/arms.md).
 */
#ifndef LS_STATS_EXPORT_H
#define LS_STATS_EXPORT_H

#include "report.h"

void ls_stats_export_start(void);                     /* constructor: the writer thread */
void ls_stats_export_at_dump(const struct ls_snap *s); /* from a dump, serialised */
void ls_stats_export_after_fork(void);
void ls_stats_export_stop(void);                      /* exit: the exit dump is the last */
/* A fork child that exports starts its writer on its first lock call from
 * the main executable, as the signal helper does (dump.c calls this). */
void ls_stats_export_child_maybe_start(void);

#endif
