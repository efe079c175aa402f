/*
 * delegation.h - what the ces backend's delegation did (core/runtime/home.h
 * counts it): critical sections run by a delegate, batch sizes, hand-overs
 * and hand-backs by reason, in the summary, the JSON ("delegation") and
 * the Prometheus export.  Nothing is written for a process in which no
 * section ever waited delegably.
 */
#ifndef LS_STATS_DELEGATION_H
#define LS_STATS_DELEGATION_H

#include "report.h"

void ls_stats_write_delegation_text(const struct ls_snap *s, struct ls_out *o);
void ls_stats_write_delegation_json(const struct ls_snap *s, struct ls_out *o);
void ls_stats_write_delegation_prom(struct ls_out *o, const char *common);

#endif
