#include "wait.h"

#include "sys.h"

#include <sched.h>

#include "home.h"
#include "park.h"
#include "thread.h"
#include "timespec.h"
#include "cold.h"

/* ---- the spinner bound ------------------------------------------------ */

static _Atomic unsigned spinners;
static _Atomic unsigned cpus; /* 0 = not measured yet */

static unsigned measure_cpus(void)
{
	/* Raw (sys.h): the program's sched_getaffinity is lockswap's own
	 * wrapper (interpose/away/).  The kernel fills the first bytes. */
	cpu_set_t set;
	CPU_ZERO(&set);
	unsigned n = 1;
	if (ls_sys6(SYS_sched_getaffinity, 0, sizeof set, (long)&set, 0, 0, 0) > 0)
		n = (unsigned)CPU_COUNT(&set);
	return n ? n : 1;
}

unsigned ls_wait_cpus(void)
{
	/* relaxed: a stale or racing measurement gives the same number. */
	unsigned n = atomic_load_explicit(&cpus, memory_order_relaxed);
	if (!n) {
		n = measure_cpus();
		atomic_store_explicit(&cpus, n, memory_order_relaxed);
	}
	return n;
}

unsigned ls_wait_spin_bound(void)
{
	unsigned n = ls_wait_cpus();
	/* One CPU stays for the lock holder and one for a parked thread that
	 * is handed the lock: a FIFO hand-over to a thread that cannot run
	 * stalls every spinner behind it.  With 2 CPUs, one spinner. */
	return n > 2 ? n - 2 : n - 1;
}

void ls_wait_set_cpus(unsigned n)
{
	atomic_store_explicit(&cpus, n, memory_order_relaxed);
}

unsigned ls_wait_spinners(void)
{
	return atomic_load_explicit(&spinners, memory_order_relaxed);
}

/* relaxed throughout: the count orders no data, it only rations CPUs.
 * While the process has no more threads with a record than may spin, the
 * bound cannot be exceeded and the shared count (a contended cache line)
 * is left alone: *counted says which case this was. */
static bool admit_spinner(bool *counted)
{
	unsigned bound = ls_wait_spin_bound();
	/* Only a thread with a record is among ls_thread_live(); the record
	 * is not made here (making one takes a lock, which may spin). */
	*counted = !ls_thread_current || ls_thread_live() > bound;
	if (!*counted)
		return true;
	unsigned n = atomic_load_explicit(&spinners, memory_order_relaxed);
	do {
		if (n >= bound)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&spinners, &n, n + 1, memory_order_relaxed,
	                                                memory_order_relaxed));
	return true;
}

/* ---- per-lock spin estimates ------------------------------------------ */

#define EST_SLOTS 256u

struct est_slot {
	_Alignas(64) _Atomic uint32_t ns; /* 0 = never measured */
};
static struct est_slot estimates[EST_SLOTS] LS_COLD_BSS;

static _Atomic uint32_t *estimate_of(const void *lock)
{
	uint32_t h = (uint32_t)((uintptr_t)lock >> 4) * 0x9e3779b1u;
	return &estimates[h >> 24].ns;
}

static uint32_t clamp_budget(uint64_t ns, uint32_t min)
{
	return ns < min ? min : ns > LS_SPIN_MAX_NS ? LS_SPIN_MAX_NS : (uint32_t)ns;
}

static bool start(struct ls_spin *s, const void *lock, uint32_t min_ns);
static bool start_admitted(struct ls_spin *s, const void *lock, uint32_t min_ns, bool admit);

bool ls_spin_start(struct ls_spin *s, const void *lock)
{
	return start(s, lock, LS_SPIN_MIN_NS);
}

bool ls_spin_start_queued(struct ls_spin *s, const void *lock)
{
	return start(s, lock, LS_SPIN_QUEUE_MIN_NS);
}

bool ls_spin_start_own_cpu(struct ls_spin *s, const void *lock)
{
	return start_admitted(s, lock, LS_SPIN_QUEUE_MIN_NS, false);
}

static bool start(struct ls_spin *s, const void *lock, uint32_t min_ns)
{
	return start_admitted(s, lock, min_ns, true);
}

/* admit: take a place in the spinner count (admit_spinner). */
static bool start_admitted(struct ls_spin *s, const void *lock, uint32_t min_ns, bool admit)
{
	unsigned fixed = atomic_load_explicit(&ls_spin_limit, memory_order_relaxed);
	if (fixed == 0)
		return false;
	if (!admit)
		s->counted = false;
	else if (!admit_spinner(&s->counted))
		return false;
	s->polls = 0;
	s->steps = 0;
	s->est = estimate_of(lock);
	if (fixed != LS_SPIN_ADAPTIVE) {
		s->budget = fixed;
		s->start_ns = s->first_ns = 0;
		return true;
	}
	/* relaxed: estimates are hints; a lost update costs one odd budget. */
	uint32_t e = atomic_load_explicit(s->est, memory_order_relaxed);
	s->budget = clamp_budget(3ull * (e ? e : LS_SPIN_INIT_NS), min_ns);
	s->start_ns = s->first_ns = ls_now_ns(CLOCK_MONOTONIC);
	return true;
}

