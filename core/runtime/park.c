#include "park.h"

#include "futex.h"
#include "home.h"

int ls_park_home_first(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
                       const struct timespec *abstime)
{
	/* A context run by a delegate never sleeps on the delegate's thread
	 * (home.h). */
	ls_go_home(LS_BACK_PARK);
	return ls_futex_wait(word, expected, clock, abstime);
}

int ls_park_wake(const _Atomic uint32_t *word, int n)
{
	return ls_futex_wake(word, n);
}
