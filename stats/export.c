/*
 * export.c - LOCKSWAP_STATS_PROM: a writer thread puts the Prometheus
 * exposition (prom.c) into the file every LOCKSWAP_STATS_INTERVAL
 * seconds; every dump (at exit, on the signal) writes it too, the exit
 * dump last.
 *
 * The thread is created by the library's constructor (ls_stats_constructor)
 * with glibc's pthread_create (the shim does not interpose it), every
 * signal blocked and the in-profiler flag set for its whole life, so the
 * program's signals never land on it and its own calls are never counted.
 * Why the constructor and not the first lock call, as for the signal
 * helper: the constructor runs outside every lock call, so the allocations
 * of pthread_create cannot re-enter a preloaded allocator that holds its
 * own lock; and a program whose locks are all taken by shared libraries
 * (LevelDB) would never start a lazily started writer.
 *
 * What it may wait for: only the dumps' own flag (dump.c), never a lock a
 * program thread may hold across a wait for the dumps.  It writes with
 * open/write/rename from static and mmap'ed buffers: no stdio stream, no
 * malloc of its own.  Naming a new call site (once per site, prom.c) takes
 * the loader's lock (dladdr) and, in a C++ program, malloc's (the
 * runtime's __cxa_demangle, demangle.c): locks that program threads hold
 * only briefly and never while waiting for the writer.  The program's threads
 * do nothing for it; their lock paths are the same as without the export.
 *
 * Files: written to PATH.tmp<pid> in the same directory, then renamed over
 * PATH, so a reader sees the previous file or the next, never a part (a
 * device, a FIFO or a link into /proc is written in place, and a link to a
 * regular file is followed: writing.h ls_stats_file_open).  A
 * process that has used no mutex writes nothing: a shell or `timeout` in
 * front of the program, with the same environment, leaves its file alone.
 *
 * fork: the writer thread is not copied into the child.  With %p in PATH
 * the child exports under its own pid; its writer starts on its first lock
 * call from the main executable's code, as the signal helper does (in the
 * fork handler malloc may still be held by a preloaded allocator whose own
 * handler has not run yet).  Without %p the child exports nothing, so it
 * never overwrites its parent's file.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../core/runtime/sys.h"
#include "export.h"
#include "spawn.h"
#include "prom.h"
#include "writing.h"
#include "../core/runtime/cold.h"

static char pattern[256];
static unsigned interval;
static bool configured; /* LOCKSWAP_STATS_PROM is set */
static bool exporting;  /* this process writes (not a fork child without %p) */
static _Atomic int stopped;      /* the exit dump has begun: the writer stops */
static _Atomic int child_wanted; /* a fork child's writer is to start */
static _Atomic int warned;

static void warn_once(const char *what, const char *path)
{
	if (atomic_exchange(&warned, 1))
		return;
	char line[700];
	snprintf(line, sizeof line, "lockswap: cannot %s the Prometheus export %s: %s "
	         "(said once; the writer keeps trying)\n", what, path, strerror(errno));
	ls_say(line);
}

/* PATH names the pid: "%p", not the escaped "%%p". */
static bool names_pid(const char *p)
{
	for (; *p; p++) {
		if (p[0] == '%' && p[1] == 'p')
			return true;
		if (p[0] == '%' && p[1] == '%')
			p++;
	}
	return false;
}

static void write_file(const struct ls_snap *s)
{
	if (!s->nmutex)
		return;
	char path[512];
	ls_stats_path_expand(pattern, path, sizeof path);
	struct ls_stats_file file;
	if (ls_stats_file_open(&file, path) < 0) {
		warn_once("create", file.in_place ? path : file.tmp);
		return;
	}
	static struct ls_out out LS_COLD_BSS; /* 16 KiB, off the thread's stack: writes are serialised */
	ls_out_init(&out, file.fd);
	bool ok = ls_stats_write_prom(s, &out);
	ok = ls_out_flush(&out) && ok;
	if (!ls_stats_file_commit(&file, ok))
		warn_once("write", path);
}

void ls_stats_export_at_dump(const struct ls_snap *s)
{
	if (configured && exporting)
		write_file(s);
}

static void export_now(void)
{
	/* A dump in progress writes the file itself. */
	if (!ls_stats_dump_enter(false))
		return;
	struct ls_snap s;
	if (ls_snap_take(&s)) {
		ls_symbols_begin();
		write_file(&s);
		ls_symbols_end();
		ls_snap_free(&s);
	}
	ls_stats_dump_leave();
}

static void *writer_main(void *arg)
{
	ls_stats_enter(); /* everything this thread does is the profiler's */
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		/* Absolute deadlines: the period does not drift by the write's time. */
		next.tv_sec += interval;
		while (ls_sys_sleep_until(CLOCK_MONOTONIC, &next) == -EINTR)
			;
		if (atomic_load_explicit(&stopped, memory_order_acquire))
			return NULL;
		export_now();
	}
}

static void start_writer(void)
{
	bool started = ls_stats_spawn(writer_main, "lockswap-prom", 256 * 1024);
	if (!started)
		ls_say("lockswap: cannot start the LOCKSWAP_STATS_PROM writer thread; "
		       "the file is written at exit only\n");
}

void ls_stats_export_start(void)
{
	const struct ls_stats_settings *g = ls_stats_given();
	if (!g->prom || !g->prom[0])
		return;
	snprintf(pattern, sizeof pattern, "%s", g->prom);
	interval = g->interval ? g->interval : 10;
	configured = exporting = true;
	start_writer();
}

void ls_stats_export_stop(void)
{
	atomic_store_explicit(&stopped, 1, memory_order_release);
}

void ls_stats_export_after_fork(void)
{
	if (!configured)
		return;
	ls_stats_prom_reset();
	exporting = names_pid(pattern);
	if (exporting) {
		atomic_store(&child_wanted, 1);
		ls_stats_want_helper();
	}
}

void ls_stats_export_child_maybe_start(void)
{
	int expected = 1;
	if (atomic_compare_exchange_strong(&child_wanted, &expected, 0))
		start_writer();
}
