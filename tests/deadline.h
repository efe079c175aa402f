/* deadline.h - an absolute deadline `ms` milliseconds from now on `clock`,
 * for every test that waits with a timeout (unit and preload tests). */
#ifndef LS_TEST_DEADLINE_H
#define LS_TEST_DEADLINE_H

#include <time.h>

__attribute__((unused)) static struct timespec deadline_in(clockid_t clock, long ms)
{
	struct timespec t;
	clock_gettime(clock, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

#endif
