/*
 * test_morph.c - wait morphing (core/condvar/morph.h): a condvar waiter
 * signalled by the holder of its mutex (or broadcast to, or passed the
 * baton by the waiter before it) sleeps on until that mutex's unlock, and
 * no wake-up is lost, with slices running or not (the default backend,
 * slice:futex, through its table as the interposer calls it).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../backends/backend.h"
#include "../../core/condvar/condvar.h"
#include "../../core/condvar/morph.h"
#include "../../core/wrap/slice_futex.h"
#include "../deadline.h"
#include "cv_race.h"

extern const struct ls_lock_ops ls_backend_slice_futex; /* backends/slice.c */
static const struct ls_lock_ops *const ops = &ls_backend_slice_futex;

static struct ls_condvar cv;
static _Alignas(16) unsigned char lock_state[LS_LOCK_STATE_BYTES];
static void *const lk = lock_state;

static uint32_t lock_word(void)
{
	return atomic_load(&((struct ls_slice_futex *)lk)->word);
}

static int reset(void **state)
{
	memset(&cv, 0, sizeof cv);
	memset(lock_state, 0, sizeof lock_state);
	return 0;
}

/* The pthread_cond_wait shape of interpose/entry/cond.c: record the lock,
 * enqueue, release, wait, mark if moved, re-take, baton. */
static atomic_int returned_from_wait;

static int cond_timedwait(struct ls_condvar *c, const struct timespec *deadline)
{
	struct ls_thread *self = ls_thread_self();
	ls_condvar_record_lock(self, lk, ops->morph);
	ls_condvar_enqueue(c, self);
	ops->unlock_to_wait(lk);
	int r = ls_condvar_wait(c, self, CLOCK_MONOTONIC, deadline);
	atomic_fetch_add(&returned_from_wait, 1);
	if (r == 0)
		ls_condvar_morphed(self);
	ops->lock(lk);
	if (r == 0)
		ls_condvar_pass_baton(self);
	return r;
}

static int cond_wait(struct ls_condvar *c)
{
	return cond_timedwait(c, NULL);
}

/* The thread `tid` sleeps in futex(2) on `word` (/proc's syscall file: the
 * number, then the arguments in hexadecimal). */
static int sleeps_on(pid_t tid, const void *word)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = 0;
	unsigned long nr, a0;
	if (fgets(line, sizeof line, f) && sscanf(line, "%lu %lx", &nr, &a0) == 2)
		ok = nr == SYS_futex && a0 == (unsigned long)(uintptr_t)word;
	fclose(f);
	return ok;
}

static void await_sleep(pid_t tid, const void *word)
{
	for (int i = 0; i < 20000 && !sleeps_on(tid, word); i++)
		usleep(500);
	assert_true(sleeps_on(tid, word));
}

/* --- the holder's signal moves the waiter: it sleeps on the lock word
 * until the unlock, then returns --- */
static atomic_int waiter_tid, waiter_done;
static struct ls_thread *waiter_rec;

static void *one_waiter(void *arg)
{
	ops->lock(lk);
	waiter_rec = ls_thread_self();
	atomic_store(&waiter_tid, (int)syscall(SYS_gettid));
	assert_int_equal(cond_wait(&cv), 0);
	ops->unlock(lk);
	atomic_store(&waiter_done, 1);
	return NULL;
}

static pthread_t start_waiter(void)
{
	pthread_t t;
	atomic_store(&waiter_tid, 0);
	atomic_store(&waiter_done, 0);
	atomic_store(&returned_from_wait, 0);
	pthread_create(&t, NULL, one_waiter, NULL);
	while (!atomic_load(&waiter_tid))
		usleep(200);
	await_sleep(atomic_load(&waiter_tid), &waiter_rec->event);
	return t;
}

