/* slice: wraps any native backend (core/wrap/slice.h).  State: the slice word,
 * then the inner lock's state (backends/wrapper.h). */
#include "wrapper.h"

#include "../core/wrap/slice.h"

#define ABOUT "lock slices around INNER: a contended lock is owned for LOCKSWAP_SLICE_US of hold time by one thread, then handed to the oldest waiter; open (INNER alone) where slices do not pay"
#define DEFAULT_INNER "futex"

LS_WRAPPER_OVER(slice_over_futex, slice, futexlock, ABOUT, slice_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(slice_over_tts, slice, tts, ABOUT, slice_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(slice_over_ticket, slice, ticket, ABOUT, slice_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(slice_over_mcs, slice, mcs, ABOUT, slice_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(slice_over_queued, slice, queued, ABOUT, slice_compose, DEFAULT_INNER);
LS_WRAPPER_ANY(ls_backend_slice, slice, ABOUT, slice_compose, DEFAULT_INNER);

static const struct ls_wrapper_over slice_over[] = {
	{ "futex", &slice_over_futex },
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
