/*
 * bravo.h - reader-biased wrapper around the compact rwlock (core/rwlock/rwfutex.h).
 *
 * Source: D. Dice and A. Kogan, "BRAVO: Biased Locking for Reader-Writer
 * Locks" (USENIX ATC 2019): readers announce themselves in a process-wide
 * table instead of writing the lock's shared reader count; a writer takes
 * the underlying lock, revokes the bias and waits for announced readers to
 * leave; the bias comes back only after a delay proportional to how long
 * that revocation took, so writers are not starved.  Written anew.
 *
 * State (24 bytes, all-zero = unlocked, not biased, no inhibition):
 *   bias    bit 0 LS_BRAVO_BIASED: readers may take the fast path;
 *           bit 1 LS_BRAVO_DRAINING: the bias was closed but announced
 *           readers may still be in the table (a writer gave up waiting
 *           for them, or waits for them without holding the inner lock):
 *           the next writer must scan;
 *           bits 2..63: monotonic time (ns) before which no reader may
 *           set the bias again ("inhibit until"); all ones while a writer
 *           drains the table (LS_BRAVO_INHIBIT_FOREVER)
 *   inner   struct ls_rwlock, taken by writers and by slow readers
 *   Neither flag set means no reader of this lock is announced.
 *
 * Visible-readers table (ls_bravo_table, LS_BRAVO_SLOTS 64-bit entries,
 * shared by every lock in the process): 0 = free; otherwise the address of
 * the lock a fast reader holds, with bit 0 LS_BRAVO_SLOT_WAITED set by a
 * writer sleeping until the entry changes.  A reader's slot is a hash of
 * (lock, thread); a reader finding it taken by anyone takes the slow path.
 *
 * Each thread remembers its fast holds in thread-local memory (at most
 * LS_BRAVO_HELD_MAX locks at once, with a depth each): unlock looks there
 * first to tell a fast read hold from an inner one, and a thread taking a
 * read lock it already holds fast only bumps the depth.  So recursive read
 * locks never wait for a writer that is itself waiting for this thread's
 * announcement.  (Thread-local, not the shared thread records: no other
 * thread ever reads it, and fork keeps the forking thread's copy.)
 *
 * Reader fast path: bias set -> CAS(slot, 0, lock) -> re-load bias: still
 * set -> holding.  Otherwise clear the slot and take the inner read lock;
 * then, holding it (so no writer is between revocation and its critical
 * section), set the bias again if the inhibition has expired.
 * Writer: inner write lock; if biased (or draining), close the bias and
 * wait until no table entry names this lock; inhibit re-biasing for
 * LS_BRAVO_INHIBIT_MULT times the revocation's duration.  Under reader
 * preference the writer waits for announced readers only briefly while
 * holding the inner lock; past that it releases the inner lock and waits
 * for them holding nothing, then starts over (bravo.c, write_lock): a
 * reader that holds through the table may wait for another thread's read
 * lock (glibc's default kind admits new readers while readers hold), and
 * a writer parked on the inner lock would shut that reader out for good.
 *
 * Memory order: the reader's slot CAS and bias re-load and the writer's
 * bias store and slot loads are seq_cst: a Dekker pattern, so either the
 * reader sees the bias cleared (and leaves) or the writer sees its entry
 * (and waits).  A fast reader frees its slot with a release exchange,
 * paired with the writer's seq_cst (acquire) slot load.
 *
 * Fairness: as the inner lock for slow readers and writers; fast readers
 * do not wait for waiting writers, but a writer that holds the inner lock
 * stops new fast readers by revoking, and the re-bias delay bounds the
 * share of time spent biased (the paper's N = 9: at most ~10% of the time
 * goes to revocations).  Under PREFER_WRITER a reader takes the fast path
 * only while no writer waits for the inner lock, so the kind's writer
 * preference holds (up to the readers already past that check, whom the
 * writer waits for when it revokes).
 *
 * fork: entries of the parent's other threads stay in the table, so a
 * writer in the child waits for them forever, as glibc's child stays
 * read-locked by them.
 */
#ifndef LS_CORE_BRAVO_H
#define LS_CORE_BRAVO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "rwfutex.h"

#define LS_BRAVO_BIASED UINT64_C(1)
#define LS_BRAVO_DRAINING UINT64_C(2)
#define LS_BRAVO_INHIBIT_SHIFT 2
#define LS_BRAVO_INHIBIT_FOREVER (~UINT64_C(0) << LS_BRAVO_INHIBIT_SHIFT)
#define LS_BRAVO_INHIBIT_MULT 9
#define LS_BRAVO_SLOTS 4096
#define LS_BRAVO_SLOT_WAITED UINT64_C(1)
#define LS_BRAVO_HELD_MAX 8
#define LS_BRAVO_CLOCK_EVERY 16

struct ls_bravo {
	_Atomic uint64_t bias;
	struct ls_rwlock inner;
};

extern _Atomic uint64_t ls_bravo_table[LS_BRAVO_SLOTS];

int ls_bravo_rdlock(struct ls_bravo *b, unsigned flags);
int ls_bravo_tryrdlock(struct ls_bravo *b, unsigned flags);
int ls_bravo_timedrdlock(struct ls_bravo *b, unsigned flags, clockid_t clock,
                         const struct timespec *abstime);
int ls_bravo_wrlock(struct ls_bravo *b, unsigned flags);
int ls_bravo_trywrlock(struct ls_bravo *b, unsigned flags);
int ls_bravo_timedwrlock(struct ls_bravo *b, unsigned flags, clockid_t clock,
                         const struct timespec *abstime);
void ls_bravo_unlock(struct ls_bravo *b, unsigned flags);

/* For tests: is the calling thread holding b through the table? */
bool ls_bravo_held_fast(struct ls_bravo *b);

#endif
