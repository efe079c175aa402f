/*
 * record.c - the hooks: what one call records.
 *
 * The shim serves every call; these hooks only watch (hooks.h), and never
 * call back into it.
 *
 * Mutex lock (and timedlock, clocklock):
 *   the shim tries first.  Success = an uncontended acquisition: bump the
 *   thread's own counter, compare the lock record's holder with ourselves
 *   (written only on an owner change), maybe open a hold-time sample.
 *   Held = contended (ls_stats_lock_blocks, then the shim blocks): count.  1 contended wait in N (per-thread countdown, random period of
 *   mean N; every one in full mode) is timed and records the holder's
 *   acquisition site; 1 timed wait in LS_STATS_STACK_FACTOR also gets the
 *   waiter's stack and asks the holder to publish its stack when it
 *   releases (Go's mutex-profile convention: the delay is charged to the
 *   critical section that ended it).
 * Unlock: close a hold sample and answer a pending stack request, both
 *   after the release.
 * Rwlock: the same, on the record of the call's mode (data.h: reads at the
 *   object's slot, writes at the next).  A read that the first try got
 *   bumps the thread's counter and nothing else: no holder is recorded for
 *   reads, so readers never write a shared line for the statistics.  The
 *   holder's site and stack requests live on the write record.
 * Condvar wait: counted on the condvar (waits, timeouts, sampled blocked
 *   time); the mutex's hold ends at the wait and the re-acquisition at its
 *   end counts as an acquisition (uncontended: as in mutrace, a re-take
 *   delayed by the mutex cannot be told from one delayed by the signal).
 *
 * Nothing here allocates memory or takes a lock, except the first call of
 * a thread (mmap of its block) and stack capture (the unwinder's locks,
 * under the in-profiler flag).  Timestamps (CLOCK_MONOTONIC) are taken
 * only for sampled events, and outside the critical section where the
 * order of events allows it.
 */
#include <errno.h>

#include "data.h"
#include "dump.h"
#include "pending.h"
#include "stacks.h"
#include "state.h"
#include "table.h"
#include "thread.h"

/* Records whose want_holder_stack is set: while 0, unlock need not look
 * at its lock's record.  Written only by sampled waiters and the holders
 * that answer them. */
_Atomic uint32_t ls_stats_stacks_asked;

static inline struct ls_stats_thread *me(void)
{
	if (UNLIKELY(ls_stats_q.busy))
		return NULL;
	struct ls_stats_thread *t = ls_stats_me;
	return LIKELY(t != NULL) ? t : ls_stats_thread_attach();
}

static inline bool key_is(uint32_t s, uintptr_t key)
{
	return s < LS_STATS_MAX_SLOTS &&
	       atomic_load_explicit(&ls_stats_rec(s)->key, memory_order_acquire) == key;
}

/* The slot that slot word `word` names, if its record is the object
 * `key`'s; else 0 (record 0 is never keyed). */
static inline uint32_t named_slot(uint32_t word, uintptr_t key)
{
	uint32_t s = ls_stats_word_slot(word);
	return key_is(s, key) ? s : 0;
}

/* ---- which record ---- */

static uint32_t slot_in_object(const struct ls_stats_obj *o, uintptr_t site)
{
	uintptr_t key = (uintptr_t)o->addr | o->type;
	uint32_t old = atomic_load_explicit(o->slot, memory_order_relaxed);
	uint32_t named = named_slot(old, key);
	if (named) /* another thread just gave it one */
		return named;
	uint32_t s = ls_stats_slot_new(o->addr, o->type, o->kind, o->glibc, site);
	if (!s)
		return 0;
	if (atomic_compare_exchange_strong_explicit(o->slot, &old, ls_stats_slot_word(s),
	                                            memory_order_release, memory_order_relaxed))
		return s;
	/* Another thread gave the object its record first (the CAS replaces
	 * only the invalid word we checked, never a valid one). */
	return named_slot(old, key);
}

/* The record of an object; 0 if it has none (and !create), or is a
 * destroyed mutex (glibc answers EINVAL), or the tables are full. */
static inline uint32_t slot_of(const struct ls_stats_obj *o, uintptr_t site, bool create)
{
	if (UNLIKELY(o->type == LS_REC_MUTEX && o->kind < 0))
		return 0;
	if (UNLIKELY(!o->slot))
		return ls_stats_addr_slot(o->addr, o->type, o->kind, o->glibc, site, create);
	uint32_t s = named_slot(atomic_load_explicit(o->slot, memory_order_relaxed),
	                        (uintptr_t)o->addr | o->type);
	if (LIKELY(s))
		return s;
	return create ? slot_in_object(o, site) : 0;
}

/* ---- per-thread counters and hold samples ---- */

