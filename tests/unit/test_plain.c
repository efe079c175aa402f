/*
 * test_plain.c - the single-threaded verbs (backend.h: lock_plain,
 * unlock_plain) of every backend that has them.  They must leave exactly
 * the bytes the atomic verbs leave, decline without writing anything when
 * the lock is not in their simple state, and a lock taken plainly must be
 * a held lock for the atomic verbs (the state a second thread finds).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../backends/backend.h"
#include "../../core/runtime/thread.h"
#include "../thread_state.h"

#define MAX_BACKENDS 64

static const struct ls_lock_ops *ops_of(void **state)
{
	const struct ls_lock_ops *b = *state;
	if (!b->lock_plain || !b->unlock_plain)
		skip();
	return b;
}

struct state {
	_Alignas(16) unsigned char b[LS_LOCK_STATE_BYTES];
};

/* Plain lock and unlock write what lock() and unlock() write. */
static void same_bytes(void **state)
{
	const struct ls_lock_ops *b = ops_of(state);
	struct state atomic, plain;
	memset(&atomic, 0, sizeof atomic);
	memset(&plain, 0, sizeof plain);
	for (int round = 0; round < 3; round++) {
		assert_int_equal(b->lock(atomic.b), 0);
		assert_true(b->lock_plain(plain.b));
		assert_memory_equal(atomic.b, plain.b, sizeof atomic.b);
		b->unlock(atomic.b);
		assert_true(b->unlock_plain(plain.b));
		assert_memory_equal(atomic.b, plain.b, sizeof atomic.b);
	}
}

/* Mixed: taken one way, released the other. */
static void mixed(void **state)
{
	const struct ls_lock_ops *b = ops_of(state);
	struct state s;
	memset(&s, 0, sizeof s);
	assert_true(b->lock_plain(s.b));
	assert_true(b->is_locked(s.b));
	assert_int_equal(b->trylock(s.b), EBUSY); /* held for the atomic verbs */
	b->unlock(s.b);
	assert_false(b->is_locked(s.b));
	assert_int_equal(b->lock(s.b), 0);
	assert_true(b->unlock_plain(s.b));
	assert_false(b->is_locked(s.b));
	assert_int_equal(b->trylock(s.b), 0);
	b->unlock(s.b);
}

/* A held lock: plain lock declines and writes nothing. */
static void declines_when_held(void **state)
{
	const struct ls_lock_ops *b = ops_of(state);
	struct state s, before;
	memset(&s, 0, sizeof s);
	assert_int_equal(b->lock(s.b), 0);
	before = s;
	assert_false(b->lock_plain(s.b));
	assert_memory_equal(before.b, s.b, sizeof s.b);
	b->unlock(s.b);
}

/* Held with a waiter parked in the kernel: plain unlock declines (the
 * atomic unlock must wake it), and the waiter gets the lock. */
struct waiter {
	const struct ls_lock_ops *b;
	void *s;
	_Atomic int tid, done;
};

static void *wait_for_lock(void *arg)
{
	struct waiter *w = arg;
	atomic_store(&w->tid, (int)syscall(SYS_gettid));
	w->b->lock(w->s);
	atomic_store(&w->done, 1);
	w->b->unlock(w->s);
	return NULL;
}

static void declines_with_waiter(void **state)
{
	const struct ls_lock_ops *b = ops_of(state);
	struct state s;
	memset(&s, 0, sizeof s);
	assert_true(b->lock_plain(s.b));
	struct waiter w = { .b = b, .s = s.b };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, wait_for_lock, &w), 0);
	while (!atomic_load(&w.tid))
		sched_yield();
	bool parked = false;
	for (int i = 0; i < 100000 && !(parked = thread_state(atomic_load(&w.tid)) == 'S'); i++)
		sched_yield();
	if (parked)
		assert_false(b->unlock_plain(s.b));
	b->unlock(s.b);
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&w.done), 1);
	assert_false(b->is_locked(s.b));
}

int main(void)
{
	pthread_atfork(NULL, NULL, ls_thread_after_fork);
	static const struct { const char *what; CMUnitTestFunction fn; } checks[] = {
		{ "same_bytes", same_bytes }, { "mixed", mixed },
		{ "declines_when_held", declines_when_held },
		{ "declines_with_waiter", declines_with_waiter },
	};
	size_t nchecks = sizeof checks / sizeof checks[0];
	static struct CMUnitTest tests[MAX_BACKENDS * 4];
	static char labels[MAX_BACKENDS * 4][96];
	size_t n = 0;
	for (const struct ls_lock_ops *const *p = ls_backends, *b; (b = *p); p++) {
		if (ls_backend_is_passthrough(b) || b->compose)
			continue;
		for (size_t c = 0; c < nchecks; c++, n++) {
			snprintf(labels[n], sizeof labels[n], "%s/%s", b->name, checks[c].what);
			tests[n] = (struct CMUnitTest){ labels[n], checks[c].fn, NULL, NULL, (void *)b };
		}
	}
	return _cmocka_run_group_tests("plain", tests, n, NULL, NULL);
}
