/*
 * cond.c - the exported pthread_cond_* functions.
 *
 * Layout of the 48-byte pthread_cond_t for lockswap's condvar: bytes 0..23
 * hold struct ls_condvar (core/condvar/condvar.h); glibc's flags word (bit 0
 * process-shared, bit 1 CLOCK_MONOTONIC; offset probed at start-up, 36 in
 * glibc 2.36) keeps glibc's encoding, so a condvar that glibc initialised as
 * process-shared, possibly in another process, is recognised and served by
 * glibc for its whole life.  All-zero = PTHREAD_COND_INITIALIZER.
 *
 * A gate (gate.h) open on a native backend's own table (ls_gate_native:
 * not a gate_only table) means statistics are off and lockswap's condvar
 * serves: the entry point serves signal and broadcast straight away.
 * Otherwise (gate closed, glibc's table, the statistics' counting table)
 * the slow path serves it, with the statistics hooks around it when they
 * are on; waits look at the statistics only while ls_gate_watch is set.
 *
 * Waits are cancellation points, as in glibc: the thread sleeps in
 * asynchronous-cancel mode around the raw futex call only, and the cleanup
 * handler leaves the queue (handing on a wake-up it had consumed) and
 * re-takes the mutex before the user's cleanup handlers run.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../../core/condvar/condvar.h"
#include "../../core/runtime/home.h"
#include "../../core/runtime/probes.h"
#include "../../core/runtime/timespec.h"
#include "entry.h"
#include "export.h"
#include "../start/gate.h"
#include "../start/init.h"
#include "mutex.h"
#include "../start/real.h"
#include "../../stats/watch.h"

#define COND_PSHARED 1u
#define COND_MONOTONIC 2u

_Static_assert(sizeof(struct ls_condvar) <= 24, "condvar state stays below glibc's flags word");

static inline _Atomic uint32_t *flags_word(pthread_cond_t *c)
{
	return (_Atomic uint32_t *)(void *)((char *)c + ls_cond_flags_offset);
}

static inline uint32_t cond_flags(pthread_cond_t *c)
{
	return atomic_load_explicit(flags_word(c), memory_order_relaxed);
}

static inline bool served_by_glibc(const struct ls_lock_ops *b, pthread_cond_t *c)
{
	return ls_backend_is_passthrough(b) || (cond_flags(c) & COND_PSHARED);
}

static inline struct ls_condvar *cv_of(pthread_cond_t *c)
{
	return (struct ls_condvar *)(void *)c;
}

/* ---- statistics (only while the gate is watched, gate.h) ---- */

static inline bool observing(void)
{
	return ls_gate_watched() && ls_observing();
}


static void stats_obj(pthread_cond_t *c, struct ls_stats_obj *o)
{
	*o = (struct ls_stats_obj){
		.addr = c,
		/* glibc's condvars are all glibc's bytes: found by address. */
		.slot = served_by_glibc(ls_active(), c) ? NULL : &cv_of(c)->stats,
		.kind = (int32_t)cond_flags(c),
		.type = LS_REC_COND,
		.glibc = served_by_glibc(ls_active(), c),
	};
}

static void forget(pthread_cond_t *c)
{
	struct ls_stats_obj o;
	stats_obj(c, &o);
	o.slot = &cv_of(c)->stats; /* checked against the record's key */
	ls_stats_forget(&o);
}

static int cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
	const struct ls_lock_ops *b = ls_active();
	int pshared = PTHREAD_PROCESS_PRIVATE;
	clockid_t clock = CLOCK_REALTIME;
	if (attr) {
		pthread_condattr_getpshared(attr, &pshared);
		pthread_condattr_getclock(attr, &clock);
	}
	if (UNLIKELY(observing()))
		forget(c);
	if (ls_backend_is_passthrough(b) || pshared == PTHREAD_PROCESS_SHARED)
		return ls_real.cond_init ? ls_real.cond_init(c, attr) : EINVAL;
	memset(c, 0, sizeof *c);
	atomic_store_explicit(flags_word(c), clock == CLOCK_MONOTONIC ? COND_MONOTONIC : 0,
	                      memory_order_relaxed);
	return 0;
}

