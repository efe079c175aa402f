/*
 * capacitor_claims.c - counts for two claims of the Capacitors text (docs/seeds.md
 * K3, K11), on lockswap's own capacitor driven directly (no preload).
 *
 *   K3   with T >= B threads under sustained load, bypass is 1-bounded
 *        ("any fast thread will depart, re-arrive, and then block"): per
 *        acquisition, how many later arrivals overtook it (histogram, mean,
 *        maximum; the B-1 bound is what the unit tests assert), and the
 *        most of those by any one thread (1-bounded: never above 1).
 *   K11  with T < B, "threads rarely block" in the semaphore: the share
 *        of arrivals whose ticket was not admitted when it was taken.
 *
 * The trace hook (core/wrap/capacitor.h) gives each arrival its ticket and
 * the word just after; the critical section logs tickets in acquisition
 * order.  Overtakes of an acquisition = earlier acquisitions with a later
 * ticket (a Fenwick tree over tickets).  The capacitor's tickets are 16-bit;
 * the log unwraps them (acquisitions happen within B + T tickets of each
 * other).  A run lasts SECONDS (default 0.5) or TOTAL acquisitions: long
 * enough that threads overlap for many scheduler time slices (60,000
 * acquisitions fit in one slice of a single thread on a loaded machine,
 * which then counts nothing).
 *
 * Build and run from the repository root, after `make` (capacitor.sh does):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -o /tmp/claims scripts/manycore/capacitor_claims.c \
 *      liblockswap-core.a -lpthread
 *   /tmp/claims INNER THREADS B CS_WORK NCS_WORK [SECONDS]   (one JSON line)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../backends/backend.h"
#include "../../core/wrap/capacitor.h"

#define TOTAL 4000000

static const struct ls_lock_ops *ops;
static _Alignas(64) unsigned char st[LS_LOCK_STATE_BYTES];
static unsigned bypass;
static unsigned cs_work, ncs_work;
static _Atomic int go, stop;
static _Atomic long taken;          /* acquisitions claimed so far */
static _Atomic long not_admitted;   /* arrivals that found their platoon closed */
static uint32_t order[TOTAL];       /* unwrapped tickets in acquisition order */
static uint16_t order_tid[TOTAL];   /* and the thread of each */
static int norder;                  /* plain: only critical sections touch it */
static uint32_t last_ticket;        /* the last logged, unwrapped */
static __thread uint32_t my_ticket;
static __thread uint16_t my_index;
static volatile uint64_t shared_rng = 88172645463325252ull;

static void on_arrive(const void *cap, uint32_t t)
{
	my_ticket = t;
	uint64_t w = atomic_load(&((struct ls_capacitor *)(uintptr_t)cap)->word);
	if (!ls_capacitor_admitted(w, (uint16_t)t, bypass))
		atomic_fetch_add(&not_admitted, 1);
}

static uint64_t step(uint64_t x)
{
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	return x * 2685821657736338717ull;
}

static void *worker(void *arg)
{
	uint64_t mine = (uintptr_t)arg * 7919 + 1;
	my_index = (uint16_t)(uintptr_t)arg;
	while (!atomic_load(&go))
		;
	while (!atomic_load_explicit(&stop, memory_order_relaxed) &&
	       atomic_fetch_add(&taken, 1) < TOTAL) {
		ops->lock(st);
		last_ticket += (uint32_t)(int32_t)(int16_t)(uint16_t)(my_ticket - last_ticket);
		order_tid[norder] = my_index;
		order[norder++] = last_ticket;
		for (unsigned i = 0; i < cs_work; i++)
			shared_rng = step(shared_rng);
		ops->unlock(st);
		for (unsigned i = 0; i < ncs_work; i++)
			mine = step(mine);
	}
	return (void *)(uintptr_t)mine;
}

/* Tickets reach the acquisitions plus those still held at the end (< 256). */
#define FENWICK_N (TOTAL + 512)
static int fenwick[FENWICK_N + 1];

