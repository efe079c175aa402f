/*
 * spawn.h - the statistics' own threads (spawn.c).
 */
#ifndef LS_STATS_SPAWN_H
#define LS_STATS_SPAWN_H

#include <stdbool.h>

/* Start a detached statistics thread (the signal helper, the Prometheus
 * writer) named `name`, with every signal blocked so the program's signals
 * never land on it, and this thread's own calls uncounted meanwhile
 * (ls_stats_q.busy).  False if it could not be started. */
bool ls_stats_spawn(void *(*fn)(void *), const char *name);

#endif
