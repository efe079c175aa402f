/*
 * ticks.c - choosing the per-op clock and calibrating it (see ticks.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mutexbench.h"
#include "ticks.h"

bool mb_ticks_are_tsc;
static uint64_t calib_ticks, calib_ns;

uint64_t mb_ticks_ns_clock(void)
{
	return mb_now_ns();
}

/* The TSC is trusted where the kernel's own clocksource is "tsc": the
 * kernel then found it invariant and synchronised across CPUs. */
static bool kernel_keeps_time_by_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	char name[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (!f)
		return false;
	bool ok = fgets(name, sizeof name, f) != NULL;
	fclose(f);
	return ok && strcmp(name, "tsc\n") == 0;
#else
	return false;
#endif
}

void mb_ticks_init(void)
{
	mb_ticks_are_tsc = kernel_keeps_time_by_tsc();
	calib_ns = mb_now_ns();
	calib_ticks = mb_ticks_now();
}

void mb_ticks_open_window(struct mb_window_clock *wc)
{
	uint64_t ns;
	while ((ns = mb_now_ns()) < calib_ns + TICKS_CALIBRATION_NS) {
		struct timespec nap = { 0, 200000 };
		nanosleep(&nap, NULL);
	}
	uint64_t ticks = mb_ticks_now();
	double per_ns = mb_ticks_are_tsc ? (double)(ticks - calib_ticks) / (double)(ns - calib_ns) : 1.0;
	wc->ns_per_tick = 1.0 / per_ns;
	wc->ms_mul = (uint64_t)(18446744073709551616.0 / (per_ns * 1e6));
	wc->start = ticks;
	atomic_store_explicit(&wc->end, 0, memory_order_relaxed);
}
