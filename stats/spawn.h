/*
 * spawn.h - the statistics' own threads (spawn.c).
 */
#ifndef LS_STATS_SPAWN_H
#define LS_STATS_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

/* Start a detached thread of lockswap's own (the signal helper, the
 * Prometheus writer, the hang watchdog) named `name`, with a stack of
 * stack_bytes, with every signal blocked but glibc's two internal ones
 * (so the program's signals never land on it, and glibc's setuid()
 * broadcast still gets its answer), and this thread's own calls
 * uncounted meanwhile (ls_stats_q.busy).  False if it could not be
 * started. */
bool ls_stats_spawn(void *(*fn)(void *), const char *name, size_t stack_bytes);

#endif
