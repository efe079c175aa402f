/* slice: wraps any native backend (core/wrap/slice.h).  State: the slice word,
 * then the inner lock's state (backends/wrapper.h). */
#include "wrapper.h"

#include <inttypes.h>
#include <stdio.h>

#include "../core/wrap/slice.h"
#include "../core/condvar/morph.h"
#include "../core/wrap/slice_futex.h"
#include "../core/wrap/slice_share.h"
#include "../core/runtime/say.h"

#define ABOUT "lock slices around INNER: a contended lock is owned for LOCKSWAP_SLICE_US of hold time by one thread, then handed to the oldest waiter; open (INNER alone) where slices do not pay"
#define DEFAULT_INNER "futex"

/* LOCKSWAP_* settings that slice reads (setting.h). */
static const struct ls_option slice_settings[] = {
	LS_SETTING(SLICE_US, UINT, "250", 10, 1000000, "", &ls_slice_us,
		"slice: hold time (microseconds) a thread may use per slice before the lock is handed to the oldest waiter; an owner that holds the lock for at most a sixteenth of its slice's time gets this much wall time, any slice at most 4x this")
	LS_SETTING(SLICE_GAP_NS, UINT, "300", 0, 100000000, "", &ls_slice_gap_ns,
		"slice: slices are kept only while the owner comes back to the lock within this many ns of its release on average (each gap counted for at most 4x this); otherwise the lock stays open for ~64 ms")
	LS_SETTING(SLICE_BUSY, BOOL, "on", 0, 1, "", &ls_slice_busy_pays,
		"slice: keep slices whose owner came back slowly when it was preempted and got under half a CPU (no CPU was free for the parallel work a slice gives up)")
	LS_SETTING(SLICE_SEATS, UINT, "0", 0, 4096, "auto", &ls_slice_seats,
		"slice: groups, where the lock is not the bottleneck but more threads wait than this: the lock is held by a group of this many threads at a time, rotated in FIFO order (fairer there, about 10% slower); auto: the CPUs the process may use + 1; 0 or 1: no groups (the lock stays open there)")
	LS_SETTING(SLICE_WAKE_US, UINT, "0", 0, 1000000, "", &ls_slice_wake_us,
		"slice: an owner whose slice is spent wakes the oldest waiter and keeps the slice until that waiter runs, for at most this many microseconds, so that the lock is handed to a thread on a CPU, not to one still waking up (for many-core machines; within the noise on 2 CPUs); 0, the default: hand it over at once")
	LS_SETTING(SLICE_COUNTS, BOOL, "off", 0, 1, "", &ls_slice_counts_on,
		"slice: print what the slices did (opened, handed over, ended as not paying, by a condvar wait, taken over; acquisitions and microseconds per slice, and the time from a hand-over to the new owner's first acquisition) to stderr at exit")
	LS_SETTING(SLICE_SHARES, CHOICE, "equal", 0, 0, "equal|nice", &ls_slice_shares,
		"slice: equal slices for every thread, or each thread's slice scaled by its nice value relative to the main thread's (1.25x per step, as CFS weights; at most 15 steps either way), so hold-time shares follow CPU shares")
	LS_SETTINGS_END
};

/* One line, so a script can take it apart: `key=value` pairs. */
__attribute__((destructor)) static void slice_print_counts(void)
{
	if (!atomic_load_explicit(&ls_slice_counts_on, memory_order_relaxed))
		return;
	struct ls_slice_counts *c = &ls_slice_counts;
#define V(f) atomic_load_explicit(&c->f, memory_order_relaxed)
	uint64_t ended = V(handovers) + V(closed) + V(not_paying) + V(groups);
	char line[768];
	snprintf(line, sizeof line,
	         "lockswap: slice counts: opened=%" PRIu64 " queued=%" PRIu64 " quiet=%" PRIu64
	         " handovers=%" PRIu64 " closed=%" PRIu64 " not_paying=%" PRIu64
	         " cond_ends=%" PRIu64 " takeovers=%" PRIu64 " flushes=%" PRIu64 " groups=%" PRIu64
	         " seats=%" PRIu64 " backed_out=%" PRIu64 " acqs_per_slice=%" PRIu64
	         " us_per_slice=%" PRIu64 " probes=%" PRIu64 " probes_short=%" PRIu64
	         " probe_gap_ns=%" PRIu64 " ns_per_handover=%" PRIu64 " called=%" PRIu64
	         " awake=%" PRIu64 "\n",
	         V(opened), V(queued), V(quiet), V(handovers), V(closed), V(not_paying),
	         V(cond_ends), V(takeovers), V(flushes), V(groups), V(seats), V(backed_out),
	         ended ? V(acqs) / ended : 0, ended ? V(us) / ended : 0, V(probes), V(probes_short),
	         V(probes) ? V(probe_gap_ns) / V(probes) : 0, V(gaps) ? V(gap_ns) / V(gaps) : 0,
	         V(called), V(awake));
#undef V
	ls_say(line);
}

