/* deadline.h - an absolute deadline `ms` milliseconds (or `us`
 * microseconds) from now on `clock`, for every test that waits with a
 * timeout (unit and preload tests). */
#ifndef LS_TEST_DEADLINE_H
#define LS_TEST_DEADLINE_H

#include <time.h>

__attribute__((unused)) static struct timespec deadline_in_us(clockid_t clock, long us)
{
	struct timespec t;
	clock_gettime(clock, &t);
	t.tv_sec += us / 1000000;
	t.tv_nsec += (us % 1000000) * 1000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

__attribute__((unused)) static struct timespec deadline_in(clockid_t clock, long ms)
{
	return deadline_in_us(clock, ms * 1000);
}

#endif