static void holder_signal_moves_waiter(void **state)
{
	pthread_t t = start_waiter();
	ops->lock(lk);
	assert_int_equal(ls_condvar_signal(&cv), 1);
	/* Moved, not woken: still in the futex call it made on its event
	 * (/proc shows the call's own arguments; the kernel moved it to the
	 * lock word), its wait not returned, and the lock word marked.  A
	 * woken waiter would have left ls_condvar_wait and slept again in the
	 * lock, on the lock word. */
	usleep(20000);
	assert_true(sleeps_on(atomic_load(&waiter_tid), &waiter_rec->event));
	assert_int_equal(atomic_load(&returned_from_wait), 0);
	assert_true(lock_word() & LS_SF_PARKED);
	ops->unlock(lk);
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&waiter_done), 1);
	assert_int_equal(lock_word(), 0); /* its own unlock woke nobody left */
}

/* --- a signal from a thread that does not hold the mutex wakes the
 * waiter, which then takes the free lock --- */
static void other_signal_wakes_waiter(void **state)
{
	pthread_t t = start_waiter();
	assert_int_equal(ls_condvar_signal(&cv), 1);
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&waiter_done), 1);
}

/* --- the hint follows the lock: taken, released, handed to a wait --- */
static void hint_names_the_held_lock(void **state)
{
	assert_null(ls_cv_held);
	ops->lock(lk);
	assert_ptr_equal(ls_cv_held, lk);
	ops->unlock(lk);
	assert_null(ls_cv_held);
	assert_int_equal(ops->trylock(lk), 0);
	assert_ptr_equal(ls_cv_held, lk);
	ops->unlock_to_wait(lk);
	assert_null(ls_cv_held);
}

/* n threads of body, joined; a lost wake-up hangs, so an alarm fails the
 * case rather than stall the suite. */
static void run_all(int n, void *(*body)(void *))
{
	pthread_t t[16];
	assert_true(n <= 16);
	alarm(120);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, body, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	alarm(0);
}

/* --- a broadcast from the holder moves the first of its chain, and each
 * baton's passer the next: none leaves the wait while the lock is held,
 * and all finish after the unlock --- */
enum { CHAIN = 6 };
static atomic_int chain_done;
static struct ls_thread *chain_rec[CHAIN];
static atomic_int chain_tid[CHAIN];

static void *chain_waiter(void *arg)
{
	int i = (int)(intptr_t)arg;
	ops->lock(lk);
	chain_rec[i] = ls_thread_self();
	atomic_store(&chain_tid[i], (int)syscall(SYS_gettid));
	assert_int_equal(cond_wait(&cv), 0);
	ops->unlock(lk);
	atomic_fetch_add(&chain_done, 1);
	return NULL;
}

static void holder_broadcast_moves_chain(void **state)
{
	pthread_t t[CHAIN];
	atomic_store(&chain_done, 0);
	atomic_store(&returned_from_wait, 0);
	for (int i = 0; i < CHAIN; i++) {
		atomic_store(&chain_tid[i], 0);
		pthread_create(&t[i], NULL, chain_waiter, (void *)(intptr_t)i);
		while (!atomic_load(&chain_tid[i]))
			usleep(200);
		await_sleep(atomic_load(&chain_tid[i]), &chain_rec[i]->event);
	}
	ops->lock(lk);
	assert_int_equal(ls_condvar_broadcast(&cv), CHAIN);
	usleep(20000);
	/* The first is moved, the rest wait for the baton: none has left. */
	assert_int_equal(atomic_load(&returned_from_wait), 0);
	assert_true(lock_word() & LS_SF_PARKED);
	ops->unlock(lk);
	for (int i = 0; i < CHAIN; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&chain_done), CHAIN);
	assert_int_equal(atomic_load(&returned_from_wait), CHAIN);
}

/* --- a barrier made of a broadcast: rounds of every thread meeting, the
 * last one broadcasting with the lock held; no thread is stranded --- */
enum { MEETERS = 8, MEETINGS = 2000 };
static int arrived, meeting;

