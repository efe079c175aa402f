/*
 * native.c - the exported native API (include/lockswap.h): lockswap_with
 * over the three delegation flavours.
 *
 * Layout of lockswap_lock_t (32 bytes):
 *   u        the flavour's state: struct ls_bcs / ls_bcs_wf (one queue
 *            word) or struct ls_combining (last + flag)
 *   flavour  0 (all-zero lock) = LOCKSWAP_BCS, else the lockswap_flavour
 *
 * BCS flavours: the caller's node lives in lockswap_with's frame, which is
 * safe because lockswap_with returns only after the node's reply (the BCS
 * lifetime rule, core/delegation/bcs.h: the consumer reads next/batch before done(),
 * and done's exchange is its last access).  Uncontended, the solo fast
 * path claims the empty queue with the node, runs fn inline and closes the
 * queue: no reply is needed since nobody else saw the node as work - except
 * in the wait-free variant when the close fails and the node is left for
 * the next consumer's hand-off, where the caller waits for done() too.
 */
#include "../include/lockswap.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "../core/delegation/bcs.h"
#include "../core/delegation/bcs_park.h"
#include "../core/delegation/combining.h"
#include "../core/runtime/spin.h"

#define LS_NATIVE_EXPORT __attribute__((visibility("default")))

struct ls_native {
	union {
		struct ls_bcs lf;
		struct ls_bcs_wf wf;
		struct ls_combining comb;
	} u;
	uint32_t flavour;
};

_Static_assert(sizeof(struct ls_native) <= sizeof(lockswap_lock_t), "fits");
_Static_assert(_Alignof(struct ls_native) <= _Alignof(lockswap_lock_t), "aligned");

struct native_node {
	struct ls_bcs_node q;  /* first member */
	_Atomic uint32_t reply;
	void (*fn)(void *);
	void *arg;
};

enum { NATIVE_DONE = 1 };

static void native_handle(struct ls_bcs_node *q, void *ctx)
{
	struct native_node *n = (struct native_node *)q;
	n->fn(n->arg);
}

static void native_done(struct ls_bcs_node *q, void *ctx)
{
	ls_bcs_park_reply(&((struct native_node *)q)->reply, NATIVE_DONE);
}

static const struct ls_bcs_ops native_ops = {
	.handle = native_handle,
	.done = native_done,
};

static int flavour_of(const struct ls_native *l)
{
	return l->flavour ? (int)l->flavour : LOCKSWAP_BCS;
}

LS_NATIVE_EXPORT int lockswap_lock_init(lockswap_lock_t *lock, int flavour)
{
	if (flavour != LOCKSWAP_BCS && flavour != LOCKSWAP_BCS_WF &&
	    flavour != LOCKSWAP_COMBINING)
		return EINVAL;
	memset(lock, 0, sizeof *lock);
	((struct ls_native *)lock)->flavour = (uint32_t)flavour;
	return 0;
}

LS_NATIVE_EXPORT int lockswap_lock_destroy(lockswap_lock_t *lock)
{
	struct ls_native *l = (struct ls_native *)lock;
	bool busy;
	switch (flavour_of(l)) {
	case LOCKSWAP_BCS_WF: busy = ls_bcs_wf_busy(&l->u.wf); break;
	case LOCKSWAP_COMBINING: busy = ls_combining_busy(&l->u.comb); break;
	default: busy = ls_bcs_busy(&l->u.lf); break;
	}
	return busy ? EBUSY : 0;
}

LS_NATIVE_EXPORT int lockswap_lock_flavour(const lockswap_lock_t *lock)
{
	return flavour_of((const struct ls_native *)lock);
}

/* The interposer sets ls_spin_limit from LOCKSWAP_SPIN; this archive reads
 * no environment (it is linked into programs that did not ask for that),
 * so the program sets it here.  Same range as LOCKSWAP_SPIN. */
_Static_assert(LOCKSWAP_SPIN_MAX < LS_SPIN_ADAPTIVE, "a poll count is never the adaptive mark");

LS_NATIVE_EXPORT int lockswap_set_spin(long polls)
{
	unsigned v;
	if (polls == LOCKSWAP_SPIN_ADAPTIVE)
		v = LS_SPIN_ADAPTIVE;
	else if (polls >= 0 && polls <= LOCKSWAP_SPIN_MAX)
		v = (unsigned)polls;
	else
		return EINVAL;
	atomic_store_explicit(&ls_spin_limit, v, memory_order_relaxed);
	return 0;
}

LS_NATIVE_EXPORT void lockswap_with(lockswap_lock_t *lock, void (*fn)(void *arg),
                                    void *arg)
{
	struct ls_native *l = (struct ls_native *)lock;
	int f = flavour_of(l);
	if (f == LOCKSWAP_COMBINING) {
		ls_combining_with(&l->u.comb, fn, arg);
		return;
	}
	struct native_node n = { .fn = fn, .arg = arg };
	atomic_init(&n.reply, 0);
	if (f == LOCKSWAP_BCS_WF) {
		struct ls_bcs_node *prev = ls_bcs_wf_solo_begin(&l->u.wf, &n.q);
		if (!prev) {
			fn(arg);
			if (!ls_bcs_wf_solo_end(&l->u.wf, &n.q, &native_ops, NULL))
				return;
		} else {
			ls_bcs_wf_link_slow(&l->u.wf, prev, &n.q, &native_ops, NULL);
		}
	} else {
		if (ls_bcs_solo_begin(&l->u.lf, &n.q)) {
			fn(arg);
			ls_bcs_solo_end(&l->u.lf, &n.q, &native_ops, NULL);
			return;
		}
		ls_bcs_submit(&l->u.lf, &n.q, &native_ops, NULL);
	}
	ls_bcs_park_wait(&n.reply);
}
