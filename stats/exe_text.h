/*
 * exe_text.h - the address range of the program's own code (the first
 * object's executable segments), for the helpers that start their thread
 * at a fork child's first wait in the program's code, never inside a
 * preloaded library (an allocator's lock, where starting a thread would
 * enter malloc again): the signal-dump helper (dump.c) and the watchdog.
 */
#ifndef LS_STATS_EXE_TEXT_H
#define LS_STATS_EXE_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/* Finds the range once; from the library's constructors, which run on one
 * thread before the program starts another, so no lock is needed. */
void ls_exe_text_find(void);
/* pc lies in the program's code (false before ls_exe_text_find). */
bool ls_exe_text_has(uintptr_t pc);

#endif