/* The inner locks of backends/wrapper_inners.h but futex, each with a
 * table of its own (the wrapper's verbs over the inner lock's, inlined):
 * slice:futex, the default, is the futex word with the slice's
 * reservation in it (below). */
LS_WRAPPER_OVER(slice_over_tts, slice, tts, ABOUT, slice_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(slice_over_ticket, slice, ticket, ABOUT, slice_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(slice_over_mcs, slice, mcs, ABOUT, slice_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(slice_over_queued, slice, queued, ABOUT, slice_compose, DEFAULT_INNER);
LS_WRAPPER_ANY(ls_backend_slice, slice, ABOUT, slice_compose, DEFAULT_INNER);

/* slice:futex (core/wrap/slice_futex.h): the reservation in the lock word,
 * so the uncontended path is the futex lock's, with a single-threaded
 * table (plain loads and stores while the process has one thread). */
_Static_assert(sizeof(struct ls_slice_futex) <= LS_LOCK_STATE_BYTES, "slice:futex fits");
/* Each verb that takes or releases the lock tells the condvar's hint
 * (core/condvar/morph.h): a signal from the holder moves its waiter to the
 * lock word instead of waking it. */
static int slice_lock(void *s)
{
	/* Told before the lock, which always succeeds: the call stays a
	 * tail call and `s` needs no register kept across it.  A thread
	 * that waits for the lock signals nothing meanwhile. */
	ls_cv_took(s);
	return ls_slice_futex_lock(s);
}
static int slice_trylock(void *s)
{
	int r = ls_slice_futex_trylock(s);
	if (r == 0)
		ls_cv_took(s);
	return r;
}
static int slice_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	int r = ls_slice_futex_timedlock(s, c, t);
	if (r == 0)
		ls_cv_took(s);
	return r;
}
static void slice_unlock(void *s)
{
	ls_cv_released();
	ls_slice_futex_unlock(s);
}
static void slice_unlock_to_wait(void *s)
{
	ls_cv_released();
	ls_slice_futex_unlock_to_wait(s);
}
static bool slice_is_locked(void *s) { return ls_slice_futex_is_locked(s); }
static bool slice_lock_plain(void *s)
{
	if (!ls_slice_futex_lock_plain(s))
		return false;
	ls_cv_took(s);
	return true;
}
static bool slice_unlock_plain(void *s)
{
	if (!ls_slice_futex_unlock_plain(s))
		return false;
	ls_cv_released();
	return true;
}
static _Atomic uint32_t *slice_park_word(void *s)
{
	return &((struct ls_slice_futex *)s)->word;
}
static bool slice_mark_parked(void *s)
{
	return ls_slice_futex_mark_parked(s);
}
static void slice_woken(void *s)
{
	ls_slice_futex_owe_wake(s);
}
static const struct ls_cv_morph slice_morph = {
	.park_word = slice_park_word,
	.mark_parked = slice_mark_parked,
	.woken = slice_woken,
};
LS_SINGLE_TABLE(slice, ABOUT);
const struct ls_lock_ops ls_backend_slice_futex = {
	.name = "slice",
	.about = ABOUT,
	.state_size = LS_WRAPPER_WORD_BYTES,
	.lock = slice_lock,
	.trylock = slice_trylock,
	.timedlock = slice_timedlock,
	.unlock = slice_unlock,
	.unlock_to_wait = slice_unlock_to_wait,
	.is_locked = slice_is_locked,
	.lock_plain = slice_lock_plain,
	.unlock_plain = slice_unlock_plain,
	.single = &slice_single,
	.morph = &slice_morph,
	.compose = slice_compose,
	.default_inner = DEFAULT_INNER,
	.settings = slice_settings,
};

static const struct ls_wrapper_over slice_over[] = {
	{ "futex", &ls_backend_slice_futex },
	{ "tts", &slice_over_tts },
	{ "ticket", &slice_over_ticket },
	{ "mcs", &slice_over_mcs },
	{ "queued", &slice_over_queued },
};

static const struct ls_lock_ops *slice_compose(const struct ls_lock_ops *inner)
{
	return ls_wrapper_pick(slice_over, sizeof slice_over / sizeof slice_over[0],
	                       inner, &ls_backend_slice, &ls_backend_slice_in);
}
