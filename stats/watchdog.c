/*
 * watchdog.c - the hang watchdog (LOCKSWAP_HANG_MS, docs/deadlock.md): a
 * thread of lockswap's own that looks at every thread's wait a few times
 * per limit, so that it reports while every thread of the program is
 * stuck.  It also prints the lock-order cycles that lock calls found
 * (watch.c), so that no program thread reads symbols while it holds its
 * locks.
 *
 * A check: for each thread that has waited longer than the limit and
 * whose wait was not reported yet, follow the wait-for graph, thread ->
 * the lock it waits for -> the threads whose records hold it (a mutex
 * has one, an rwlock read-held several) -> the locks they wait for ...
 * A thread met again closes a cycle: a deadlock, reported once for all
 * its threads.  Otherwise the thread's wait is a long wait, reported with
 * the chain of holders.  Each wait (a record's wait count) is reported
 * once.  The records are read without a lock (watch_thread.c), so a
 * chain is a snapshot: a wait is taken only if its count read before and
 * after the other fields is the same.
 *
 * The thread sleeps with raw futex calls and is created with glibc's own
 * pthread_create, every signal blocked by a raw rt_sigprocmask: nothing it
 * does goes through lockswap's exported functions (the go-home wrappers of
 * interpose/away/calls.def: nanosleep, pthread_sigmask), and no signal of the
 * program lands on it.  Started by the library's constructor; in a fork
 * child by the child's first wait in the main program's code.
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"
#include "exe_text.h"
#include "spawn.h"
#include "state.h"
#include "watch_int.h"
#include "../core/runtime/cold.h"

#define HANGS_KEPT 64
#define CHAIN 16      /* threads followed from one waiter */
#define FANOUT 8      /* holders of one lock followed */

static _Atomic uint32_t kick_word;
static _Atomic int running;     /* 0 none, 1 starting or running */
static _Atomic bool stopping;
static _Atomic bool child_wants;
static _Atomic uint64_t deadlocks, long_waits;
static struct ls_hang hangs[HANGS_KEPT] LS_COLD_BSS;
static _Atomic uint32_t nhangs;

