/* slice: wraps any native backend (core/wrap/slice.h).  State: the slice word,
 * then the inner lock's state (backends/wrapper.h). */
#include "wrapper.h"

#include "../core/wrap/slice.h"
#include "../core/wrap/slice_share.h"

#define ABOUT "lock slices around INNER: a contended lock is owned for LOCKSWAP_SLICE_US of hold time by one thread, then handed to the oldest waiter; open (INNER alone) where slices do not pay"
#define DEFAULT_INNER "futex"

/* LOCKSWAP_* settings that slice reads (setting.h). */
static const struct ls_option slice_settings[] = {
	LS_SETTING(SLICE_US, UINT, "250", 10, 1000000, "", &ls_slice_us,
		"slice: hold time (microseconds) a thread may use per slice before the lock is handed to the oldest waiter; an owner that holds the lock for at most an eighth of its slice's time gets this much wall time, any slice at most 4x this")
	LS_SETTING(SLICE_GAP_NS, UINT, "300", 0, 100000000, "", &ls_slice_gap_ns,
		"slice: slices are kept while most of the owner's returns to the lock come within this many ns of its release; otherwise the lock stays open for ~64 ms")
	LS_SETTING(SLICE_BUSY, BOOL, "on", 0, 1, "", &ls_slice_busy_pays,
		"slice: keep slices whose owner came back slowly when it was preempted and got under half a CPU (no CPU was free for the parallel work a slice gives up)")
	LS_SETTING(SLICE_SEATS, UINT, "0", 0, 4096, "auto", &ls_slice_seats,
		"slice: groups, where the lock is not the bottleneck but more threads wait than this: the lock is held by a group of this many threads at a time, rotated in FIFO order (fairer there, about 10% slower); auto: the CPUs the process may use + 1; 0 or 1: no groups (the lock stays open there)")
	LS_SETTING(SLICE_SHARES, CHOICE, "equal", 0, 0, "equal|nice", &ls_slice_shares,
		"slice: equal slices for every thread, or each thread's slice scaled by its nice value relative to the main thread's (1.25x per step, as CFS weights; at most 15 steps either way), so hold-time shares follow CPU shares")
	LS_SETTINGS_END
};

#define LS_WRAPPER_INNER(name, algo) \
	LS_WRAPPER_OVER(slice_over_##name, slice, algo, ABOUT, slice_compose, DEFAULT_INNER);
#include "wrapper_inners.h"
#undef LS_WRAPPER_INNER
LS_WRAPPER_ANY(ls_backend_slice, slice, ABOUT, slice_compose, DEFAULT_INNER);

static const struct ls_wrapper_over slice_over[] = {
#define LS_WRAPPER_INNER(name, algo) { #name, &slice_over_##name },
#include "wrapper_inners.h"
#undef LS_WRAPPER_INNER
};

static const struct ls_lock_ops *slice_compose(const struct ls_lock_ops *inner)
{
	return ls_wrapper_pick(slice_over, sizeof slice_over / sizeof slice_over[0],
	                       inner, &ls_backend_slice, &ls_backend_slice_in);
}
