/*
 * cold.h - LS_COLD_BSS, for a large zero-initialised object that a
 * process's start-up does not touch (a table that fills as threads, locks
 * or statistics appear, an output buffer).
 *
 * Every page a process touches first costs a page fault, and the preload
 * pays its start-up's in every process it enters: a compiler run by make,
 * each command of a shell script.  On the project's 2-vCPU VM a first
 * touch of a zeroed page cost 11-13 us (bench/startup.py against libraries
 * that touch 20 and 60 pages: docs/results/issue45-startup/touch.sh).  The
 * linker lays out .bss by object file, so the small variables that
 * start-up writes sat between these tables, one page apart: 7 pages.  On
 * x86-64 the linker places .lbss (which GCC emits as zero-filled, not
 * stored in the file) after .bss, so these tables move out of the way and
 * the small variables share a page or two.  Elsewhere the attribute is
 * empty and the layout is as before.
 */
#ifndef LS_CORE_RUNTIME_COLD_H
#define LS_CORE_RUNTIME_COLD_H

#if defined(__x86_64__) && defined(__GNUC__)
#define LS_COLD_BSS __attribute__((section(".lbss")))
#else
#define LS_COLD_BSS
#endif

#endif
