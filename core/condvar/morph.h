/*
 * morph.h - wait morphing: a waiter signalled by the holder of its mutex
 * sleeps on, and is woken by, that mutex.
 *
 * Why: a program that signals under its mutex (LevelDB's writers: the
 * group's leader pops each follower and signals it with the DB mutex held;
 * a thread pool's producer) wakes a waiter that runs only to find the mutex
 * held and sleep again on it, two context switches where one would do.
 * The classic fix moves the waiter to the mutex's futex without waking it
 * (FUTEX_CMP_REQUEUE), as glibc's condvar did before 2.25; its present one
 * wakes.  Here a signal moves the waiter when the signalling thread holds
 * the waiter's mutex, and the waiter is woken by that mutex's unlock, one
 * at a time, like any other of its sleepers.  A broadcast does the same
 * for the first waiter of its chain (condvar.h), and each waiter that
 * passes the baton, having just taken the mutex back, for the next: a
 * broadcast to n waiters of one mutex costs n wake-ups, each by an unlock,
 * not 2n.
 *
 * The protocol (condvar.c ls_condvar_signal, the waiter's embedder):
 *  1. The signaller sets the waiter's `cv_morphed` before it publishes
 *     SIGNALLED (release; a baton's passer, before the move): a waiter
 *     reads the flag only once SIGNALLED, and, moved, only once woken.
 *  2. After the queue lock: FUTEX_CMP_REQUEUE moves the waiter, if it
 *     sleeps on its event with SIGNALLED there, to the lock's park word;
 *  3. and only then marks the lock "someone may be parked" (mark_parked).
 *     In that order no wake can be lost: a mark made while the lock is held
 *     makes its next unlock wake one of the word's sleepers; a lock found
 *     free is woken at once (the signaller is then not its holder: a hint
 *     gone stale, below).  Marked first, an unlock between the mark and the
 *     move would wake nobody and strand the waiter.
 *  4. The waiter, woken by an unlock (or never asleep there: nothing
 *     moved), marks the lock before it takes it back (woken), whether the
 *     lock is held or free: the wake it may have consumed was owed to
 *     whoever still sleeps on the word, and it may not take the lock as a
 *     woken parker does (Drepper's "Futexes Are Tricky", mutex 3: a thread
 *     that slept on the word takes the lock as contended).  A slice it
 *     does not own sends it to the queue with the lock let go again, and
 *     an unmarked word would then strand a sleeper (found in LevelDB's
 *     fill: the slice's owner asleep in the inner lock, free and unmarked,
 *     its queue behind it).  Marked, the next unlock, its own or the
 *     holder's, wakes one.  At worst one wake too many.
 *
 * Who holds the mutex: a hint per thread, `ls_cv_held`, the lock state the
 * thread last took and has not released since (set and cleared by the
 * backends that morph; a thread holding two locks knows only the later;
 * the default's lock sets it before it takes the lock, so that its fast
 * path stays a tail call: a thread that waits for a lock signals nothing).
 * The mutex stays alive while its holder signals, and the waiter cannot
 * take it back before the signaller releases it, so steps 2 and 3 touch
 * live memory.  Nobody else's hint is trusted: a signaller that does not
 * hold the mutex wakes the waiter as before.
 *
 * Lock state is opaque here (no pthread knowledge): the embedder records
 * the lock and its morph operations in the waiter's record before it
 * enqueues, or NULL (glibc's mutexes, backends without a park word).
 */
#ifndef LS_CORE_CONDVAR_MORPH_H
#define LS_CORE_CONDVAR_MORPH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct ls_cv_morph {
	/* The word the lock's sleepers park on, woken one at a time by its
	 * unlock while marked. */
	_Atomic uint32_t *(*park_word)(void *lock);
	/* Mark the lock "someone may be parked" if it is held; false if it
	 * was free (nothing marked: the caller wakes one itself). */
	bool (*mark_parked)(void *lock);
	/* Mark it so, held or free: a moved waiter back from its sleep,
	 * before it takes the lock (step 4). */
	void (*woken)(void *lock);
};

/* The lock state this thread last took and still holds, or NULL. */
extern __thread void *ls_cv_held;

static inline void ls_cv_took(void *lock)
{
	ls_cv_held = lock;
}

static inline void ls_cv_released(void)
{
	ls_cv_held = NULL;
}

#endif
