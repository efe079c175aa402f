/*
 * watch_run.c - the life cycle of the lock-order check and the hang watchdog
 * (watch.h): configuration, start-up, exit, fork; and the shim's hooks
 * that need more than one of the files below it (watch_int.h): the
 * request, which reports a new cycle, a forget, a wait.
 */
#include <stdlib.h>
#include <time.h>

#include "exe_text.h"
#include "glibc_fn.h"
#include "unwind.h"
#include "watch_int.h"
#include "writing.h"

void ls_watch_configure(const struct ls_watch_settings *s)
{
	struct timespec mono, real;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	ls_watch_cfg = (struct ls_watch_config){
		.order = s->order,
		.hang_ms = s->hang_ms,
		.backend = s->backend,
		.with_threads = s->with_threads,
		.start_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec,
		.start_real_ns = (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec,
	};
	/* Without the graph's memory there is no lock-order check; the
	 * watchdog needs none. */
	if (s->order != LS_ORDER_OFF && !ls_order_setup())
		ls_watch_cfg.order = LS_ORDER_OFF;
	atomic_store_explicit(&ls_watch_configured, true, memory_order_release);
}

void ls_watch_constructor(void)
{
	if (!ls_watch_active())
		return;
	/* The request stacks of the lock-order reports, and the text range
	 * of lockswap itself, whose frames they leave out. */
	if (ls_watch_cfg.order != LS_ORDER_OFF && !ls_stats_unwind_available())
		ls_stats_unwind_warm();
	/* Here, on the one thread, even when the watchdog starts later: a
	 * fork child's starts at its first wait in the program's code. */
	ls_exe_text_find();
	if (!ls_watch_cfg.with_threads)
		ls_watchdog_start();
}

/* With the program's second thread (watch.h with_threads), or with the
 * first one a fork child creates (ls_watchdog_after_fork left it off):
 * from the creating thread, before glibc makes the new one, so that the
 * watchdog is the program's second thread, never racing its first. */
void ls_watch_thread_create(void)
{
	if (ls_watch_active() && ls_watch_cfg.hang_ms)
		ls_watchdog_ensure();
}

void ls_watch_exit(void)
{
	if (!ls_watch_active())
		return;
	ls_watchdog_stop();
	if (ls_watch_report_enter()) {
		ls_watch_print_cycles();
		ls_watch_report_leave();
	}
}

void ls_watch_after_fork(void)
{
	if (!ls_watch_active())
		return;
	/* A report in progress at the fork was another thread's: its dump
	 * lock is free in the child. */
	ls_stats_writing_after_fork();
	ls_watch_threads_after_fork();
	ls_order_after_fork();
	ls_watchdog_after_fork();
}

void ls_watch_request(struct ls_watch_thread *t, uintptr_t lock, uintptr_t site)
{
	struct ls_order_cycle *c = ls_order_request(t, lock, site);
	if (!c)
		return;
	if (ls_watch_cfg.order == LS_ORDER_ABORT) {
		/* The report first, from this thread: the process ends here. */
		if (ls_watch_report_enter()) {
			ls_watch_print_cycles();
			ls_watch_report_leave();
		}
		ls_stats_glibc_abort();
	}
	/* Printed by the watchdog, which holds none of the program's locks
	 * while it reads symbols (the dynamic loader's lock among them). */
	ls_watchdog_kick();
}

void ls_watch_forget(const void *addr)
{
	ls_watch_forget_held((uintptr_t)addr);
	ls_order_forget((uintptr_t)addr);
}

void ls_watch_wait_begin(uintptr_t lock, uintptr_t site)
{
	if (!ls_watch_hang_ms())
		return;
	ls_watch_waiting(ls_watch_self(), lock, site);
	ls_watchdog_maybe_start(site);
}

void ls_watch_wait_end(void)
{
	if (ls_watch_hang_ms())
		ls_watch_done_waiting(ls_watch_me);
}