static inline struct ls_stats_count *counts(struct ls_stats_thread *t, uint32_t slot)
{
	if (UNLIKELY(slot >= atomic_load_explicit(&t->hi, memory_order_relaxed)))
		atomic_store_explicit(&t->hi, slot + 1, memory_order_relaxed);
	return &t->count[slot];
}

/* A sampled wait that ended holding the lock: its record's timing and the
 * event table are lines that every sampled waiter of the lock writes
 * (atomic adds), and written here they lengthen the critical section
 * that the other waiters queue behind (recorded after the release
 * instead: LevelDB readrandom at 8 threads 1.005-1.007x, MutexBench
 * 1.023x, each CI touching 1.0; docs/stats.md, "Sampled waits recorded
 * after the release").  Kept in the thread's block until its release:
 * the unlock word sends the counting table's unlock of this mutex to the
 * hooks, and ls_stats_release_work the other unlock paths; both record it
 * after the release.  One per thread, and none is pending here: a timed
 * wait went through ls_stats_lock_blocks, which recorded any before the
 * wait. */
static void wait_defer(struct ls_stats_thread *t, const struct ls_stats_call *k, uint32_t hstack,
                       uint64_t ns)
{
	t->pending = (struct ls_stats_pending_wait){
		.slot = k->slot,
		.wstack = k->wstack,
		.hstack = hstack,
		.set = true,
		.wsite = k->site,
		.hsite = k->hsite,
		.ns = ns,
	};
	ls_stats_release_work_sync(t);
	if (k->unlock_want)
		atomic_fetch_or_explicit(k->unlock_want, LS_UNLOCK_WANT_OWN, memory_order_relaxed);
}

static inline bool hold_sampled(struct ls_stats_thread *t)
{
	if (LIKELY(--ls_stats_q.hold_left != 0))
		return false;
	ls_stats_q.hold_left = ls_stats_hold_period(t);
	return true;
}

static __attribute__((noinline)) void hold_open(struct ls_stats_thread *t, void *obj, uint32_t slot, uint64_t t0)
{
	if (t->nheld == LS_STATS_HELD) { /* drop the oldest */
		for (uint32_t i = 1; i < LS_STATS_HELD; i++)
			t->held[i - 1] = t->held[i];
		t->nheld--;
	}
	t->held[t->nheld++] = (struct ls_stats_held){ obj, slot, t0 };
	ls_stats_release_work_sync(t);
}

/* The open sample of obj, removed; 0 if none. */
static uint64_t hold_take(struct ls_stats_thread *t, void *obj, uint32_t *slot)
{
	for (uint32_t i = t->nheld; i-- > 0;) {
		if (t->held[i].obj != obj)
			continue;
		uint64_t t0 = t->held[i].t0;
		*slot = t->held[i].slot;
		for (uint32_t j = i + 1; j < t->nheld; j++)
			t->held[j - 1] = t->held[j];
		--t->nheld;
		ls_stats_release_work_sync(t);
		return t0;
	}
	return 0;
}

/* A read acquisition of an rwlock: the thread's own counter only (no
 * holder: readers share the lock); `stamp` != 0 opens a hold sample, per
 * reader thread. */
static inline __attribute__((always_inline)) void read_acquired(struct ls_stats_thread *t, uint32_t slot,
                                                                void *obj, uint64_t stamp)
{
	ls_stats_bump(&counts(t, slot)->c[LS_C_ACQ]);
	if (stamp)
		hold_open(t, obj, slot, stamp);
}

/* The object's holder word (hooks.h ls_stats_obj): NULL when it has no
 * slot word. */
static inline _Atomic uint32_t *obj_holder(_Atomic uint32_t *slot, _Atomic uint32_t *holder)
{
	return holder ? holder : slot ? slot + 1 : NULL;
}

/* The word that names the last holder of the lock whose holder record is
 * `hslot`: the object's holder word (obj_holder) when it has one, else
 * the record's. */
static inline _Atomic uint32_t *holder_word(_Atomic uint32_t *word, uint32_t hslot)
{
	return LIKELY(word != NULL) ? word : &ls_stats_rec(hslot)->holder;
}

