/*
 * cancel.c - cond waits are cancellation points: the mutex is held again
 * when cleanup handlers run, and a wake-up that a cancelled waiter had
 * already consumed is passed on to another waiter (as glibc does).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

static pthread_mutex_t em;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int unlock_in_cleanup = -1;

static void cleanup_unlock(void *arg)
{
	unlock_in_cleanup = pthread_mutex_unlock(&em);
}

static void *forever_waiter(void *arg)
{
	pthread_mutex_lock(&em);
	pthread_cleanup_push(cleanup_unlock, NULL);
	for (;;)
		pthread_cond_wait(&c, &em);
	pthread_cleanup_pop(0);
	return NULL;
}

static void cleanup_relocks(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&em, &a);
	pthread_mutexattr_destroy(&a);
	pthread_t t;
	void *res;
	pthread_create(&t, NULL, forever_waiter, NULL);
	usleep(20000);
	pthread_cancel(t);
	pthread_join(t, &res);
	CHECK(res == PTHREAD_CANCELED, "cancel: waiter ended as cancelled");
	CHECK_ERR(unlock_in_cleanup, 0, "cancel: mutex held again when the cleanup handler ran");
	CHECK_ERR(pthread_mutex_trylock(&em), 0, "cancel: mutex free afterwards");
	pthread_mutex_unlock(&em);
}

/* Two waiters, one item, one signal, the first waiter cancelled at once:
 * whoever ends up not consuming, the item must be consumed by someone. */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qc = PTHREAD_COND_INITIALIZER;
static int items, waiting;
static int consumed_by[2];

static void cleanup_plain(void *arg) { pthread_mutex_unlock(&m); }

static void *item_waiter(void *arg)
{
	long me = (long)arg;
	pthread_mutex_lock(&m);
	pthread_cleanup_push(cleanup_plain, NULL);
	waiting++;
	while (items == 0)
		pthread_cond_wait(&qc, &m);
	items--;
	consumed_by[me]++;
	pthread_cleanup_pop(1);
	return NULL;
}

static int wait_until_waiting(int n)
{
	for (int i = 0; i < 5000; i++) {
		pthread_mutex_lock(&m);
		int w = waiting;
		pthread_mutex_unlock(&m);
		if (w >= n)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void signal_passed_on(int rounds)
{
	int lost = 0, cancelled_rounds = 0;
	for (int r = 0; r < rounds; r++) {
		pthread_t w0, w1;
		items = waiting = 0;
		consumed_by[0] = consumed_by[1] = 0;
		pthread_create(&w0, NULL, item_waiter, (void *)0L);
		wait_until_waiting(1);
		pthread_create(&w1, NULL, item_waiter, (void *)1L);
		wait_until_waiting(2);
		usleep(1000); /* let w1 reach its sleep */
		pthread_mutex_lock(&m);
		items = 1;
		pthread_cond_signal(&qc); /* wakes w0, the oldest */
		pthread_cancel(w0);
		pthread_mutex_unlock(&m);
		void *res;
		pthread_join(w0, &res);
		if (res == PTHREAD_CANCELED && consumed_by[0] == 0) {
			cancelled_rounds++;
			struct timespec d = deadline_in(CLOCK_REALTIME, 5000);
			if (pthread_timedjoin_np(w1, NULL, &d) != 0) {
				lost++;
				pthread_mutex_lock(&m);
				items++;
				pthread_cond_broadcast(&qc);
				pthread_mutex_unlock(&m);
				pthread_join(w1, NULL);
			}
		} else {
			pthread_mutex_lock(&m);
			items++;
			pthread_cond_signal(&qc);
			pthread_mutex_unlock(&m);
			pthread_join(w1, NULL);
		}
	}
	printf("# %d of %d rounds cancelled the signalled waiter before it consumed\n", cancelled_rounds, rounds);
	CHECK_EQ(lost, 0, "cancel: a signal consumed by a cancelled waiter reaches the other waiter");
}

/* lockswap interposes pthread_setcanceltype (to know which threads can be
 * cancelled asynchronously): its answers must stay glibc's. */
static void *canceltype_answers(void *arg)
{
	int old = -1, r;
	r = pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	CHECK_EQ(r, 0, "setcanceltype: asynchronous accepted");
	CHECK_EQ(old, PTHREAD_CANCEL_DEFERRED, "setcanceltype: a new thread starts deferred");
	old = -1;
	r = pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
	CHECK_EQ(old, PTHREAD_CANCEL_ASYNCHRONOUS, "setcanceltype: reports the asynchronous type back");
	CHECK_EQ(pthread_setcanceltype(12345, &old), EINVAL, "setcanceltype: a bad type is EINVAL");
	old = -1;
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
	CHECK_EQ(old, PTHREAD_CANCEL_DEFERRED, "setcanceltype: a bad type changes nothing");
	return NULL;
}

int main(void)
{
	printf("# cancel under backend %s\n", check_backend());
	pthread_t t;
	pthread_create(&t, NULL, canceltype_answers, NULL);
	pthread_join(t, NULL);
	cleanup_relocks();
	signal_passed_on(40);
	return check_finish();
}
