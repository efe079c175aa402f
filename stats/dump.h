/*
 * dump.h - the dumps (dump.c): at exit, on the signal, through the helper
 * thread.
 */
#ifndef LS_STATS_DUMP_H
#define LS_STATS_DUMP_H

#include <stdint.h>

void ls_stats_dump(const char *reason);
void ls_stats_helper_maybe_start(uintptr_t site);

#endif
