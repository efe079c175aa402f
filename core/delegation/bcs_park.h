/*
 * bcs_park.h - a one-shot reply word for delegation locks: the owner of a
 * node waits until the thread that ran its critical section writes a
 * non-zero reply into the node.  Used by the combining lock
 * (core/delegation/combining.h) and the native BCS flavours (native/native.c).
 *
 * Word encoding (32 bits):
 *   bits 0..30  the reply: 0 = none yet, anything else is the caller's
 *               (the combining lock uses DONE and HEAD)
 *   LS_BCS_PARK_SLEEP (bit 31)  the owner is parked, or about to park, on
 *               the word: the publisher must futex-wake it
 *
 * Waiting: spin while the waiting policy allows (core/runtime/wait.h), then futex
 * park.  This is the "back off, then wait on the OS primitive"
 * future work of "The Combining Lock" (snmalloc design document).
 *
 * Lifetime rule: the publisher's exchange is its last access to the node;
 * the owner may free the node (return from the stack frame that holds it)
 * as soon as it reads a reply.  The futex wake that may follow touches only
 * the address: if the memory was reused, a waiter there sees a spurious
 * wake-up, which every wait loop tolerates by re-checking its word.
 */
#ifndef LS_CORE_BCS_PARK_H
#define LS_CORE_BCS_PARK_H

#include <stdatomic.h>
#include <stdint.h>

#include "../runtime/wait.h"

#define LS_BCS_PARK_SLEEP 0x80000000u
#define LS_BCS_PARK_BACKOFF_MAX 64u

/* Returns the reply (without LS_BCS_PARK_SLEEP). */
uint32_t ls_bcs_park_wait_slow(_Atomic uint32_t *word);

static inline uint32_t ls_bcs_park_wait(_Atomic uint32_t *word)
{
	/* acquire: pairs with the release exchange in ls_bcs_park_reply(). */
	uint32_t v = atomic_load_explicit(word, memory_order_acquire);
	if (__builtin_expect(v != 0, 1))
		return v & ~LS_BCS_PARK_SLEEP;
	return ls_bcs_park_wait_slow(word);
}

/* Publish reply v (non-zero, without SLEEP): the caller's last access. */
static inline void ls_bcs_park_reply(_Atomic uint32_t *word, uint32_t v)
{
	/* release: the critical section run for the owner happens-before
	 * the owner's acquire of the reply. */
	if (atomic_exchange_explicit(word, v, memory_order_release) &
	    LS_BCS_PARK_SLEEP)
		ls_unpark(word, 1);
}

#endif
