/*
 * writing.h - what the dumps (dump.c) and the Prometheus writer
 * (export.c) share: one of them writes at a time, and the same names for
 * the files.  Both depend on this file and it on neither, so the
 * dependency runs one way: dump.c -> export.c -> writing.c.
 */
#ifndef LS_STATS_WRITING_H
#define LS_STATS_WRITING_H

#include <stdbool.h>
#include <stddef.h>

/* One dump or export at a time; `wait`: for up to 5 s.  While entered the
 * caller is in the profiler (ls_stats_q.busy), so its own calls are not
 * counted. */
bool ls_stats_dump_enter(bool wait);
void ls_stats_dump_leave(void);

/* path with %p expanded to the pid; in a fork child a name without %p
 * gets ".<pid>" appended, so it never overwrites its parent's file. */
void ls_stats_path_expand(const char *path, char *out, size_t len);

/* Fork child: no dump is in progress here, and names are the child's. */
void ls_stats_writing_after_fork(void);

#endif
