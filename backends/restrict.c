/* restrict: wraps any native backend (core/wrap/restrict.h).  State: the
 * restrict word, then the inner lock's state (backends/wrapper.h). */
#include "wrapper.h"

#include "../core/wrap/restrict.h"

#define ABOUT "concurrency restriction around INNER: LOCKSWAP_RESTRICT_ACTIVE threads circulate, the rest park FIFO; one is rotated in after at most LOCKSWAP_RESTRICT_ROTATE fast admissions"
#define DEFAULT_INNER "mcs"

LS_WRAPPER_OVER(restrict_over_futex, restrict, futexlock, ABOUT, restrict_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(restrict_over_tts, restrict, tts, ABOUT, restrict_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(restrict_over_ticket, restrict, ticket, ABOUT, restrict_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(restrict_over_mcs, restrict, mcs, ABOUT, restrict_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(restrict_over_queued, restrict, queued, ABOUT, restrict_compose, DEFAULT_INNER);
LS_WRAPPER_ANY(ls_backend_restrict, restrict, ABOUT, restrict_compose, DEFAULT_INNER);

static const struct ls_wrapper_over restrict_over[] = {
	{ "futex", &restrict_over_futex },
	{ "tts", &restrict_over_tts },
	{ "ticket", &restrict_over_ticket },
	{ "mcs", &restrict_over_mcs },
	{ "queued", &restrict_over_queued },
};

static const struct ls_lock_ops *restrict_compose(const struct ls_lock_ops *inner)
{
	return ls_wrapper_pick(restrict_over, sizeof restrict_over / sizeof restrict_over[0],
	                       inner, &ls_backend_restrict, &ls_backend_restrict_in);
}
