/*
 * wakelat.c - how long a futex wake-up takes to get the woken thread
 * running, on this machine (docs/results.md, "The capacitor beyond 9
 * threads").
 *
 * The capacitor's waiters give up spinning when the platoons have not
 * moved for LS_SPIN_QUEUE_MIN_NS (20 us, core/runtime/wait.h) and park.
 * Once some have parked, every platoon opening waits for wake-ups; if a
 * wake-up takes longer than that bound, the waiters spinning for later
 * platoons see no progress meanwhile and park too, and the capacitor can
 * stay in that state for a whole run.  This measures the premise: the
 * delay from FUTEX_WAKE to the woken thread reading the clock, with the
 * sleeper's CPU left idle for `gap_us` first (deep idle states and, on a
 * VM, a halted vCPU make it longer).
 *
 *   cc -O2 -std=c11 -D_GNU_SOURCE -o wakelat scripts/manycore/wakelat.c -lpthread
 *   wakelat [SAMPLES [GAP_US]]       one JSON line: p50/p90/p99 in ns, and
 *                                    the share above 20 us
 */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic uint32_t word;
static _Atomic uint64_t woke_at; /* ns, 0 = not yet */
static _Atomic int done;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *sleeper(void *arg)
{
	(void)arg;
	uint32_t seen = 0;
	while (!atomic_load(&done)) {
		while (atomic_load(&word) == seen && !atomic_load(&done))
			syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
		seen = atomic_load(&word);
		atomic_store(&woke_at, now_ns());
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
	long gap_us = argc > 2 ? strtol(argv[2], NULL, 10) : 200;
	if (n < 10 || n > 1000000 || gap_us < 0 || gap_us > 1000000) {
		fprintf(stderr, "wakelat: SAMPLES must be 10..1000000 and GAP_US 0..1000000\n");
		return 2;
	}
	uint64_t *lat = calloc((size_t)n, sizeof *lat);
	pthread_t t;
	if (!lat || pthread_create(&t, NULL, sleeper, NULL) != 0) {
		fprintf(stderr, "wakelat: cannot start\n");
		return 1;
	}
	struct timespec gap = { gap_us / 1000000, (gap_us % 1000000) * 1000 };
	for (long i = 0; i < n; i++) {
		nanosleep(&gap, NULL); /* the sleeper has parked; its CPU idles */
		atomic_store(&woke_at, 0);
		uint64_t t0 = now_ns();
		atomic_fetch_add(&word, 1);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		uint64_t t1;
		while ((t1 = atomic_load(&woke_at)) == 0)
			;
		lat[i] = t1 > t0 ? t1 - t0 : 0;
	}
	atomic_store(&done, 1);
	atomic_fetch_add(&word, 1);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	pthread_join(t, NULL);
	qsort(lat, (size_t)n, sizeof *lat, cmp);
	long over = 0;
	for (long i = 0; i < n; i++)
		over += lat[i] > 20000;
	printf("{\"samples\":%ld,\"gap_us\":%ld,\"p50_ns\":%llu,\"p90_ns\":%llu,\"p99_ns\":%llu,"
	       "\"share_over_20us\":%.4f}\n",
	       n, gap_us, (unsigned long long)lat[n / 2], (unsigned long long)lat[n * 9 / 10],
	       (unsigned long long)lat[n * 99 / 100], (double)over / n);
	free(lat);
	return 0;
}
