/*
 * stats_unlockword.c - a mutex's unlock word (interpose/entry/mutex_layout.h,
 * bytes 36..39), which the counting table's unlock tests to decide
 * whether an unlock must be observed, checked under LOCKSWAP_STATS=summary
 * with LOCKSWAP_STATS_SAMPLE=1 (every hold and every contended wait timed,
 * every timed wait with stacks) by tests/stats/run_stats.py
 * (test_unlock_word), which also checks the JSON:
 *
 *   1. main takes word_lock: its hold sample marks the word HOLD (1);
 *   2. a waiter blocks on word_lock: its sampled wait asks for the
 *      holder's stack, which marks the word STACK (2); main waits (up to
 *      10 s) to see that bit;
 *   3. main unlocks in holder_section: that unlock is observed, clears the
 *      word and publishes main's stack (the contention event's holder
 *      stack); the waiter takes the lock (HOLD again) and its unlock
 *      clears the word;
 *   4. after the join the word is 0, and so is that of quiet_lock, which
 *      was initialised and never locked.
 * Two rounds: a holder publishes its stack after its release, so a waiter
 * finds the one published at an earlier request (stats/record.c); the
 * second round's waiter finds the first round's.
 *
 * Argument "bits": check the bits above (lockswap serves the mutex with
 * statistics on); "zero" (or none): check that the word stays 0 (no
 * statistics, or glibc serves the mutex: nothing may write its bytes).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../../preload/check.h"

#define HOLD 1u  /* LS_UNLOCK_WANT_OWN (stats/hooks.h): a hold sample, or a sampled wait to record */
#define STACK 2u /* LS_UNLOCK_WANT_STACK */

static pthread_mutex_t word_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t quiet_lock;
static _Atomic int waiter_in;

/* Bytes 36..39 of the mutex, read as the library writes them (a relaxed
 * 32-bit atomic load of an aligned word). */
static uint32_t word_of(pthread_mutex_t *m)
{
	return __atomic_load_n((uint32_t *)((char *)m + 36), __ATOMIC_RELAXED);
}

static void *waiter(void *arg)
{
	waiter_in = 1;
	pthread_mutex_lock(&word_lock);
	pthread_mutex_unlock(&word_lock);
	return arg;
}

/* The holder's unlock, in a frame of its own for the holder stack. */
static __attribute__((noinline, noclone)) void holder_section(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
	__asm__ volatile("" ::: "memory"); /* keeps the frame: no tail call */
}

static void one_round(int bits)
{
	waiter_in = 0;
	pthread_mutex_lock(&word_lock);
	CHECK_EQ(word_of(&word_lock), bits ? HOLD : 0, "the holder's hold sample marks HOLD");
	pthread_t t;
	pthread_create(&t, NULL, waiter, NULL);
	uint32_t seen = 0;
	for (int i = 0; i < 10000; i++) { /* 10 s at most */
		seen = word_of(&word_lock);
		if ((seen & STACK) || (!bits && waiter_in && i >= 200))
			break;
		usleep(1000);
	}
	CHECK_EQ(seen, bits ? HOLD | STACK : 0, "the blocked waiter's stack request marks STACK");
	holder_section(&word_lock);
	pthread_join(t, NULL);
	CHECK_EQ(word_of(&word_lock), 0, "every observed unlock cleared the word");
}

int main(int argc, char **argv)
{
	int bits = argc > 1 && strcmp(argv[1], "bits") == 0;
	pthread_mutex_init(&quiet_lock, NULL);
	/* A first pair: the thread's statistics block and the mutex's record. */
	pthread_mutex_lock(&word_lock);
	pthread_mutex_unlock(&word_lock);
	CHECK_EQ(word_of(&word_lock), 0, "an unlocked mutex's word is 0");
	one_round(bits);
	one_round(bits);
	CHECK_EQ(word_of(&quiet_lock), 0, "a mutex never locked keeps word 0");
	return check_finish();
}
