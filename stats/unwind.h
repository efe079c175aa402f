/*
 * unwind.h - the unwinder (unwind.c).
 */
#ifndef LS_STATS_UNWIND_H
#define LS_STATS_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

int ls_stats_unwind(void **frames, int max); /* 0 when no unwinder */
void ls_stats_unwind_warm(void);
bool ls_stats_unwind_available(void);
bool ls_stats_own_frame(uintptr_t pc);

#endif
