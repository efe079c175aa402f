/*
 * proc_self.h - what the statistics read about the process from /proc: the
 * program's path and its memory map, for the JSON output (json.c), which
 * writes them so that other tools can symbolise its raw stack addresses
 * offline.  Reads go through glibc's internal names (core/runtime/own_io.h),
 * never lockswap's wrappers.
 */
#ifndef LS_STATS_PROC_SELF_H
#define LS_STATS_PROC_SELF_H

#include <stddef.h>

/* The running program's path (/proc/self/exe) in buf (len bytes); "" when
 * it cannot be read. */
void ls_stats_program_path(char *buf, size_t len);

/* Calls fn once for each line of /proc/self/maps, in order, without its
 * newline; a line longer than 1023 bytes is cut there.  Nothing when the
 * file cannot be opened. */
void ls_stats_each_map_line(void (*fn)(void *arg, const char *line), void *arg);

#endif
