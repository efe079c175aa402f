/*
 * home_signal.h - signals under delegation: each runs its handler in the
 * context it is for, as if no context ever left its thread.
 *
 * Where a signal can land while contexts move (home.h):
 *   - on a delegate D that runs waiter W's section.  The kernel sees D's
 *     thread; the running context is W's.  A signal for D's own context
 *     (another thread's pthread_kill of D, which the embedder tags with
 *     its target) is kept in D's block and queued again to D when its
 *     batch has ended; every other signal (a fault of the section,
 *     abort(), SIGPIPE, a process-wide signal) runs its handler now, in
 *     W's context.
 *   - on D between two sections of its batch: kept too.  Its handler could
 *     block (a garbage collector's suspend handler waits there for the
 *     world to restart), and the waiters whose sections D ran are woken
 *     only at the batch's end: they could not answer the collector.
 *   - on W's own thread, parked while W waits.  W's handler cannot run
 *     there: W's context is queued or running elsewhere.  If W is still
 *     waiting, it is taken out of the queue (the lock's `withdraw`), and
 *     its thread goes home and retries the lock; the signal is queued
 *     again to W's thread, blocked until W's context is home
 *     (ls_home_arrived unblocks it, and the handler runs there, at once).
 *     If W's section runs on a delegate, the signal follows it there,
 *     tagged, and runs in W's context as it would on a running thread.
 *   - anywhere else: the handler runs now.
 * glibc's own two signals never come here: a delegate blocks them while
 * it runs others' sections (their handlers act on the running thread
 * pointer), and they run once the batch ends.
 *
 * A tag is 16 bytes of the siginfo (offset 32) that no layout of
 * SI_USER, SI_TKILL or SI_QUEUE uses and the kernel still carries (it
 * copies the first 48 bytes of what rt_tgsigqueueinfo gives): a magic
 * word, the code the handler must see, and the target's home block (never
 * freed, so a tag never points at freed memory).  Tagged signals travel
 * as SI_QUEUE (the one code a thread may forge for another); a thread a
 * tagged signal lands on, if its context is not the target, sends it on
 * to where the target runs now.  Handlers never see the tag, and get the
 * code glibc's call would give.
 *
 * Everything here is async-signal-safe: raw system calls, no errno, and of
 * TLS only the running context's home pointer is read.
 */
#ifndef LS_CORE_HOME_SIGNAL_H
#define LS_CORE_HOME_SIGNAL_H

#include <signal.h>
#include <stdbool.h>

#include "home.h"

/* What the embedder's trampoline keeps between routing a signal and the
 * end of the program's handler. */
struct ls_home_signal_scope {
	struct ls_home *hosted; /* the context a delegate runs, NULL at home */
};

/* Route signal `sig` delivered on this kernel thread.  True: run the
 * program's handler now (si cleaned of any tag), then call
 * ls_home_signal_done.  False: the signal was kept or queued again. */
bool ls_home_signal_route(int sig, siginfo_t *si, void *ucontext,
                          struct ls_home_signal_scope *sc);

/* After the program's handler returned (into the trampoline). */
void ls_home_signal_done(const struct ls_home_signal_scope *sc, void *ucontext);

/* Mark `info` (its si_code set: SI_TKILL, SI_QUEUE or SI_USER) as a
 * signal for the context whose block is `target`: it then travels as
 * SI_QUEUE, and every thread it lands on routes it to that context. */
void ls_home_signal_tag(siginfo_t *info, struct ls_home *target);

/* A delegate's batch has ended and its waiters are woken: queue again to
 * its thread what was kept for it, with its own mask back if a handler
 * changed the thread's. */
void ls_home_signal_flush(struct ls_home *self);

#endif