bool ls_spin_more(struct ls_spin *s)
{
	ls_cpu_relax();
	s->polls++;
	if (!s->start_ns)
		return s->polls < s->budget;
	/* The clock is read every 8 polls: a vDSO call costs about as much
	 * as a few pauses. */
	if (s->polls & 7)
		return true;
	return ls_now_ns(CLOCK_MONOTONIC) - s->start_ns < s->budget;
}

void ls_spin_progress(struct ls_spin *s)
{
	s->polls = 0;
	s->steps++;
	if (s->start_ns)
		s->start_ns = ls_now_ns(CLOCK_MONOTONIC);
}

void ls_spin_stop(struct ls_spin *s, bool won)
{
	if (s->counted)
		atomic_fetch_sub_explicit(&spinners, 1, memory_order_relaxed);
	if (!s->start_ns)
		return;
	uint32_t e0 = atomic_load_explicit(s->est, memory_order_relaxed);
	uint32_t e = e0 ? e0 : LS_SPIN_INIT_NS;
	if (won) {
		/* The time per step of the queue (or of the whole wait). */
		uint64_t d = (ls_now_ns(CLOCK_MONOTONIC) - s->first_ns) / (s->steps + 1u);
		if (d > LS_SPIN_MAX_NS)
			d = LS_SPIN_MAX_NS;
		/* Mean over the last few successful spins (weight 1/4). */
		e = (uint32_t)(((uint64_t)e * 3 + d) / 4);
	} else {
		e /= 2; /* spinning did not pay: try shorter next time */
	}
	if (!e)
		e = 1;
	/* Every waiter of a hot lock lands here: skip stores that change the
	 * estimate by less than 1/8, so its line is not written each time. */
	uint32_t diff = e > e0 ? e - e0 : e0 - e;
	if (diff > e0 / 8)
		atomic_store_explicit(s->est, e, memory_order_relaxed);
}

/* ---- parking and cancellation ----------------------------------------- */

_Atomic(const struct ls_wait_cancel_hooks *) ls_wait_cancel_hooks;

/* Per thread: inside a scope that turned asynchronous cancellation off
 * (parks are then cancellable), the leave steps registered in it, and
 * whether the thread is already being cancelled (leave steps then run
 * as ordinary code: nothing may re-arm cancellation). */
__thread bool ls_wait_async;
static __thread bool cancellable;
static __thread bool unwinding;
static __thread struct ls_wait_frame *frames;

static const struct ls_wait_cancel_hooks *hooks(void)
{
	/* acquire: pairs with the embedder's release store of the table. */
	return atomic_load_explicit(&ls_wait_cancel_hooks, memory_order_acquire);
}

void ls_wait_enter_async(struct ls_wait_scope *sc)
{
	if (cancellable || unwinding)
		return;
	const struct ls_wait_cancel_hooks *h = hooks();
	if (h && h->hold()) {
		sc->held = true;
		cancellable = true;
	}
}

void ls_wait_enter_quiet_async(struct ls_wait_scope *sc)
{
	if (cancellable || unwinding)
		return;
	const struct ls_wait_cancel_hooks *h = hooks();
	sc->held = h && h->hold();
}

void ls_wait_exit_async(struct ls_wait_scope *sc)
{
	cancellable = false;
	frames = NULL;
	hooks()->restore();
}

void ls_wait_push_async(struct ls_wait_frame *f, void (*leave)(void *), void *arg)
{
	f->leave = leave;
	f->arg = arg;
	f->linked = cancellable;
	if (f->linked) {
		f->up = frames;
		frames = f;
	}
}

void ls_wait_pop_linked(struct ls_wait_frame *f)
{
	frames = f->up;
}

/* The thread was cancelled inside a park: leave every structure it waits
 * in, innermost first.  Runs on the cancelled thread, during unwinding. */
static void run_leave_steps(void *arg)
{
	(void)arg;
	cancellable = false;
	unwinding = true;
	while (frames) {
		struct ls_wait_frame *f = frames;
		frames = f->up;
		f->leave(f->arg);
	}
	/* unwinding stays set: the thread is on its way out, and the
	 * program's own cleanup handlers may still lock and unlock. */
}

int ls_park(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
            const struct timespec *abstime)
{
	/* A context run by a delegate never sleeps on the delegate's thread
	 * (core/runtime/home.h). */
	ls_go_home(LS_BACK_PARK);
	if (cancellable)
		return hooks()->park(word, expected, clock, abstime, run_leave_steps, NULL);
	return ls_futex_wait(word, expected, clock, abstime);
}

/* The condvar's waiter leaves through its own cleanup handler. */
static void nothing_to_leave(void *arg)
{
	(void)arg;
}

int ls_park_uncancellable(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
                          const struct timespec *abstime)
{
	return ls_park_home_first(word, expected, clock, abstime);
}

int ls_park_cancel_point(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
                         const struct timespec *abstime)
{
	ls_go_home(LS_BACK_PARK);
	const struct ls_wait_cancel_hooks *h = hooks();
	if (h)
		return h->park(word, expected, clock, abstime, nothing_to_leave, NULL);
	return ls_futex_wait(word, expected, clock, abstime);
}