LS_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
	int r = cond_init(c, attr);
	if (r == 0)
		LS_PROBE2(cond_init, c, attr);
	return r;
}

static int cond_destroy(pthread_cond_t *c)
{
	const struct ls_lock_ops *b = ls_active();
	if (served_by_glibc(b, c))
		return ls_real.cond_destroy ? ls_real.cond_destroy(c) : EINVAL;
	/* Woken waiters never touch the cond again (core/condvar/condvar.h), so there
	 * is nothing to wait for; glibc never returns EBUSY either. */
	return 0;
}

LS_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	LS_PROBE1(cond_destroy, c);
	int r = cond_destroy(c);
	if (UNLIKELY(observing()) && r == 0)
		forget(c);
	return r;
}

static int cond_signal(pthread_cond_t *c)
{
	const struct ls_lock_ops *b = ls_active();
	if (served_by_glibc(b, c))
		return ls_real.cond_signal(c);
	ls_condvar_signal(cv_of(c));
	return 0;
}

static int cond_broadcast(pthread_cond_t *c)
{
	const struct ls_lock_ops *b = ls_active();
	if (served_by_glibc(b, c))
		return ls_real.cond_broadcast(c);
	ls_condvar_broadcast(cv_of(c));
	return 0;
}

static SLOW int signal_slow(pthread_cond_t *c, bool broadcast)
{
	ls_active();
	if (UNLIKELY(ls_observing())) {
		struct ls_stats_obj o;
		stats_obj(c, &o);
		ls_stats_cond_signal(&o, CALLER(), broadcast);
	}
	return broadcast ? cond_broadcast(c) : cond_signal(c);
}

/* The probes of signal and broadcast are nops with the condvar still in
 * its argument register: no semaphore test needed (core/runtime/probes.h). */
LS_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	LS_PROBE1(cond_signal, c);
	if (LIKELY(ls_gate_native(ls_gate_get())) && !(cond_flags(c) & COND_PSHARED)) {
		ls_condvar_signal(cv_of(c));
		return 0;
	}
	return signal_slow(c, false);
}

LS_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	LS_PROBE1(cond_broadcast, c);
	if (LIKELY(ls_gate_native(ls_gate_get())) && !(cond_flags(c) & COND_PSHARED)) {
		ls_condvar_broadcast(cv_of(c));
		return 0;
	}
	return signal_slow(c, true);
}

struct wait_ctx {
	struct ls_condvar *cv;
	struct ls_thread *self;
	pthread_mutex_t *m;
	struct ls_mutex_saved saved;
};

static void wait_cancelled(void *arg)
{
	struct wait_ctx *w = arg;
	ls_condvar_leave(w->cv, w->self);
	ls_condvar_morphed(w->self);
	ls_mutex_reacquire_after_wait(w->m, &w->saved);
	ls_condvar_pass_baton(w->self);
}

static int warned_pshared_mix;

static int wait_common(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                       const struct timespec *abstime)
{
	struct wait_ctx w = { .cv = cv_of(c), .m = m };
	if (!(w.self = ls_thread_self()))
		return EAGAIN;
	ls_mutex_morph_target(m, w.self);
	ls_condvar_enqueue(w.cv, w.self);
	int r = ls_mutex_release_for_wait(m, &w.saved);
	if (r != 0) {
		ls_condvar_leave(w.cv, w.self);
		return r;
	}
	pthread_cleanup_push(wait_cancelled, &w);
	r = ls_condvar_wait(w.cv, w.self, clock, abstime);
	pthread_cleanup_pop(0);
	if (r == 0)
		ls_condvar_morphed(w.self);
	int rr = ls_mutex_reacquire_after_wait(m, &w.saved);
	if (r == 0)
		ls_condvar_pass_baton(w.self);
	return rr ? rr : r;
}

/* A process-shared condvar is glibc's, and glibc's wait manipulates the
 * mutex's glibc internals: it must only ever meet a glibc mutex. */
