/*
 * comm.h - a thread's name as the kernel keeps it (/proc/self/task/TID/comm),
 * for the statistics' JSON and the watchdog's reports.
 */
#ifndef LS_STATS_COMM_H
#define LS_STATS_COMM_H

#include <stddef.h>

/* Thread tid's name, without its newline, in name (len bytes); "" if it
 * cannot be read (tid <= 0, the thread is gone).  Through glibc's
 * internal names (core/runtime/own_io.h), never lockswap's wrappers. */
void ls_stats_thread_name(int tid, char *name, size_t len);

#endif