/* The most overtakes of acquisition p by any one thread: the earlier
 * acquisitions with a later ticket, by thread.  They all lie in the last
 * `window` acquisitions unless `found` falls short of the total (counted
 * as a miss). */
#define WINDOW 256
static int per_thread_max(int p, int total, long *miss)
{
	int cnt[256] = { 0 }, best = 0, found = 0;
	for (int q = p - 1; q >= 0 && q >= p - WINDOW; q--)
		if (order[q] > order[p]) {
			found++;
			if (++cnt[order_tid[q]] > best)
				best = cnt[order_tid[q]];
		}
	*miss += found != total;
	return best;
}

int main(int argc, char **argv)
{
	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: capacitor_claims INNER THREADS B CS_WORK NCS_WORK [SECONDS]\n");
		return 2;
	}
	char err[256], name[64];
	snprintf(name, sizeof name, "capacitor:%s", argv[1]);
	ops = ls_backend_select(name, err, sizeof err);
	if (!ops) {
		fprintf(stderr, "capacitor_claims: %s\n", err);
		return 2;
	}
	int threads = atoi(argv[2]);
	bypass = (unsigned)atoi(argv[3]);
	cs_work = (unsigned)atoi(argv[4]);
	ncs_work = (unsigned)atoi(argv[5]);
	double seconds = argc == 7 ? atof(argv[6]) : 0.5;
	if (threads < 1 || threads > 256 || bypass < 1 || bypass > 1024 || !(seconds > 0) ||
	    seconds > 60) {
		fprintf(stderr, "capacitor_claims: threads must be 1..256, B 1..1024, seconds in (0, 60]\n");
		return 2;
	}
	atomic_store(&ls_capacitor_bypass, bypass);
	atomic_store(&ls_capacitor_trace, on_arrive);
	pthread_t t[256];
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			fprintf(stderr, "capacitor_claims: cannot start thread %ld\n", i + 1);
			return 1;
		}
	atomic_store(&go, 1);
	struct timespec run = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	nanosleep(&run, NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);

	/* Overtakes per acquisition: earlier acquisitions with a larger ticket. */
	long hist[66] = { 0 }, sum = 0, miss = 0, by_one[66] = { 0 };
	int worst = 0, worst_one = 0;
	for (int p = 0; p < norder; p++) {
		int le = 0;
		for (int i = (int)order[p] + 1; i > 0; i -= i & -i)
			le += fenwick[i]; /* tickets from 0: the capacitor's word starts at 0 */
		int over = p - le;
		sum += over;
		worst = over > worst ? over : worst;
		hist[over < 65 ? over : 65]++;
		int one = per_thread_max(p, over, &miss);
		worst_one = one > worst_one ? one : worst_one;
		by_one[one < 65 ? one : 65]++;
		for (int i = (int)order[p] + 1; i <= FENWICK_N; i += i & -i)
			fenwick[i]++;
	}
	printf("{\"inner\":\"%s\",\"threads\":%d,\"B\":%u,\"cs_work\":%u,\"ncs_work\":%u,"
	       "\"acquisitions\":%d,\"not_admitted_at_arrival\":%ld,\"not_admitted_share\":%.4f,"
	       "\"overtakes_mean\":%.4f,\"overtakes_max\":%d,\"overtakes_hist\":[",
	       argv[1], threads, bypass, cs_work, ncs_work, norder, atomic_load(&not_admitted),
	       (double)atomic_load(&not_admitted) / (norder ? norder : 1),
	       (double)sum / (norder ? norder : 1), worst);
	int last = worst < 65 ? worst : 65;
	for (int i = 0; i <= last; i++)
		printf("%s%ld", i ? "," : "", hist[i]);
	printf("],\"by_one_thread_max\":%d,\"by_one_thread_hist\":[", worst_one);
	last = worst_one < 65 ? worst_one : 65;
	for (int i = 0; i <= last; i++)
		printf("%s%ld", i ? "," : "", by_one[i]);
	printf("],\"window_misses\":%ld}\n", miss);
	return 0;
}
