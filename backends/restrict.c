/* restrict: wraps any native backend (core/wrap/restrict.h).  State: the
 * restrict word, then the inner lock's state (backends/wrapper.h). */
#include "wrapper.h"

#include "../core/wrap/restrict.h"

#define ABOUT "concurrency restriction around INNER: LOCKSWAP_RESTRICT_ACTIVE threads circulate, the rest park FIFO; one is rotated in after at most LOCKSWAP_RESTRICT_ROTATE fast admissions"
#define DEFAULT_INNER "mcs"

/* LOCKSWAP_* settings that restrict reads (setting.h). */
static const struct ls_option restrict_settings[] = {
	LS_SETTING(RESTRICT_ACTIVE, UINT, "2", 1, 1024, "", &ls_restrict_active,
		"restrict: threads admitted past the restrictor at once (the active set); the rest park")
	LS_SETTING(RESTRICT_ROTATE, UINT, "1000", 1, 8191, "", &ls_restrict_rotate,
		"restrict: fast admissions after which the oldest parked thread is let in (the rotation bound)")
	LS_SETTINGS_END
};

#define LS_WRAPPER_INNER(name, algo) \
	LS_WRAPPER_OVER(restrict_over_##name, restrict, algo, ABOUT, restrict_compose, DEFAULT_INNER);
#include "wrapper_inners.h"
#undef LS_WRAPPER_INNER
LS_WRAPPER_ANY(ls_backend_restrict, restrict, ABOUT, restrict_compose, DEFAULT_INNER);

static const struct ls_wrapper_over restrict_over[] = {
#define LS_WRAPPER_INNER(name, algo) { #name, &restrict_over_##name },
#include "wrapper_inners.h"
#undef LS_WRAPPER_INNER
};

static const struct ls_lock_ops *restrict_compose(const struct ls_lock_ops *inner)
{
	return ls_wrapper_pick(restrict_over, sizeof restrict_over / sizeof restrict_over[0],
	                       inner, &ls_backend_restrict, &ls_backend_restrict_in);
}
