/*
 * single.h - the single-threaded phase of the process, for the lock
 * verbs that use plain loads and stores while nobody else can look
 * (backends/backend.h: the `single` table).
 *
 * glibc's __libc_single_threaded is 1 at start and cleared by
 * pthread_create before the new thread exists, whoever calls it (the
 * program, a dlopen()ed library, glibc's own helper threads); glibc 2.36
 * never sets it again, not even in a fork child of a threaded parent.  A
 * single-threaded verb reads it on every call, so its correctness never
 * depends on anything else.
 *
 * ls_single_gate is where a caller keeps the table it calls (the
 * interposer's fast path reads it, interpose/start/gate.h); when a
 * single-threaded verb finds a second thread, it stores ls_single_after
 * there, so later calls go straight to the atomic verbs and pay nothing
 * for the shortcut.  Both are `const void *` because core/ does not know
 * the tables' type.
 */
#ifndef LS_CORE_SINGLE_H
#define LS_CORE_SINGLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/single_threaded.h>

extern const void *_Atomic ls_single_gate;
extern const void *_Atomic ls_single_after;

static inline bool ls_single_threaded(void)
{
	return __libc_single_threaded;
}

/* A single-threaded verb is about to use the atomic one: if a second
 * thread exists, the gate's holder should stop calling us. */
static inline void ls_single_over(void)
{
	if (!__libc_single_threaded)
		atomic_store_explicit(&ls_single_gate,
		                      atomic_load_explicit(&ls_single_after, memory_order_relaxed),
		                      memory_order_release);
}

#endif