static void futex_wait_ms(_Atomic uint32_t *w, uint32_t seen, unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

void ls_watchdog_kick(void)
{
	atomic_fetch_add_explicit(&kick_word, 1, memory_order_release);
	if (atomic_load_explicit(&running, memory_order_acquire)) {
		syscall(SYS_futex, &kick_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		return;
	}
	/* No watchdog (not started yet, or it could not be): print now. */
	if (ls_watch_report_enter()) {
		ls_watch_print_cycles();
		ls_watch_report_leave();
	}
}

/* ---- the wait-for graph ---- */

struct wait {
	struct ls_watch_thread *t;
	uintptr_t lock, site;
	uint64_t ns;
	uint32_t seq;
};

/* The thread's wait, if it has a consistent one. */
static bool wait_of(struct ls_watch_thread *t, struct wait *w)
{
	if (atomic_load_explicit(&t->state, memory_order_acquire) != LS_WATCH_T_LIVE)
		return false;
	uint32_t s = atomic_load_explicit(&t->wait_seq, memory_order_acquire);
	w->lock = atomic_load_explicit(&t->wait_lock, memory_order_acquire);
	w->site = atomic_load_explicit(&t->wait_site, memory_order_relaxed);
	w->ns = atomic_load_explicit(&t->wait_ns, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	w->seq = s;
	w->t = t;
	return w->lock && atomic_load_explicit(&t->wait_seq, memory_order_relaxed) == s;
}

/* The records that hold `lock` (by address), up to max; their sites. */
static int holders(uintptr_t lock, struct ls_watch_thread **out, uintptr_t *sites, int max)
{
	uintptr_t addr = lock & ~(uintptr_t)LS_WATCH_BITS;
	int n = 0;
	for (struct ls_watch_thread *t = ls_watch_records(); t && n < max; t = t->all_next) {
		if (!ls_watch_record_live(t))
			continue;
		uint32_t k = atomic_load_explicit(&t->n, memory_order_acquire);
		for (uint32_t i = k < LS_WATCH_HELD ? k : LS_WATCH_HELD; i-- > 0;) {
			if ((atomic_load_explicit(&t->held[i].lock, memory_order_relaxed) &
			     ~(uintptr_t)LS_WATCH_BITS) == addr) {
				out[n] = t;
				sites[n++] = atomic_load_explicit(&t->held[i].site, memory_order_relaxed);
				break;
			}
		}
	}
	return n;
}

static void describe(struct ls_hang_thread *h, const struct wait *w, uint64_t now)
{
	memset(h, 0, sizeof *h);
	h->tid = atomic_load_explicit(&w->t->tid, memory_order_relaxed);
	ls_stats_thread_name(h->tid, h->name, sizeof h->name);
	h->lock = w->lock;
	h->site = w->site;
	h->waited_ns = now > w->ns ? now - w->ns : 0;
}

static void holder_of(struct ls_hang_thread *h, struct ls_watch_thread *holder, uintptr_t site)
{
	h->holder_site = site;
	h->holder_state = (uint8_t)atomic_load_explicit(&holder->state, memory_order_relaxed);
	h->holder_tid = h->holder_state == LS_WATCH_T_PARENT
	                        ? -1
	                        : atomic_load_explicit(&holder->tid, memory_order_relaxed);
}

static void keep(const struct ls_hang *h)
{
	uint32_t i = atomic_load_explicit(&nhangs, memory_order_relaxed);
	if (i < HANGS_KEPT) {
		hangs[i] = *h;
		atomic_store_explicit(&nhangs, i + 1, memory_order_release);
	}
}

/* A depth-first walk of the wait-for graph from path[0]: true with the
 * cycle's first thread in *start if a thread of the path is met again. */
struct walk {
	struct wait path[CHAIN];
	struct ls_watch_thread *holder[CHAIN]; /* who holds path[i]'s lock, on the way */
	uintptr_t hsite[CHAIN];
	int depth;
};

static bool find_cycle(struct walk *w, int *start)
{
	struct ls_watch_thread *hs[FANOUT];
	uintptr_t sites[FANOUT];
	int d = w->depth;
	int n = holders(w->path[d - 1].lock, hs, sites, FANOUT);
	for (int i = 0; i < n; i++) {
		w->holder[d - 1] = hs[i];
		w->hsite[d - 1] = sites[i];
		for (int j = 0; j < d; j++)
			if (w->path[j].t == hs[i]) {
				*start = j;
				return true;
			}
		if (d == CHAIN || !wait_of(hs[i], &w->path[d]))
			continue;
		w->depth = d + 1;
		if (find_cycle(w, start))
			return true;
		w->depth = d;
	}
	return false;
}

static void report(const struct ls_hang *h)
{
	keep(h);
	if (ls_watch_report_enter()) {
		ls_watch_print_hang(h);
		ls_watch_report_leave();
	}
}

/* The deadlock the walk found: path[start..depth-1], each waiting for a
 * lock the next one holds. */
static void report_deadlock(struct walk *w, int start, uint64_t now)
{
	struct ls_hang h = { .deadlock = true };
	for (int i = start; i < w->depth && h.n < LS_HANG_THREADS; i++) {
		describe(&h.t[h.n], &w->path[i], now);
		holder_of(&h.t[h.n], w->holder[i], w->hsite[i]);
		h.n++;
	}
	/* Each of its waits is this report's. */
	for (int i = start; i < w->depth; i++)
		w->path[i].t->reported_seq = w->path[i].seq;
	atomic_fetch_add(&deadlocks, 1);
	report(&h);
}

/* A long wait: the waiter, then the chain of holders as far as they wait. */
static void report_long_wait(const struct wait *first, uint64_t now)
{
	struct ls_hang h = { .deadlock = false };
	struct wait cur = *first;
	for (;;) {
		struct ls_hang_thread *x = &h.t[h.n++];
		describe(x, &cur, now);
		struct ls_watch_thread *hs[1];
		uintptr_t site;
		if (holders(cur.lock, hs, &site, 1) == 0)
			break;
		holder_of(x, hs[0], site);
		if (h.n == LS_HANG_THREADS || !wait_of(hs[0], &cur))
			break;
	}
	first->t->reported_seq = first->seq;
	atomic_fetch_add(&long_waits, 1);
	report(&h);
}

static unsigned check(void)
{
	uint64_t now = ls_watch_now_ns();
	uint64_t limit = (uint64_t)ls_watch_cfg.hang_ms * 1000000u;
	unsigned reports = 0;
	for (struct ls_watch_thread *t = ls_watch_records(); t; t = t->all_next) {
		struct walk w;
		/* A wait that began after `now` was read (ns > now) is young:
		 * unsigned, now - ns would wrap and pass for a long one. */
		if (!wait_of(t, &w.path[0]) || w.path[0].ns > now || now - w.path[0].ns < limit ||
		    t->reported_seq == w.path[0].seq)
			continue;
		w.depth = 1;
		int start;
		if (find_cycle(&w, &start)) {
			/* Not again for a thread of a cycle already reported. */
			bool fresh = false;
			for (int i = start; i < w.depth; i++)
				fresh |= w.path[i].t->reported_seq != w.path[i].seq;
			if (fresh) {
				report_deadlock(&w, start, now);
				reports++;
			}
			if (start == 0)
				continue;
		}
		if (t->reported_seq != w.path[0].seq) {
			report_long_wait(&w.path[0], now);
			reports++;
		}
	}
	return reports;
}

unsigned ls_watch_check_now(void)
{
	if (!ls_watch_on())
		return 0;
	return check();
}

/* ---- the thread ---- */

static unsigned period_ms(void)
{
	unsigned h = ls_watch_cfg.hang_ms;
	if (!h)
		return 1000;
	h /= 4;
	return h < 10 ? 10 : h > 500 ? 500 : h;
}

static void *watchdog_main(void *arg)
{
	(void)arg;
	/* Its own lock calls, if any (a preloaded allocator's), are neither
	 * counted by the statistics nor watched. */
	ls_stats_enter();
	ls_watch_me = &ls_watch_gone;
	unsigned ms = period_ms();
	for (;;) {
		uint32_t seen = atomic_load_explicit(&kick_word, memory_order_acquire);
		if (atomic_load_explicit(&stopping, memory_order_acquire))
			break;
		if (ls_watch_report_enter()) {
			ls_watch_print_cycles();
			ls_watch_report_leave();
		}
		if (ls_watch_cfg.hang_ms)
			check();
		futex_wait_ms(&kick_word, seen, ms);
	}
	return NULL;
}

void ls_watchdog_start(void)
{
	int expected = 0;
	if (!atomic_compare_exchange_strong(&running, &expected, 1))
		return;
	/* With glibc's own pthread_create, every signal but glibc's two
	 * internal ones blocked (spawn.h): a thread blocking SIGSETXID would
	 * hang the program's next setuid(). */
	if (!ls_stats_spawn(watchdog_main, "lockswap-watch", 512 * 1024))
		atomic_store(&running, 0);
}

void ls_watchdog_ensure(void)
{
	if (atomic_load_explicit(&running, memory_order_relaxed) ||
	    atomic_load_explicit(&stopping, memory_order_relaxed))
		return;
	atomic_store(&child_wants, false);
	ls_watchdog_start();
}

void ls_watchdog_maybe_start(uintptr_t site)
{
	if (!atomic_load_explicit(&child_wants, memory_order_relaxed) || !ls_exe_text_has(site))
		return;
	if (atomic_exchange(&child_wants, false))
		ls_watchdog_start();
}

void ls_watchdog_after_fork(void)
{
	atomic_store(&running, 0);
	atomic_store(&kick_word, 0);
	atomic_store(&nhangs, 0);
	atomic_store(&deadlocks, 0);
	atomic_store(&long_waits, 0);
	atomic_store(&child_wants, !atomic_load(&stopping));
}

void ls_watchdog_stop(void)
{
	atomic_store_explicit(&stopping, true, memory_order_release);
	atomic_fetch_add(&kick_word, 1);
	syscall(SYS_futex, &kick_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

uint32_t ls_watchdog_hang_count(void)
{
	return atomic_load_explicit(&nhangs, memory_order_acquire);
}

const struct ls_hang *ls_watchdog_hang_at(uint32_t i)
{
	return &hangs[i];
}

void ls_watchdog_counts(struct ls_watch_counts *c)
{
	c->deadlocks = atomic_load(&deadlocks);
	c->long_waits = atomic_load(&long_waits);
}