static void *meeter(void *arg)
{
	for (int i = 0; i < MEETINGS; i++) {
		ops->lock(lk);
		int mine = meeting;
		if (++arrived == MEETERS) {
			arrived = 0;
			meeting++;
			ls_condvar_broadcast(&cv);
		} else {
			while (meeting == mine)
				assert_int_equal(cond_wait(&cv), 0);
		}
		ops->unlock(lk);
	}
	return NULL;
}

static void broadcast_barrier_loses_no_wakeup(void **state)
{
	arrived = meeting = 0;
	run_all(MEETERS, meeter);
	assert_int_equal(meeting, MEETINGS);
	assert_false(lock_word() & LS_SF_HELD);
}

/* --- every wake-up a signaller reports is consumed by exactly one waiter,
 * with waiters timing out all around it and the signallers holding the
 * lock (every wake-up a move, or a wake where the waiter was not asleep) --- */
static void race_lock(void) { ops->lock(lk); }
static void race_unlock(void) { ops->unlock(lk); }
static int race_wait(const struct timespec *deadline) { return cond_timedwait(&cv, deadline); }

static void moved_wakeups_consumed_exactly_once(void **state)
{
	static struct cv_race r = { .cv = &cv, .lock = race_lock, .unlock = race_unlock,
	                            .wait = race_wait, .signal_holding = true };
	alarm(120); /* a lost wake-up hangs: fail rather than stall the suite */
	cv_race_run(&r);
	alarm(0);
	print_message("%ld wake-ups reported, %ld waits succeeded\n", atomic_load(&r.reported),
	              atomic_load(&r.succeeded));
	assert_true(atomic_load(&r.reported) > 0);
	assert_int_equal(atomic_load(&r.reported), atomic_load(&r.succeeded));
	assert_false(lock_word() & LS_SF_HELD);
}

/* --- LevelDB's writer queue: the leader signals each follower it wrote
 * for, and the next leader, with the mutex held.  Every write is done
 * once and nobody is stranded: slices open here (8 threads on a hot
 * lock), and moved followers meet the slice's queue and its inner lock's
 * sleepers on the same word --- */
enum { WRITERS = 8, WRITES = 3000 };

struct writer {
	struct ls_condvar cv;
	int done;
	struct writer *next;
};

static struct writer *head, *tail;
static long written;

static void *group_writer(void *arg)
{
	for (int i = 0; i < WRITES; i++) {
		struct writer w;
		memset(&w, 0, sizeof w);
		ops->lock(lk);
		if (tail)
			tail->next = &w;
		else
			head = &w;
		tail = &w;
		while (!w.done && head != &w)
			assert_int_equal(cond_wait(&w.cv), 0);
		if (w.done) {
			ops->unlock(lk);
			continue;
		}
		struct writer *last = tail;
		ops->unlock(lk);
		for (volatile int k = 0; k < 100; k++)
			; /* the log write, outside the lock */
		ops->lock(lk);
		for (;;) {
			struct writer *r = head;
			head = r->next;
			if (!head)
				tail = NULL;
			written++;
			if (r != &w) {
				r->done = 1;
				ls_condvar_signal(&r->cv);
			}
			if (r == last)
				break;
		}
		if (head)
			ls_condvar_signal(&head->cv);
		ops->unlock(lk);
	}
	return NULL;
}

static void group_commit_loses_no_wakeup(void **state)
{
	written = 0;
	head = tail = NULL;
	run_all(WRITERS, group_writer);
	assert_int_equal(written, (long)WRITERS * WRITES);
	assert_false(lock_word() & LS_SF_HELD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(hint_names_the_held_lock, reset),
		cmocka_unit_test_setup(holder_signal_moves_waiter, reset),
		cmocka_unit_test_setup(other_signal_wakes_waiter, reset),
		cmocka_unit_test_setup(group_commit_loses_no_wakeup, reset),
		cmocka_unit_test_setup(holder_broadcast_moves_chain, reset),
		cmocka_unit_test_setup(broadcast_barrier_loses_no_wakeup, reset),
		cmocka_unit_test_setup(moved_wakeups_consumed_exactly_once, reset),
	};
	return cmocka_run_group_tests_name("morph", tests, NULL, NULL);
}
