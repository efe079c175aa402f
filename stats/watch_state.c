/* watch_state.c - the configuration of the lock-order check and the hang
 * watchdog, and their clock (watch_int.h): the bottom of their files, it
 * calls nothing. */
#include <time.h>

#include "watch_int.h"

struct ls_watch_config ls_watch_cfg;
_Atomic bool ls_watch_configured;

bool ls_watch_on(void)
{
	return ls_watch_active() && ls_watch_cfg.hang_ms != 0;
}

unsigned ls_watch_hang_ms(void)
{
	return ls_watch_active() ? ls_watch_cfg.hang_ms : 0;
}

uint64_t ls_watch_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