/* An acquisition of record `slot`; `holder` is the lock's holder word;
 * `stamp` != 0 opens a hold sample starting then.  Inside the critical
 * section this writes the thread's own row (counter and site) and, when
 * the holder changes, the holder word on the object's own line: nothing
 * another thread reads on its uncontended path.
 *
 * LS_CALL_HELD in `how`: the caller knows the word names another thread,
 * so this is an owner change and the word is stored without being
 * loaded.  That holds for a mutex acquisition that waited while the word
 * was not 0 and named
 * another thread, or while another thread held the mutex (which records
 * itself in the word before its release): the word changes only to the
 * serials of threads that acquire, and this one did not while it waited
 * (ls_stats_lock_blocks sets LS_CALL_HELD; the check before the wait is
 * needed: a try can fail with the lock free, a capacitor's full platoon,
 * right after this thread's own release, and the statistics tests caught
 * the owner change that counting every blocked acquisition invents).
 * The load is what costs: inside the critical section, on the mutex's
 * line, which the waiters still spinning or waking on the lock word
 * beside it have taken away; a store waits in the store buffer instead
 * of stalling the section.  MutexBench at 2 threads on 2 CPUs, summary
 * mode: 1.06x [1.01, 1.09] of the build before (21 interleaved rounds;
 * docs/stats.md).  Not for rwlock writes: a writer blocked by readers may
 * have been the last writer itself.
 *
 * With LS_CALL_RELNAMED as well (the mutex's releases write the word,
 * hooks.h ls_stats_obj.release_names) not even the store: this thread's
 * release will write it, in the instruction that frees the lock, and the
 * store here was the last thing left inside the section on that line:
 * MutexBench at 8 threads on 2 CPUs, summary over off, 0.917 without it
 * against 0.857 with it (61 interleaved rounds; docs/stats.md). */
static inline __attribute__((always_inline)) void acquired_as(struct ls_stats_thread *t,
                                                              uint32_t slot,
                                                              _Atomic uint32_t *holder, void *obj,
                                                              uintptr_t site, uint64_t stamp,
                                                              unsigned how)
{
	struct ls_stats_count *c = counts(t, slot);
	ls_stats_bump(&c->c[LS_C_ACQ]);
	atomic_store_explicit(&c->site, site, memory_order_relaxed);
	if (how & LS_CALL_HELD) {
		if (!(how & LS_CALL_RELNAMED))
			atomic_store_explicit(holder, t->serial, memory_order_relaxed);
		ls_stats_bump(&c->c[LS_C_HANDOFF]);
	} else {
		uint32_t prev = atomic_load_explicit(holder, memory_order_relaxed);
		if (UNLIKELY(prev != t->serial)) {
			atomic_store_explicit(holder, t->serial, memory_order_relaxed);
			if (prev)
				ls_stats_bump(&c->c[LS_C_HANDOFF]);
		}
	}
	if (stamp)
		hold_open(t, obj, slot, stamp);
}

static inline __attribute__((always_inline)) void acquired(struct ls_stats_thread *t, uint32_t slot,
                                                           _Atomic uint32_t *holder, void *obj,
                                                           uintptr_t site, uint64_t stamp)
{
	acquired_as(t, slot, holder, obj, site, stamp, 0);
}

/* From now on the inline step (quick.h) may count this mutex's
 * acquisitions in row `slot`: the caller has just checked, through
 * quick(), that the mutex's slot word names `slot` and that the record's
 * key is this mutex's; acquired() has raised t->hi past the row. */
static inline void key_row(struct ls_stats_thread *t, uint32_t slot, const void *addr)
{
	t->count[slot].key = (uintptr_t)addr;
}

/* The same for an rwlock's row (reads or writes; key as quick.h says). */
static inline void key_rw_row(struct ls_stats_thread *t, uint32_t slot, const void *addr)
{
	t->count[slot].key = (uintptr_t)addr | LS_REC_RWLOCK;
}

int ls_stats_quick_handoff(struct ls_stats_count *r, _Atomic uint32_t *w)
{
	_Atomic uint32_t *holder = w + 1;
	/* Relaxed: the next acquirer compares it holding the mutex, whose
	 * acquire orders this store before; sampled waiters read it racily. */
	uint32_t prev = atomic_load_explicit(holder, memory_order_relaxed);
	atomic_store_explicit(holder, ls_stats_q.serial, memory_order_relaxed);
	ls_stats_quick_changed(r, prev);
	return 0;
}

static inline bool got_it(int e)
{
	return e == 0 || e == EOWNERDEAD;
}

/* A hold sample was opened on the call's object: its next unlock must be
 * observed.  Relaxed: the word is read by this thread's own unlock (or,
 * after a condvar wait gave the mutex away, by another holder's, which
 * then only finds no sample to close). */
static inline void hold_wanted(const struct ls_stats_call *k)
{
	if (k->unlock_want)
		atomic_fetch_or_explicit(k->unlock_want, LS_UNLOCK_WANT_OWN, memory_order_relaxed);
}

/* The acquisition of a call, read or not. */
static inline void call_acquired(const struct ls_stats_call *k, uint64_t stamp)
{
	if (k->flags & LS_CALL_READ) {
		read_acquired(k->t, k->slot, k->obj, stamp);
		return;
	}
	/* HELD is only ever set on a mutex call (ls_stats_lock_blocks). */
	acquired_as(k->t, k->slot, holder_word(k->holder, k->slot), k->obj, k->site, stamp,
	            k->flags & (LS_CALL_HELD | LS_CALL_RELNAMED));
	if (stamp)
		hold_wanted(k);
}

