/*
 * stderr_keep.h - the standard error the exit summary goes to
 * (stderr_keep.c): kept at start-up, checked at each dump.
 */
#ifndef LS_STATS_STDERR_KEEP_H
#define LS_STATS_STDERR_KEEP_H

/* At start-up, statistics on: a close-on-exec copy of fd 2 and which file
 * it is. */
void ls_stats_stderr_keep(void);

/* The descriptor to write the summary (and the dump's warnings) to: fd 2
 * while it is the file the program started with, else the copy while that
 * still is, else fd 2 if open; -1 for none. */
int ls_stats_stderr_fd(void);

#endif
