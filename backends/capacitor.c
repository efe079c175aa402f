/* capacitor: wraps any native backend (core/wrap/capacitor.h).  State: the
 * capacitor word, then the inner lock's state (backends/wrapper.h). */
#include "wrapper.h"

#include "../core/wrap/capacitor.h"

#define ABOUT "capacitor (platoons of LOCKSWAP_BYPASS) around INNER: at most B-1 later arrivals overtake a waiter; the next platoon is woken ahead and spins"
#define DEFAULT_INNER "tts"

/* LOCKSWAP_* settings that capacitor reads (setting.h). */
static const struct ls_option capacitor_settings[] = {
	LS_SETTING(BYPASS, UINT, "4", 1, 16384, "", &ls_capacitor_bypass,
		"capacitor platoon size B: at most B-1 later arrivals overtake a waiting thread")
	LS_SETTING(CAPACITOR_SEM, CHOICE, "twa", 0, 0, "ticket|twa", &ls_capacitor_sem,
		"capacitor semaphore: ticket (sleepers all woken per platoon) or twa (woken by ticket via a waiting array)")
	LS_SETTING(CAPACITOR_SKIP, UINT, "0", 0, 1000, "", &ls_capacitor_skip,
		"capacitor fractional bypass: per-mille chance that a lock skips the semaphore (0 keeps the B-1 bound)")
	LS_SETTING(CAPACITOR_MODE, CHOICE, "always", 0, 0, "always|contended", &ls_capacitor_mode,
		"capacitor: always take the semaphore, or only when the inner lock is found held")
	LS_SETTINGS_END
};

#define LS_WRAPPER_INNER(name, algo) \
	LS_WRAPPER_OVER(capacitor_over_##name, capacitor, algo, ABOUT, capacitor_compose, DEFAULT_INNER);
#include "wrapper_inners.h"
#undef LS_WRAPPER_INNER
LS_WRAPPER_ANY(ls_backend_capacitor, capacitor, ABOUT, capacitor_compose, DEFAULT_INNER);

static const struct ls_wrapper_over capacitor_over[] = {
#define LS_WRAPPER_INNER(name, algo) { #name, &capacitor_over_##name },
#include "wrapper_inners.h"
#undef LS_WRAPPER_INNER
};

static const struct ls_lock_ops *capacitor_compose(const struct ls_lock_ops *inner)
{
	return ls_wrapper_pick(capacitor_over, sizeof capacitor_over / sizeof capacitor_over[0],
	                       inner, &ls_backend_capacitor, &ls_backend_capacitor_in);
}