/* The record that keeps the lock's holder and the requests for its stack:
 * the mutex's own; an rwlock's write record, whatever the call's mode. */
static inline uint32_t holders_slot(const struct ls_stats_call *k)
{
	return k->slot + ((k->flags & LS_CALL_READ) != 0);
}

/* The signal helper thread starts on a lock call from the program's own
 * code (dump.c). */
static inline void maybe_start_helper(uintptr_t site)
{
	if (UNLIKELY(atomic_load_explicit(&ls_stats_helper_wanted, memory_order_relaxed)))
		ls_stats_helper_maybe_start(site);
}

/* ---- mutex lock ---- */

static __attribute__((noinline)) void lock_begin_slow(struct ls_stats_call *k,
                                                      const struct ls_stats_obj *m,
                                                      uintptr_t site, uint32_t half)
{
	maybe_start_helper(site);
	struct ls_stats_thread *t = me();
	if (!t || !(k->slot = slot_of(m, site, true)))
		return;
	k->slot += half;
	k->t = t;
	if (hold_sampled(t)) {
		k->flags |= LS_CALL_HOLD;
		/* Before the first try: the clock stays outside the critical section. */
		k->t0 = ls_stats_now();
	}
}

/* The object's side of the common case below (quick), which the hold
 * hooks share (ls_stats_hold_quick_begin): the signal helper not wanted,
 * and a slot word that names the record of `key` (its slot in *s). */
static inline __attribute__((always_inline)) bool record_named(_Atomic uint32_t *slot,
                                                               uintptr_t key, uint32_t *s)
{
	return slot && !atomic_load_explicit(&ls_stats_helper_wanted, memory_order_relaxed) &&
	       (*s = named_slot(atomic_load_explicit(slot, memory_order_relaxed), key));
}

/* The common case of every lock hook: a thread with its block, outside
 * the profiler, its next hold sample not due, the signal helper not
 * wanted, and an object whose slot word names its record (`key`:
 * address | type).  Then the thread is returned, *s is the record's slot,
 * and the hold-sample countdown has moved one step; else NULL. */
static inline __attribute__((always_inline)) struct ls_stats_thread *
quick(_Atomic uint32_t *slot, uintptr_t key, uint32_t *s)
{
	struct ls_stats_thread *t = ls_stats_me;
	/* Inside the profiler the countdown is held at 1 (state.h
	 * ls_stats_enter): its test covers the in-profiler flag. */
	if (LIKELY(t != NULL && ls_stats_q.hold_left > 1 && record_named(slot, key, s))) {
		ls_stats_q.hold_left--;
		return t;
	}
	return NULL;
}

/* The common case kept small (no call, so no saved registers): a thread
 * with a block, an object with its record, no hold sample due.  `half`
 * is the record counted past the object's own: 1 for an rwlock's writes. */
static inline __attribute__((always_inline)) void begin(struct ls_stats_call *k,
                                                        const struct ls_stats_obj *m,
                                                        uintptr_t site, unsigned flags,
                                                        uint32_t half)
{
	k->t = NULL;
	k->obj = m->addr;
	k->holder = obj_holder(m->slot, m->holder);
	k->unlock_want = m->unlock_want;
	k->site = site;
	k->flags = flags | (m->release_names ? LS_CALL_RELNAMED : 0);
	uint32_t s;
	struct ls_stats_thread *t = quick(m->slot, (uintptr_t)m->addr | m->type, &s);
	if (LIKELY(t != NULL)) {
		k->t = t;
		k->slot = s + half;
		return;
	}
	lock_begin_slow(k, m, site, half);
}

void ls_stats_lock_begin(struct ls_stats_call *k, const struct ls_stats_obj *m, uintptr_t site,
                         bool trylock)
{
	begin(k, m, site, (trylock ? LS_CALL_TRYLOCK : 0) | LS_CALL_MUTEX, 0);
}

void ls_stats_rw_begin(struct ls_stats_call *k, const struct ls_stats_obj *l, uintptr_t site,
                       bool write, bool trylock)
{
	begin(k, l, site, (trylock ? LS_CALL_TRYLOCK : 0) | (write ? 0 : LS_CALL_READ), write);
}

/* The site of the holder that the lock's holder word names, from that
 * thread's own row for record hs. */
static uintptr_t holder_site(const struct ls_stats_call *k, uint32_t hs)
{
	return ls_stats_holder_site(atomic_load_explicit(holder_word(k->holder, hs),
	                                                 memory_order_relaxed),
	                            hs);
}

