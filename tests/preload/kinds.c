/*
 * kinds.c - every mutex kind, from init and from static initializers, keeps
 * mutual exclusion under contention (8 threads on 2 cores), and glibc's
 * __kind (offset 16) stays readable in glibc's encoding.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define THREADS 8
#define ITERS 20000

struct shared {
	pthread_mutex_t *m;
	int recursive;
	volatile long counter;
};

static void *hammer(void *arg)
{
	struct shared *s = arg;
	for (int i = 0; i < ITERS; i++) {
		int r;
		switch (i % 4) {
		case 0: r = pthread_mutex_lock(s->m); break;
		case 1: while ((r = pthread_mutex_trylock(s->m)) == EBUSY) ; break;
		case 2: {
			struct timespec t = deadline_in(CLOCK_REALTIME, 10000);
			r = pthread_mutex_timedlock(s->m, &t);
			break;
		}
		default: {
			struct timespec t = deadline_in(CLOCK_MONOTONIC, 10000);
			r = pthread_mutex_clocklock(s->m, CLOCK_MONOTONIC, &t);
		}
		}
		if (r != 0)
			abort();
		if (s->recursive)
			pthread_mutex_lock(s->m);
		long v = s->counter; /* a lost update shows up as a short count */
		s->counter = v + 1;
		if (s->recursive)
			pthread_mutex_unlock(s->m);
		pthread_mutex_unlock(s->m);
	}
	return NULL;
}

static void contend(pthread_mutex_t *m, int recursive, const char *what)
{
	struct shared s = { m, recursive, 0 };
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer, &s);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(s.counter, (long)THREADS * ITERS, what);
}

static int32_t kind_of(pthread_mutex_t *m) { return *(int32_t *)((char *)m + 16); }

static pthread_mutex_t s_normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t s_recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t s_errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t s_adaptive = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

int main(void)
{
	printf("# kinds under backend %s\n", check_backend());
	contend(&s_normal, 0, "static normal: mutual exclusion");
	contend(&s_recursive, 1, "static recursive: mutual exclusion with nesting");
	contend(&s_errorcheck, 0, "static errorcheck: mutual exclusion");
	contend(&s_adaptive, 0, "static adaptive: mutual exclusion");
	CHECK_EQ(kind_of(&s_recursive), PTHREAD_MUTEX_RECURSIVE, "static recursive: __kind still 1");
	CHECK_EQ(kind_of(&s_errorcheck), PTHREAD_MUTEX_ERRORCHECK, "static errorcheck: __kind still 2");
	CHECK_ERR(pthread_mutex_lock(&s_errorcheck), 0, "static errorcheck: lock");
	CHECK_ERR(pthread_mutex_lock(&s_errorcheck), EDEADLK, "static errorcheck: relock -> EDEADLK");
	CHECK_ERR(pthread_mutex_unlock(&s_errorcheck), 0, "static errorcheck: unlock");

	static const struct { int type; const char *name; int recursive; } kinds[] = {
		{ PTHREAD_MUTEX_NORMAL, "init normal: mutual exclusion", 0 },
		{ PTHREAD_MUTEX_RECURSIVE, "init recursive: mutual exclusion with nesting", 1 },
		{ PTHREAD_MUTEX_ERRORCHECK, "init errorcheck: mutual exclusion", 0 },
		{ PTHREAD_MUTEX_ADAPTIVE_NP, "init adaptive: mutual exclusion", 0 },
		{ PTHREAD_MUTEX_DEFAULT, "init default: mutual exclusion", 0 },
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		pthread_mutex_t m;
		pthread_mutexattr_t a;
		memset(&m, 0xaa, sizeof m); /* init must not depend on prior contents */
		pthread_mutexattr_init(&a);
		pthread_mutexattr_settype(&a, kinds[i].type);
		CHECK_ERR(pthread_mutex_init(&m, &a), 0, "init with attr");
		pthread_mutexattr_destroy(&a);
		contend(&m, kinds[i].recursive, kinds[i].name);
		CHECK_EQ(kind_of(&m) & 3, kinds[i].type == PTHREAD_MUTEX_DEFAULT ? 0 : kinds[i].type, "__kind readable in glibc encoding");
		CHECK_ERR(pthread_mutex_destroy(&m), 0, "destroy");
	}
	pthread_mutex_t z;
	memset(&z, 0, sizeof z); /* all-zero, never initialised */
	contend(&z, 0, "all-zero bytes: a valid unlocked mutex");
	return check_finish();
}
