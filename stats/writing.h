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

/* A file being written whole: ls_stats_file_open, then the writes to
 * fd, then ls_stats_file_commit. */
struct ls_stats_file {
	int fd;
	bool in_place; /* written where it is: no temporary, no rename */
	const char *path; /* the name, or the regular file a link to one leads to */
	char target[512];
	char tmp[560];
};

/* Open path (expanded) for a whole new version of its file.  A regular
 * file, or none yet, is written to a temporary beside it that
 * ls_stats_file_commit renames over it, so that no reader ever sees half
 * a file; a symbolic link to a regular file, the same for its target
 * (the link stays).  Anything else the name already stands for (/dev/null
 * or another device, a FIFO, a link into /proc such as /dev/stdout) is
 * written where it is, appended and never truncated: a rename would put a
 * regular file in its place (LOCKSWAP_STATS_FILE=/dev/null made /dev/null
 * a regular file for every process on the machine), and a truncation
 * would cut the program's own output where the name is /dev/stdout on a
 * redirected stdout.  A FIFO that nobody reads is not waited for (-1,
 * ENXIO).  The fd, or -1 (errno set).  path must outlive the commit. */
int ls_stats_file_open(struct ls_stats_file *f, const char *path);

/* Close the file, and rename the temporary over the name if there is one.
 * ok: every write succeeded.  False on any failure (errno set, the
 * temporary removed). */
bool ls_stats_file_commit(struct ls_stats_file *f, bool ok);

/* Fork child: no dump is in progress here, and names are the child's. */
void ls_stats_writing_after_fork(void);

#endif