/* A waiter stack is due at `now` (the countdown is at its end): in
 * summary mode not before LS_STATS_STACK_GAP_NS after this thread's last
 * one; until then the countdown stays at its end, so the first timed wait
 * after the gap takes it (the clock read is the wait's own start). */
static inline bool stack_gap_passed(struct ls_stats_thread *t, uint64_t now)
{
	if (ls_stats_cfg.sample == 1 || now - t->stack_at >= LS_STATS_STACK_GAP_NS)
		return true;
	t->stack_left = 1;
	return false;
}

/* 1 contended wait in N is timed; 1 timed wait in LS_STATS_STACK_FACTOR
 * (at most one every LS_STATS_STACK_GAP_NS per thread, data.h) also
 * captures the waiter's stack and asks a holder for its own. */
void ls_stats_lock_blocks(struct ls_stats_call *k, bool held)
{
	struct ls_stats_thread *t = k->t;
	if (!t)
		return;
	k->flags |= LS_CALL_BLOCKED;
	/* A sampled wait still pending (its lock left through a condvar
	 * wait, or is still held while this thread waits for another):
	 * recorded before this wait, outside this lock. */
	ls_stats_wait_flush(t);
	/* Before the wait, outside any critical section: see acquired_as. */
	if (k->flags & LS_CALL_MUTEX) {
		uint32_t h = atomic_load_explicit(holder_word(k->holder, k->slot), memory_order_relaxed);
		if (h != 0 && (h != t->serial || held))
			k->flags |= LS_CALL_HELD;
	}
	k->wstack = 0;
	k->w0 = ls_stats_ticks();
	if (LIKELY(--t->wait_left != 0))
		return;
	t->wait_left = ls_stats_period(t);
	uint32_t hs = holders_slot(k);
	struct ls_stats_lock *r = ls_stats_rec(hs);
	k->flags |= LS_CALL_TIMED;
	/* The holder's site, from its own row (sampled waits only).  Where
	 * releases write the word, at the wait's end instead (contended_end):
	 * a holder that got the lock by waiting is named only by its release. */
	k->hsite = (k->flags & LS_CALL_RELNAMED) ? 0 : holder_site(k, hs);
	k->t0 = ls_stats_now();
	if (--t->stack_left == 0 && stack_gap_passed(t, k->t0)) {
		t->stack_left = ls_stats_stack_period(t);
		t->stack_at = k->t0;
		k->wstack = ls_stats_stack_capture(t, k->site);
		if (!atomic_load_explicit(&r->want_holder_stack, memory_order_relaxed) &&
		    !atomic_exchange_explicit(&r->want_holder_stack, 1, memory_order_relaxed))
			atomic_fetch_add_explicit(&ls_stats_stacks_asked, 1, memory_order_relaxed);
		/* Release: the request above is visible to the unlock that
		 * clears this bit with an acquire (hooks.h). */
		if (k->unlock_want)
			atomic_fetch_or_explicit(k->unlock_want, LS_UNLOCK_WANT_STACK,
			                         memory_order_release);
		/* The wait starts after the unwinding. */
		k->t0 = ls_stats_now();
	}
}

static void contended_end(struct ls_stats_call *k, int e)
{
	struct ls_stats_thread *t = k->t;
	struct ls_stats_lock *r = ls_stats_rec(k->slot);
	bool timed = k->flags & LS_CALL_TIMED, hold = k->flags & LS_CALL_HOLD;
	uint64_t t1 = (timed || hold) ? ls_stats_now() : 0;
	if (got_it(e) || e == ETIMEDOUT) {
		/* Every contended wait: how much this thread competed. */
		_Atomic uint64_t *w = &counts(t, k->slot)->want;
		atomic_store_explicit(w, atomic_load_explicit(w, memory_order_relaxed) +
		                                 (ls_stats_ticks() - k->w0),
		                      memory_order_relaxed);
	}
	if (timed && (got_it(e) || e == ETIMEDOUT)) {
		/* The stack a holder published after an earlier request (the
		 * holder unwinds after its release, so the critical section
		 * is never widened): a sample of the holders' unlock stacks. */
		uint32_t hstack = k->wstack ? atomic_load_explicit(&ls_stats_rec(holders_slot(k))->holder_stack,
		                                                   memory_order_acquire)
		                            : 0;
		/* A release wrote the word last (it let this thread in, or, on
		 * a timeout, the lock's holder now is the one it names or one
		 * that got it by waiting after it): the holder that ended or
		 * outlasted the wait, as the holder stacks are (ls_stats_obj). */
		if (k->flags & LS_CALL_RELNAMED)
			k->hsite = holder_site(k, holders_slot(k));
		if (got_it(e))
			wait_defer(t, k, hstack, t1 - k->t0);
		else
			ls_stats_wait_record(k->slot, k->wstack, hstack, k->site, k->hsite, t1 - k->t0);
	}
	if (got_it(e)) {
		call_acquired(k, hold ? t1 : 0);
		ls_stats_bump(&t->count[k->slot].c[LS_C_CONTENDED]);
	} else if (e == ETIMEDOUT) {
		atomic_fetch_add_explicit(&r->timeouts, 1, memory_order_relaxed);
	}
}

