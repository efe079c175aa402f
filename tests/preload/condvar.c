/*
 * condvar.c - signal and broadcast lose no wake-up, timedwait honours the
 * clock chosen with pthread_condattr_setclock, clockwait works, and a
 * bounded producer/consumer queue moves every item exactly once.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

/* Bounded queue through two condvars, several producers and consumers. */
#define CAP 8
#define PRODUCERS 4
#define CONSUMERS 4
#define PER_PRODUCER 8000

static struct {
	pthread_mutex_t m;
	pthread_cond_t not_full, not_empty;
	long buf[CAP];
	int head, count;
	long consumed_sum, consumed_n;
	int producers_left;
} q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER };

static void *producer(void *arg)
{
	long base = (long)arg * PER_PRODUCER;
	for (long i = 0; i < PER_PRODUCER; i++) {
		pthread_mutex_lock(&q.m);
		while (q.count == CAP)
			pthread_cond_wait(&q.not_full, &q.m);
		q.buf[(q.head + q.count++) % CAP] = base + i + 1;
		pthread_cond_signal(&q.not_empty);
		pthread_mutex_unlock(&q.m);
	}
	pthread_mutex_lock(&q.m);
	if (--q.producers_left == 0)
		pthread_cond_broadcast(&q.not_empty);
	pthread_mutex_unlock(&q.m);
	return NULL;
}

static void *consumer(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&q.m);
		while (q.count == 0 && q.producers_left)
			pthread_cond_wait(&q.not_empty, &q.m);
		if (q.count == 0) {
			pthread_mutex_unlock(&q.m);
			return NULL;
		}
		long v = q.buf[q.head];
		q.head = (q.head + 1) % CAP;
		q.count--;
		q.consumed_sum += v;
		q.consumed_n++;
		pthread_cond_signal(&q.not_full);
		pthread_mutex_unlock(&q.m);
	}
}

static void queue_test(void)
{
	pthread_t p[PRODUCERS], c[CONSUMERS];
	q.producers_left = PRODUCERS;
	for (long i = 0; i < CONSUMERS; i++)
		pthread_create(&c[i], NULL, consumer, NULL);
	for (long i = 0; i < PRODUCERS; i++)
		pthread_create(&p[i], NULL, producer, (void *)i);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < CONSUMERS; i++)
		pthread_join(c[i], NULL);
	long n = (long)PRODUCERS * PER_PRODUCER;
	CHECK_EQ(q.consumed_n, n, "queue: every item consumed once");
	CHECK_EQ(q.consumed_sum, n * (n + 1) / 2, "queue: no item lost or duplicated");
}

/* Broadcast wakes every waiter that blocked before it. */
static pthread_mutex_t bm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bc = PTHREAD_COND_INITIALIZER;
static int generation, waiting, woken;

static void *bwaiter(void *arg)
{
	pthread_mutex_lock(&bm);
	int g = generation;
	waiting++;
	while (g == generation)
		pthread_cond_wait(&bc, &bm);
	woken++;
	pthread_mutex_unlock(&bm);
	return NULL;
}

static void broadcast_test(int n)
{
	pthread_t t[64];
	waiting = woken = 0;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, bwaiter, NULL);
	for (;;) {
		pthread_mutex_lock(&bm);
		int w = waiting;
		pthread_mutex_unlock(&bm);
		if (w == n)
			break;
		usleep(1000);
	}
	pthread_mutex_lock(&bm);
	generation++;
	pthread_cond_broadcast(&bc);
	pthread_mutex_unlock(&bm);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(woken, n, "broadcast: every waiter woken");
}

/* Signal wakes one waiter that blocked before it: ping-pong many times. */
static pthread_cond_t pc = PTHREAD_COND_INITIALIZER;
static int turn, rounds = 10000;

static void *ponger(void *arg)
{
	long me = (long)arg;
	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&bm);
		while (turn != me)
			pthread_cond_wait(&pc, &bm);
		turn = !me;
		pthread_cond_signal(&pc);
		pthread_mutex_unlock(&bm);
	}
	return NULL;
}

static void pingpong_test(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, ponger, (void *)0L);
	pthread_create(&b, NULL, ponger, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	CHECK(1, "signal: 10000 ping-pong hand-offs without a lost wake-up");
}

static void clocks_test(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t mono;
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	CHECK_ERR(pthread_cond_init(&mono, &a), 0, "cond init with CLOCK_MONOTONIC");
	pthread_condattr_destroy(&a);
	pthread_mutex_lock(&m);
	/* A MONOTONIC deadline 20 ms ahead; were it read as REALTIME it would
	 * lie decades in the past and return at once. */
	struct timespec t0, t1, d = deadline_in(CLOCK_MONOTONIC, 20);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_ERR(pthread_cond_timedwait(&mono, &m, &d), ETIMEDOUT, "timedwait on MONOTONIC cond -> ETIMEDOUT");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	CHECK(ms >= 19, "timedwait used the cond's MONOTONIC clock (waited >= the 20 ms asked)");
	d = deadline_in(CLOCK_REALTIME, 10);
	CHECK_ERR(pthread_cond_clockwait(&mono, &m, CLOCK_REALTIME, &d), ETIMEDOUT, "clockwait REALTIME on MONOTONIC cond -> ETIMEDOUT");
	pthread_mutex_unlock(&m);
	CHECK_ERR(pthread_cond_destroy(&mono), 0, "destroy MONOTONIC cond");
}

/* A waiter with a long deadline is woken by signal long before it. */
static pthread_cond_t tc = PTHREAD_COND_INITIALIZER;
static int tflag, twaiting, tresult = -1;

static void *timed_waiter(void *arg)
{
	pthread_mutex_lock(&bm);
	twaiting = 1; /* still holding bm: the signaller can only see this once we wait */
	struct timespec d = deadline_in(CLOCK_MONOTONIC, 30000);
	while (!tflag && tresult != ETIMEDOUT)
		tresult = pthread_cond_clockwait(&tc, &bm, CLOCK_MONOTONIC, &d);
	pthread_mutex_unlock(&bm);
	return NULL;
}

static void timed_signal_test(void)
{
	pthread_t t;
	pthread_create(&t, NULL, timed_waiter, NULL);
	for (;;) {
		pthread_mutex_lock(&bm);
		if (twaiting)
			break; /* the waiter is inside clockwait: bm was released by it */
		pthread_mutex_unlock(&bm);
		usleep(1000);
	}
	tflag = 1;
	pthread_cond_signal(&tc);
	pthread_mutex_unlock(&bm);
	pthread_join(t, NULL);
	CHECK_ERR(tresult, 0, "clockwait woken by signal before its deadline -> 0");
}

int main(void)
{
	printf("# condvar under backend %s\n", check_backend());
	queue_test();
	broadcast_test(16);
	broadcast_test(64);
	pingpong_test();
	clocks_test();
	timed_signal_test();
	return check_finish();
}
