/*
 * rwlock.h - rwlock backends: const tables of operations on the rwlock
 * state that lives in place inside each pthread_rwlock_t, chosen once by
 * LOCKSWAP_RWLOCK (independently of LOCKSWAP_BACKEND).
 *
 * The interposer (interpose/entry/pthread_rwlock.c) owns everything pthread-specific:
 * the kind (reader or writer preference, passed as LS_RW_* flags), the
 * write owner for EDEADLK, timespec validation, pass-through.  A backend
 * provides a reader-writer lock over at most LS_RWLOCK_STATE_BYTES bytes
 * whose all-zero value means unlocked.
 *
 * Verbs (callers guarantee the preconditions):
 *   rdlock(s, flags)                      -> 0 or EAGAIN (reader overflow)
 *   tryrdlock(s, flags)                   -> 0, EBUSY or EAGAIN
 *   timedrdlock(s, flags, clock, abstime) -> 0, ETIMEDOUT or EAGAIN
 *   wrlock(s, flags)                      -> 0
 *   trywrlock(s, flags)                   -> 0 or EBUSY
 *   timedwrlock(s, flags, clock, abstime) -> 0 or ETIMEDOUT
 *   unlock(s, flags)                      the caller holds it (either mode)
 * clock is CLOCK_REALTIME or CLOCK_MONOTONIC; abstime is validated (tv_sec
 * may be negative: already expired).
 *
 * The "glibc" entry has no operations: pass-through to glibc.  A table in
 * the shim's gate may leave single verbs NULL (the statistics' counting
 * table, interpose/counting/rwlock_counting.c): the entry point then takes that
 * verb's slow path.  Testing a verb for NULL costs what testing for
 * pass-through did; only a routed call (pass-through, a process-shared
 * object, a NULL verb) tests one flag more (gate_only, below).
 *
 * The backends are listed in rwlock_list.h; each is defined in
 * backends/rwlock_<name>.c from a core/rwlock algorithm.
 */
#ifndef LS_BACKENDS_RWLOCK_H
#define LS_BACKENDS_RWLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define LS_RWLOCK_STATE_BYTES 24

/* The kind, as the flags every verb takes: writer preference
 * (PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP), else reader preference.
 * The core/rwlock algorithms take the same bit (asserted where each
 * backend is defined). */
#define LS_RWLOCK_PREFER_WRITER 1u

struct ls_rwlock_ops {
	const char *name;
	const char *about; /* one line: fairness claim and waiting policy */
	size_t state_size;
	int (*rdlock)(void *s, unsigned flags);
	int (*tryrdlock)(void *s, unsigned flags);
	int (*timedrdlock)(void *s, unsigned flags, clockid_t clock, const struct timespec *abstime);
	int (*wrlock)(void *s, unsigned flags);
	int (*trywrlock)(void *s, unsigned flags);
	int (*timedwrlock)(void *s, unsigned flags, clockid_t clock, const struct timespec *abstime);
	void (*unlock)(void *s, unsigned flags);
	/* Set only in the table that the shim alone puts in its gate (the
	 * statistics' counting table): init, destroy and the timed forms,
	 * which have no verb there, still see the statistics.  Backends
	 * leave it false. */
	bool gate_only;
};

/* In listing order (rwlock_list.h), NULL-terminated. */
extern const struct ls_rwlock_ops *const ls_rwlock_backends[];

/* LOCKSWAP_RWLOCK: its default, and its choices, the names in listing
 * order separated by '|' (constant expressions, for the shim's option
 * table).  The default is the slice rwlock: the matrix of
 * scripts/default-matrix.sh chose it (docs/results.md, "The default"). */
#define LS_RWLOCK_DEFAULT "slice"
extern const char ls_rwlock_names_barred[];
#define LS_RWLOCK_CHOICES (ls_rwlock_names_barred + 1)

/* Pass-through: the "glibc" entry. */
extern const struct ls_rwlock_ops ls_rwlock_backend_glibc;

static inline bool ls_rwlock_is_passthrough(const struct ls_rwlock_ops *b)
{
	return b->rdlock == NULL;
}

/* The backend called `name`, or NULL. */
const struct ls_rwlock_ops *ls_rwlock_backend_find(const char *name);

/*
 * LS_RWLOCK_ADAPTERS(algo) defines <algo>_rd, _tryrd, _timedrd, _wr,
 * _timedwr and _unlock: one-line adapters from `void *` state to the verbs
 * ls_<algo>_{rdlock,tryrdlock,timedrdlock,wrlock,timedwrlock,unlock} of a
 * core/rwlock algorithm.  trywrlock, whose arguments differ between
 * algorithms, is written by hand.
 */
#define LS_RWLOCK_ADAPTERS(algo)                                                           \
	static int algo##_rd(void *s, unsigned f) { return ls_##algo##_rdlock(s, f); }      \
	static int algo##_tryrd(void *s, unsigned f) { return ls_##algo##_tryrdlock(s, f); } \
	static int algo##_timedrd(void *s, unsigned f, clockid_t c, const struct timespec *t) \
	{                                                                                     \
		return ls_##algo##_timedrdlock(s, f, c, t);                                   \
	}                                                                                     \
	static int algo##_wr(void *s, unsigned f) { return ls_##algo##_wrlock(s, f); }      \
	static int algo##_timedwr(void *s, unsigned f, clockid_t c, const struct timespec *t) \
	{                                                                                     \
		return ls_##algo##_timedwrlock(s, f, c, t);                                   \
	}                                                                                     \
	static void algo##_unlock(void *s, unsigned f) { ls_##algo##_unlock(s, f); }

#endif