/* Whether this thread's next lock should start with ls_stats_lock_begin:
 * its hold sample is due (countdown at 1). */
static inline bool next_hold_due(const struct ls_stats_thread *t)
{
	return t && ls_stats_q.hold_left == 1;
}

static __attribute__((noinline)) bool locked_slow(const struct ls_stats_obj *m, uintptr_t site,
                                                  unsigned flags, uint32_t half)
{
	/* First use by this thread or of this object, a sample due now, or
	 * the helper is wanted: the whole protocol, after the fact (a hold
	 * sample due now starts here, at the acquisition). */
	struct ls_stats_call k;
	begin(&k, m, site, flags, half);
	return ls_stats_lock_end(&k, 0);
}

/* An acquisition that the first try got, of record `half` past the
 * object's own; `read`: an rwlock read (a constant where inlined). */
static inline __attribute__((always_inline)) bool locked(const struct ls_stats_obj *m,
                                                         uintptr_t site, bool read, uint32_t half)
{
	uint32_t s;
	struct ls_stats_thread *t = quick(m->slot, (uintptr_t)m->addr | m->type, &s);
	if (LIKELY(t != NULL)) {
		if (read)
			read_acquired(t, s, m->addr, 0);
		else
			acquired(t, s + half, obj_holder(m->slot, m->holder), m->addr, site, 0);
		if (m->type == LS_REC_MUTEX)
			key_row(t, s, m->addr);
		return ls_stats_q.hold_left == 1;
	}
	return locked_slow(m, site, read ? LS_CALL_READ : 0, half);
}

bool ls_stats_locked(const struct ls_stats_obj *m, uintptr_t site)
{
	return locked(m, site, false, 0);
}

int ls_stats_mutex_locked_quick(_Atomic uint32_t *slot, _Atomic uint32_t *holder,
                                const void *addr, uintptr_t site)
{
	uint32_t s;
	struct ls_stats_thread *t = quick(slot, (uintptr_t)addr | LS_REC_MUTEX, &s);
	if (LIKELY(t != NULL)) {
		acquired(t, s, holder, (void *)addr, site, 0);
		key_row(t, s, addr);
		return ls_stats_q.hold_left == 1;
	}
	return LS_STATS_QUICK_DECLINED;
}

uint64_t ls_stats_hold_quick_begin(_Atomic uint32_t *slot, const void *addr)
{
	struct ls_stats_thread *t = ls_stats_me;
	uint32_t s;
	/* The countdown is at its end (1) here, so quick() would decline:
	 * the same tests without it.  busy: in the profiler the countdown is
	 * held at 1 too (state.h ls_stats_enter), and that is no sample. */
	if (UNLIKELY(t == NULL || ls_stats_q.busy || ls_stats_q.hold_left != 1 ||
	             !record_named(slot, (uintptr_t)addr | LS_REC_MUTEX, &s)))
		return 0;
	uint64_t t0 = ls_stats_now();
	return t0 ? t0 : 1;
}

int ls_stats_hold_quick_end(_Atomic uint32_t *slot, _Atomic uint32_t *holder, const void *addr,
                            uintptr_t site, _Atomic uint32_t *unlock_want, uint64_t t0)
{
	struct ls_stats_thread *t = ls_stats_me;
	/* The slot word named this mutex's record before the try (begin).  A
	 * word that names a record changes only when the mutex is destroyed
	 * or initialised again (ls_stats_forget), which nobody may do to a
	 * mutex that this thread has just locked. */
	uint32_t s = ls_stats_word_slot(atomic_load_explicit(slot, memory_order_relaxed));
	ls_stats_q.hold_left = ls_stats_hold_period(t); /* hold_sampled's reset */
	acquired(t, s, holder, (void *)addr, site, t0);
	key_row(t, s, addr);
	if (unlock_want)
		atomic_fetch_or_explicit(unlock_want, LS_UNLOCK_WANT_OWN, memory_order_relaxed);
	return ls_stats_q.hold_left == 1;
}

