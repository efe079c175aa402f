/*
 * delegation_ops.c - instruction counts of the uncontended paths of the
 * delegation locks, for callgrind (see docs/algorithms-delegation.md):
 * lock+unlock through the backend table for futex, bcs and bcs-wf, and one
 * lockswap_with per native flavour.  Each measure_* function runs N
 * iterations; callgrind's inclusive Ir of it divided by N is the cost of
 * one iteration (loop overhead included, about 3 instructions).
 *
 *   make liblockswap-core.a
 *   cc -std=c11 -O2 -g -fno-ipa-icf -D_GNU_SOURCE -o build/delegation_ops \
 *      docs/tools/delegation_ops.c liblockswap-core.a -lpthread
 *   valgrind --tool=callgrind --callgrind-out-file=build/delegation_ops.cg \
 *      build/delegation_ops
 *   callgrind_annotate --inclusive=yes build/delegation_ops.cg | grep measure_
 *
 * Without valgrind it prints nothing useful; it only exits 0 when every
 * lock is idle again at the end.
 */
#include <stdio.h>
#include <string.h>

#include "../../backends/backend.h"
#include "../../include/lockswap.h"

#define N 100000

static _Alignas(16) unsigned char state[LS_LOCK_STATE_BYTES];

static void nothing(void *arg)
{
	(*(long *)arg)++;
}

#define MEASURE_BACKEND(fn)                                              \
	static __attribute__((noinline)) void fn(const struct ls_lock_ops *b) \
	{                                                                \
		for (int i = 0; i < N; i++) {                            \
			b->lock(state);                                  \
			b->unlock(state);                                \
		}                                                        \
	}
MEASURE_BACKEND(measure_futex)
MEASURE_BACKEND(measure_bcs)
MEASURE_BACKEND(measure_bcs_wf)

#define MEASURE_WITH(fn)                                                 \
	static __attribute__((noinline)) void fn(lockswap_lock_t *l, long *c) \
	{                                                                \
		for (int i = 0; i < N; i++)                              \
			lockswap_with(l, nothing, c);                    \
	}
MEASURE_WITH(measure_with_bcs)
MEASURE_WITH(measure_with_bcs_wf)
MEASURE_WITH(measure_with_combining)

static const struct ls_lock_ops *pick(const char *name)
{
	char err[256];
	const struct ls_lock_ops *b = ls_backend_select(name, err, sizeof err);
	if (!b)
		fprintf(stderr, "%s: %s\n", name, err);
	return b;
}

int main(void)
{
	const struct ls_lock_ops *f = pick("futex"), *b = pick("bcs"), *w = pick("bcs-wf");
	if (!f || !b || !w)
		return 1;
	int bad = 0;
	memset(state, 0, sizeof state);
	measure_futex(f);
	bad |= f->is_locked(state);
	memset(state, 0, sizeof state);
	measure_bcs(b);
	bad |= b->is_locked(state);
	memset(state, 0, sizeof state);
	measure_bcs_wf(w);
	bad |= w->is_locked(state);

	long c = 0;
	lockswap_lock_t l;
	lockswap_lock_init(&l, LOCKSWAP_BCS);
	measure_with_bcs(&l, &c);
	bad |= lockswap_lock_destroy(&l);
	lockswap_lock_init(&l, LOCKSWAP_BCS_WF);
	measure_with_bcs_wf(&l, &c);
	bad |= lockswap_lock_destroy(&l);
	lockswap_lock_init(&l, LOCKSWAP_COMBINING);
	measure_with_combining(&l, &c);
	bad |= lockswap_lock_destroy(&l);
	bad |= c != 3L * N;
	printf("delegation_ops: %d iterations each, %s\n", N, bad ? "WRONG" : "ok");
	return bad;
}
