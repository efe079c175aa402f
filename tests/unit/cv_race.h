/*
 * cv_race.h - the condvar's lost-and-double wake-up race, for the unit tests
 * that drive core/condvar/condvar.c directly (test_condvar, test_morph):
 * six waiters that each time out after 1 ms, two signallers (one broadcast
 * in 8), for half a second; every wake-up the signallers report must be
 * consumed by exactly one wait that returns 0.  The including file
 * supplies the mutex and the wait, and says whether the signallers hold the
 * mutex (under wait morphing a holder's wake-up is a move to the lock word).
 */
#ifndef LS_TEST_CV_RACE_H
#define LS_TEST_CV_RACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "../../core/condvar/condvar.h"
#include "../deadline.h"

struct cv_race {
	struct ls_condvar *cv;
	void (*lock)(void);
	void (*unlock)(void);
	/* The caller holds the mutex; the wait gives it back before returning. */
	int (*wait)(const struct timespec *deadline);
	bool signal_holding;
	atomic_long reported, succeeded;
	atomic_int stop;
};

static void *cv_race_waiter(void *arg)
{
	struct cv_race *r = arg;
	while (!atomic_load(&r->stop)) {
		r->lock();
		struct timespec d = deadline_in(CLOCK_MONOTONIC, 1);
		if (r->wait(&d) == 0)
			atomic_fetch_add(&r->succeeded, 1);
		r->unlock();
	}
	return NULL;
}

static void *cv_race_signaller(void *arg)
{
	struct cv_race *r = arg;
	for (unsigned n = 1; !atomic_load(&r->stop); n++) {
		if (r->signal_holding)
			r->lock();
		int woken = n % 8 ? ls_condvar_signal(r->cv) : ls_condvar_broadcast(r->cv);
		if (r->signal_holding)
			r->unlock();
		atomic_fetch_add(&r->reported, woken);
		if (n % 64 == 0)
			usleep(100);
	}
	return NULL;
}

/* Run the race; the caller compares r->reported with r->succeeded. */
static void cv_race_run(struct cv_race *r)
{
	pthread_t w[6], s[2];
	atomic_store(&r->stop, 0);
	atomic_store(&r->reported, 0);
	atomic_store(&r->succeeded, 0);
	for (int i = 0; i < 6; i++)
		pthread_create(&w[i], NULL, cv_race_waiter, r);
	for (int i = 0; i < 2; i++)
		pthread_create(&s[i], NULL, cv_race_signaller, r);
	usleep(500000);
	atomic_store(&r->stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(s[i], NULL);
	for (int i = 0; i < 6; i++)
		pthread_join(w[i], NULL);
}

#endif