int ls_stats_rw_locked_quick(_Atomic uint32_t *slot, const void *addr, uintptr_t site, bool write)
{
	uint32_t s;
	struct ls_stats_thread *t = quick(slot, (uintptr_t)addr | LS_REC_RWLOCK, &s);
	if (LIKELY(t != NULL)) {
		if (write)
			acquired(t, s + 1, slot + 1, (void *)addr, site, 0);
		else
			read_acquired(t, s, (void *)addr, 0);
		key_rw_row(t, s + write, addr);
		return ls_stats_q.hold_left == 1;
	}
	return LS_STATS_QUICK_DECLINED;
}

bool ls_stats_rw_locked(const struct ls_stats_obj *l, uintptr_t site, bool write)
{
	return write ? locked(l, site, false, 1) : locked(l, site, true, 0);
}

static __attribute__((noinline)) void lock_end_slow(struct ls_stats_call *k, int e)
{
	if (k->flags & LS_CALL_BLOCKED)
		contended_end(k, e);
	else if (got_it(e))
		call_acquired(k, (k->flags & LS_CALL_HOLD) ? k->t0 : 0);
	else if (e == EBUSY && (k->flags & LS_CALL_TRYLOCK))
		ls_stats_bump(&counts(k->t, k->slot)->c[LS_C_TRYFAIL]);
}

bool ls_stats_lock_end(struct ls_stats_call *k, int e)
{
	if (!k->t)
		return false;
	/* Uncontended, no hold sample, not a read. */
	if (LIKELY(e == 0 && !(k->flags & (LS_CALL_BLOCKED | LS_CALL_HOLD | LS_CALL_READ)))) {
		acquired(k->t, k->slot, holder_word(k->holder, k->slot), k->obj, k->site, 0);
		return next_hold_due(k->t);
	}
	lock_end_slow(k, e);
	return next_hold_due(k->t);
}

/* ---- mutex unlock ---- */

/* Claim a pending request for the holder's stack (answered after the
 * release, in ls_stats_unlock_end). */
static struct ls_stats_lock *stack_requested(uint32_t slot)
{
	struct ls_stats_lock *r = ls_stats_rec(slot);
	if (LIKELY(!atomic_load_explicit(&r->want_holder_stack, memory_order_relaxed)))
		return NULL;
	if (!atomic_exchange_explicit(&r->want_holder_stack, 0, memory_order_relaxed))
		return NULL;
	atomic_fetch_sub_explicit(&ls_stats_stacks_asked, 1, memory_order_relaxed);
	return r;
}

/* Nothing to do at unlock unless a hold sample is open in this thread or
 * a waiter somewhere asked for a holder's stack (the whole test; hooks.h
 * has the shim's quick one). */
static bool unlock_wanted(void)
{
	struct ls_stats_thread *t = ls_stats_me;
	return UNLIKELY(t && !ls_stats_q.busy &&
	                (ls_stats_release_work ||
	                 atomic_load_explicit(&ls_stats_stacks_asked, memory_order_relaxed)));
}

void ls_stats_unlock_begin(struct ls_stats_call *k, const struct ls_stats_obj *m, uintptr_t site)
{
	struct ls_stats_thread *t = ls_stats_me;
	k->t = NULL;
	/* Clear the object's unlock word first.  Acquire: pairs with a
	 * waiter's release of LS_UNLOCK_WANT_STACK (ls_stats_lock_blocks), so
	 * stack_requested below sees the request made before it (hooks.h). */
	if (m->unlock_want)
		atomic_exchange_explicit(m->unlock_want, 0, memory_order_acquire);
	if (!unlock_wanted())
		return;
	k->t = t;
	k->site = site;
	uint32_t slot = slot_of(m, site, false);
	/* An rwlock's stack requests are on its write record, for either mode. */
	k->asked = slot ? stack_requested(slot + (m->type == LS_REC_RWLOCK)) : NULL;
	k->hslot = 0;
	k->t0 = t->nheld ? hold_take(t, m->addr, &k->hslot) : 0;
}

bool ls_stats_hold_quick_unlock(_Atomic uint32_t *unlock_want, const void *addr, uint32_t *hslot,
                                uint64_t *t0)
{
	struct ls_stats_thread *t = ls_stats_me;
	if (UNLIKELY(t == NULL || ls_stats_q.busy ||
	             atomic_load_explicit(&ls_stats_stacks_asked, memory_order_relaxed)))
		return false;
	/* Acquire, as in ls_stats_unlock_begin: a waiter's stack bit set
	 * before it is seen here, and sends this unlock the whole way. */
	if (atomic_exchange_explicit(unlock_want, 0, memory_order_acquire) != LS_UNLOCK_WANT_OWN)
		return false;
	*hslot = 0;
	*t0 = t->nheld ? hold_take(t, (void *)addr, hslot) : 0;
	return true;
}