static int pshared_with_native_mutex(void)
{
	if (!__atomic_exchange_n(&warned_pshared_mix, 1, __ATOMIC_RELAXED))
		ls_say("lockswap: a process-shared condvar was used with a private mutex; "
		       "returning EINVAL (make the mutex process-shared too)\n");
	return EINVAL;
}

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	/* A wait sleeps, and releases and takes back its mutex: from the
	 * section's own thread (core/runtime/home.h). */
	ls_go_home(LS_BACK_CONDVAR);
	const struct ls_lock_ops *b = ls_active();
	if (served_by_glibc(b, c))
		return ls_mutex_is_native(m) ? pshared_with_native_mutex() : ls_real.cond_wait(c, m);
	return wait_common(c, m, CLOCK_REALTIME, NULL);
}

static int cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
	/* A wait sleeps, and releases and takes back its mutex: from the
	 * section's own thread (core/runtime/home.h). */
	ls_go_home(LS_BACK_CONDVAR);
	const struct ls_lock_ops *b = ls_active();
	if (served_by_glibc(b, c))
		return ls_mutex_is_native(m) ? pshared_with_native_mutex()
		                             : ls_real.cond_timedwait(c, m, abstime);
	if (!ls_timespec_valid(abstime))
		return EINVAL;
	clockid_t clock = (cond_flags(c) & COND_MONOTONIC) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	return wait_common(c, m, clock, abstime);
}

static int cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                          const struct timespec *abstime)
{
	/* A wait sleeps, and releases and takes back its mutex: from the
	 * section's own thread (core/runtime/home.h). */
	ls_go_home(LS_BACK_CONDVAR);
	const struct ls_lock_ops *b = ls_active();
	if (served_by_glibc(b, c))
		return ls_mutex_is_native(m) ? pshared_with_native_mutex()
		                             : ls_real.cond_clockwait(c, m, clock, abstime);
	if (!ls_clock_supported(clock) || !ls_timespec_valid(abstime))
		return EINVAL;
	return wait_common(c, m, clock, abstime);
}

/* ---- waits ---- */

enum wait_call { WAIT, TIMEDWAIT, CLOCKWAIT };

static int wait_body(pthread_cond_t *c, pthread_mutex_t *m, enum wait_call call, clockid_t clock,
                     const struct timespec *abstime)
{
	switch (call) {
	case TIMEDWAIT: return cond_timedwait(c, m, abstime);
	case CLOCKWAIT: return cond_clockwait(c, m, clock, abstime);
	default: return cond_wait(c, m);
	}
}

/* A wait is a slow call: no fast path to keep small. */
static SLOW int wait_entry(pthread_cond_t *c, pthread_mutex_t *m, enum wait_call call,
                           clockid_t clock, const struct timespec *abstime)
{
	LS_PROBE2(cond_wait, c, m);
	if (LIKELY(!ls_gate_watched()) || (ls_active(), !ls_hooked()))
		return wait_body(c, m, call, clock, abstime);
	uintptr_t site = CALLER();
	/* The watch (stats/watch.h): the mutex is not held while the thread
	 * waits, and its re-acquisition is a request like a lock's, at this
	 * site; it is held again whatever the wait returns. */
	bool held = false;
	if (ls_watching()) {
		ls_cond_wait_site = site;
		held = ls_watch_released(ls_watch_me, (uintptr_t)m);
	}
	int e;
	if (ls_observing()) {
		struct ls_stats_obj co, mo;
		struct ls_stats_call k;
		stats_obj(c, &co);
		ls_mutex_stats_obj(m, &mo);
		ls_stats_wait_begin(&k, &co, &mo, site);
		e = wait_body(c, m, call, clock, abstime);
		ls_stats_wait_end(&k, e);
	} else {
		e = wait_body(c, m, call, clock, abstime);
	}
	if (held)
		ls_watch_acquired(ls_watch_self(), (uintptr_t)m, site);
	return e;
}

LS_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return wait_entry(c, m, WAIT, CLOCK_REALTIME, NULL);
}

LS_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                     const struct timespec *abstime)
{
	return wait_entry(c, m, TIMEDWAIT, CLOCK_REALTIME, abstime);
}

LS_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                                     const struct timespec *abstime)
{
	return wait_entry(c, m, CLOCKWAIT, clock, abstime);
}
