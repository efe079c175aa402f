/*
 * seats.c - a measurement-only probe, not a lock backend: does restricting
 * the threads that CIRCULATE over a lock (K "seats", handed out FIFO and
 * rotated by seat time) give fair shares at glibc's speed where the lock
 * is not the bottleneck?  That is MutexBench's moderate section at 32
 * threads on 2 CPUs, where slice:INNER keeps the lock open and the CPU
 * scheduler decides the shares (docs/results.md, section 10).
 *
 * Idea: the concurrency restriction of D. Dice and A. Kogan's GCR and
 * Malthusian locks, but counting the threads that hold a seat across their
 * non-critical work (lockswap's restrict: counts only the threads inside
 * the lock), and rotating seats by time (u-SCL's slices, for a set).  The
 * critical section runs under a plain glibc mutex; a thread without a
 * seat parks on a futex until the oldest ticket's turn comes.  Nothing here
 * handles what a backend must: a seat holder that blocks elsewhere, exits,
 * is cancelled or forks; timeouts; several locks per thread.
 *
 *   build/bench/seats THREADS K SEAT_US CS_WORK NCS_WORK SECONDS
 *   (K = 0: no seats, the glibc mutex alone; built by `make all`)
 *
 * CS_WORK and NCS_WORK are PRNG steps as in mutexbench's --cs-work and
 * --ncs-work; SECONDS a whole number.  Prints one JSON line: throughput
 * over SECONDS after a 0.2 s warm-up, min_share (the least-served thread's
 * operations over the mean) and Jain's index, over that window, and rng
 * (the critical section's result, so its work cannot be optimised away).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NSLOT 256 /* futex words tickets park on, ticket % NSLOT */

static int nthreads, seats;
static uint64_t seat_ns;
static long cs_work, ncs_work;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t shared_rng = 1;        /* the critical section's data */
static _Atomic uint32_t next_ticket;   /* the next ticket to hand out */
static _Atomic uint32_t grant;         /* tickets below it hold a seat */
static _Atomic uint32_t slot[NSLOT];   /* bumped when its ticket may sit */
static _Atomic int phase;              /* 0 warm-up, 1 window, 2 stop */

struct worker {
	_Alignas(64) uint64_t window_ops;
	uint64_t rng;
};

static uint64_t rng_steps(uint64_t s, long n) /* xorshift64 */
{
	for (long i = 0; i < n; i++) {
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
	}
	return s;
}

/* argv[i] as a whole number in lo..hi, or a one-line error and exit 2. */
static long number(char **argv, int i, const char *name, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(argv[i], &end, 10);
	if (errno || end == argv[i] || *end || v < lo || v > hi) {
		fprintf(stderr, "seats: %s '%s': must be a whole number in %ld..%ld\n", name,
		        argv[i], lo, hi);
		exit(2);
	}
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Take a ticket; park until it is below grant (seq_cst: the slot is read
 * before grant, and stand() bumps grant before the slot, so a wake between
 * the two reads changes the slot and the futex wait returns at once). */
static void sit(void)
{
	uint32_t t = atomic_fetch_add(&next_ticket, 1);
	_Atomic uint32_t *s = &slot[t % NSLOT];
	for (;;) {
		uint32_t seen = atomic_load(s);
		if ((int32_t)(atomic_load(&grant) - t) > 0)
			return;
		syscall(SYS_futex, s, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
	}
}

/* Give the seat to the oldest ticket waiting for one. */
static void stand(void)
{
	uint32_t g = atomic_fetch_add(&grant, 1); /* ticket g may sit now */
	atomic_fetch_add(&slot[g % NSLOT], 1);
	syscall(SYS_futex, &slot[g % NSLOT], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	while (atomic_load(&phase) < 2) {
		uint64_t until = 0;
		if (seats) {
			sit();
			until = now_ns() + seat_ns;
		}
		for (unsigned i = 1;; i++) {
			pthread_mutex_lock(&mu);
			shared_rng = rng_steps(shared_rng, cs_work);
			pthread_mutex_unlock(&mu);
			w->rng = rng_steps(w->rng, ncs_work);
			if (atomic_load_explicit(&phase, memory_order_relaxed) == 1)
				w->window_ops++;
			if (i % 16 == 0 &&
			    (atomic_load(&phase) == 2 || (seats && now_ns() >= until)))
				break;
		}
		if (seats)
			stand();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: seats THREADS K SEAT_US CS_WORK NCS_WORK SECONDS\n");
		return 2;
	}
	nthreads = (int)number(argv, 1, "THREADS", 1, 4096);
	seats = (int)number(argv, 2, "K", 0, 4096);
	seat_ns = (uint64_t)number(argv, 3, "SEAT_US", 0, 10000000) * 1000u;
	cs_work = number(argv, 4, "CS_WORK", 0, 1L << 30);
	ncs_work = number(argv, 5, "NCS_WORK", 0, 1L << 30);
	double seconds = (double)number(argv, 6, "SECONDS", 1, 3600);
	atomic_store(&grant, (uint32_t)seats);
	struct worker *ws = aligned_alloc(64, sizeof *ws * (size_t)nthreads);
	pthread_t *tid = malloc(sizeof *tid * (size_t)nthreads);
	if (!ws || !tid)
		return 1;
	for (int i = 0; i < nthreads; i++) {
		ws[i].window_ops = 0;
		ws[i].rng = (uint64_t)i + 1;
		pthread_create(&tid[i], NULL, work, &ws[i]);
	}
	usleep(200000);
	atomic_store(&phase, 1);
	uint64_t t0 = now_ns();
	usleep((useconds_t)(seconds * 1e6));
	atomic_store(&phase, 2);
	uint64_t t1 = now_ns();
	for (int i = 0; i < nthreads + seats; i++)
		stand(); /* every parked ticket gets a seat and sees the stop */
	for (int i = 0; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	double sum = 0, sq = 0, least = -1;
	for (int i = 0; i < nthreads; i++) {
		double x = (double)ws[i].window_ops;
		sum += x;
		sq += x * x;
		if (least < 0 || x < least)
			least = x;
	}
	printf("{\"throughput\":%.1f,\"min_share\":%.4f,\"jain\":%.4f,\"rng\":%llu}\n",
	       sum / ((double)(t1 - t0) / 1e9), least / (sum / nthreads),
	       sum * sum / (nthreads * sq), (unsigned long long)shared_rng);
	free(ws);
	free(tid);
	return 0;
}