void ls_stats_hold_quick_done(uint32_t hslot, uint64_t t0)
{
	/* After the release, as ls_stats_unlock_end.  ls_stats_me is not
	 * NULL: ls_stats_hold_quick_unlock returned true. */
	if (t0)
		ls_stats_timing_add(&ls_stats_rec(hslot)->hold, ls_stats_now() - t0);
	ls_stats_wait_flush(ls_stats_me);
}

void ls_stats_unlock_end(struct ls_stats_call *k, int e)
{
	if (!k->t)
		return;
	/* After the release: neither the clock nor the unwinder widens the
	 * critical section. */
	if (UNLIKELY(k->t0) && e == 0)
		ls_stats_timing_add(&ls_stats_rec(k->hslot)->hold, ls_stats_now() - k->t0);
	if (UNLIKELY(k->asked)) {
		uint32_t id = ls_stats_stack_capture(k->t, k->site);
		if (id)
			atomic_store_explicit(&k->asked->holder_stack, id, memory_order_release);
	}
	ls_stats_wait_flush(k->t);
}

void ls_stats_forget(const struct ls_stats_obj *o)
{
	if (!ls_stats_setup())
		return;
	if (o->slot) {
		uint32_t s = named_slot(atomic_load_explicit(o->slot, memory_order_relaxed),
		                        (uintptr_t)o->addr | o->type);
		if (s)
			atomic_store_explicit(&ls_stats_rec(s)->destroyed, 1, memory_order_relaxed);
	}
	ls_stats_addr_forget(o->addr);
}

/* ---- condvar ---- */

void ls_stats_cond_signal(const struct ls_stats_obj *c, uintptr_t site, bool broadcast)
{
	struct ls_stats_thread *t = me();
	uint32_t slot;
	maybe_start_helper(site);
	if (t && (slot = slot_of(c, site, true)))
		ls_stats_bump(&counts(t, slot)->c[broadcast ? LS_C_BROADCAST : LS_C_SIGNAL]);
}

static void note_mutex(uint32_t cslot, uint32_t mslot)
{
	struct ls_stats_lock *r = ls_stats_rec(cslot);
	uint32_t seen = atomic_load_explicit(&r->cond_mutex, memory_order_relaxed);
	if (seen == mslot)
		return;
	if (seen)
		atomic_store_explicit(&r->cond_mixed, 1, memory_order_relaxed);
	atomic_store_explicit(&r->cond_mutex, mslot, memory_order_relaxed);
}

void ls_stats_wait_begin(struct ls_stats_call *k, const struct ls_stats_obj *c,
                         const struct ls_stats_obj *m, uintptr_t site)
{
	struct ls_stats_thread *t = me();
	maybe_start_helper(site);
	k->t = t;
	if (!t)
		return;
	k->obj = m->addr;
	k->holder = obj_holder(m->slot, m->holder);
	k->unlock_want = m->unlock_want;
	k->site = site;
	k->slot = slot_of(c, site, true);
	k->mslot = slot_of(m, site, true);
	if (k->slot && k->mslot)
		note_mutex(k->slot, k->mslot);
	/* The wait releases the mutex: its hold sample ends here, and a
	 * sampled wait pending since the acquisition is recorded (this
	 * release is not observed). */
	uint32_t hslot = 0;
	uint64_t h0 = t->nheld ? hold_take(t, m->addr, &hslot) : 0;
	ls_stats_wait_flush(t);
	bool timed = k->slot && --t->cond_left == 0;
	k->flags = timed ? LS_CALL_TIMED : 0;
	if (timed)
		t->cond_left = ls_stats_period(t);
	k->t0 = (timed || h0) ? ls_stats_now() : 0;
	if (h0)
		ls_stats_timing_add(&ls_stats_rec(hslot)->hold, k->t0 - h0);
}

void ls_stats_wait_end(struct ls_stats_call *k, int e)
{
	struct ls_stats_thread *t = k->t;
	if (!t)
		return;
	bool back = got_it(e) || e == ETIMEDOUT; /* the mutex is held again */
	bool hold = back && k->mslot && hold_sampled(t);
	bool timed = k->flags & LS_CALL_TIMED;
	uint64_t t1 = (timed || hold) ? ls_stats_now() : 0;
	if (k->slot && back) {
		struct ls_stats_count *cc = counts(t, k->slot);
		ls_stats_bump(&cc->c[LS_C_WAIT]);
		if (e == ETIMEDOUT)
			ls_stats_bump(&cc->c[LS_C_TIMEOUT]);
		if (timed)
			ls_stats_timing_add(&ls_stats_rec(k->slot)->wait, t1 - k->t0);
	}
	if (k->mslot && back) {
		acquired(t, k->mslot, holder_word(k->holder, k->mslot), k->obj, k->site, hold ? t1 : 0);
		if (hold)
			hold_wanted(k);
	}
}
