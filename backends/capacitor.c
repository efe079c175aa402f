/* capacitor: wraps any native backend (core/wrap/capacitor.h).  State: the
 * capacitor word, then the inner lock's state (backends/wrapper.h). */
#include "wrapper.h"

#include "../core/wrap/capacitor.h"

#define ABOUT "capacitor (platoons of LOCKSWAP_BYPASS) around INNER: at most B-1 later arrivals overtake a waiter; the next platoon is woken ahead and spins"
#define DEFAULT_INNER "tts"

LS_WRAPPER_OVER(capacitor_over_futex, capacitor, futexlock, ABOUT, capacitor_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(capacitor_over_tts, capacitor, tts, ABOUT, capacitor_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(capacitor_over_ticket, capacitor, ticket, ABOUT, capacitor_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(capacitor_over_mcs, capacitor, mcs, ABOUT, capacitor_compose, DEFAULT_INNER);
LS_WRAPPER_OVER(capacitor_over_queued, capacitor, queued, ABOUT, capacitor_compose, DEFAULT_INNER);
LS_WRAPPER_ANY(ls_backend_capacitor, capacitor, ABOUT, capacitor_compose, DEFAULT_INNER);

static const struct ls_wrapper_over capacitor_over[] = {
	{ "futex", &capacitor_over_futex },
	{ "tts", &capacitor_over_tts },
	{ "ticket", &capacitor_over_ticket },
	{ "mcs", &capacitor_over_mcs },
	{ "queued", &capacitor_over_queued },
};

static const struct ls_lock_ops *capacitor_compose(const struct ls_lock_ops *inner)
{
	return ls_wrapper_pick(capacitor_over, sizeof capacitor_over / sizeof capacitor_over[0],
	                       inner, &ls_backend_capacitor, &ls_backend_capacitor_in);
}
