/*
 * native_counter.c - the lockswap native API in one page: N threads add to
 * a shared counter through lockswap_with, once per flavour.
 *
 *   cc -std=c11 -O2 -pthread native_counter.c $(pkg-config --cflags --libs lockswap)
 *   ./a.out [threads] [adds-per-thread]
 *
 * Prints one line per flavour and exits 0 if every total is exact.
 */
#include <lockswap.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct shared {
	lockswap_lock_t lock;
	long counter;          /* touched only under the lock */
};

struct job {
	struct shared *s;
	long adds;
};

/* The critical section.  It may run on another thread than the caller's,
 * so it uses only what it reaches through its argument - never errno or a
 * thread-local of the caller. */
static void add_one(void *arg)
{
	struct shared *s = arg;
	s->counter++;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	for (long i = 0; i < j->adds; i++)
		lockswap_with(&j->s->lock, add_one, j->s);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8;
	long adds = argc > 2 ? atol(argv[2]) : 100000;
	static const struct { int flavour; const char *name; } flavours[] = {
		{ LOCKSWAP_BCS, "bcs" },
		{ LOCKSWAP_BCS_WF, "bcs-wf" },
		{ LOCKSWAP_COMBINING, "combining" },
	};
	if (threads < 1 || threads > 1024 || adds < 1) {
		fprintf(stderr, "usage: %s [threads 1..1024] [adds-per-thread]\n", argv[0]);
		return 2;
	}
	pthread_t *tid = calloc((size_t)threads, sizeof *tid);
	if (!tid)
		return 2;
	int bad = 0;
	for (size_t f = 0; f < sizeof flavours / sizeof flavours[0]; f++) {
		struct shared s = { .counter = 0 };
		if (lockswap_lock_init(&s.lock, flavours[f].flavour) != 0)
			return 2;
		struct job j = { &s, adds };
		for (int i = 0; i < threads; i++)
			if (pthread_create(&tid[i], NULL, worker, &j) != 0)
				return 2;
		for (int i = 0; i < threads; i++)
			pthread_join(tid[i], NULL);
		long want = (long)threads * adds;
		printf("%-10s threads=%d counter=%ld expected=%ld %s\n", flavours[f].name,
		       threads, s.counter, want, s.counter == want ? "ok" : "WRONG");
		bad |= s.counter != want || lockswap_lock_destroy(&s.lock) != 0;
	}
	free(tid);
	return bad;
}
