/*
 * prom_text.h - pieces of the Prometheus text exposition format shared by
 * every exporter of series (prom.c, delegation.c, watch_out.c).
 */
#ifndef LS_STATS_PROM_TEXT_H
#define LS_STATS_PROM_TEXT_H

#include "report.h"

/* A metric's "# HELP" and "# TYPE" lines (every series starts with them). */
void ls_prom_help(struct ls_out *o, const char *name, const char *type, const char *text);

#endif
