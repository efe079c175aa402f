#include "home_signal.h"

#include <string.h>
#include <ucontext.h>

#include "delegation_counts.h"

#define TAG_OFFSET 32
#define TAG_MAGIC 0x6c6f636bu /* "lock" */

/* The kernel lets a thread queue a signal with any si_code only to
 * itself; to another thread, only negative codes other than SI_TKILL
 * (kernel/signal.c, do_rt_tgsigqueueinfo).  So a tagged signal travels as
 * SI_QUEUE, and the tag keeps the code the handler must see. */
struct tag {
	uint32_t magic;
	int32_t code;
	struct ls_home *target; /* blocks are never freed (home.h) */
};

_Static_assert(TAG_OFFSET + sizeof(struct tag) <= LS_HOME_SIGINFO_BYTES,
               "the tag must lie in the part of a siginfo the kernel keeps");

void ls_home_signal_tag(siginfo_t *info, struct ls_home *target)
{
	struct tag t = { TAG_MAGIC, info->si_code, target };
	memcpy((char *)info + TAG_OFFSET, &t, sizeof t);
	info->si_code = SI_QUEUE;
}

/* The target of a tagged signal, NULL if untagged.  Only SI_QUEUE can
 * carry one: any other layout may use the bytes. */
static struct ls_home *tag_of(const siginfo_t *si)
{
	if (si->si_code != SI_QUEUE)
		return NULL;
	struct tag t;
	memcpy(&t, (const char *)si + TAG_OFFSET, sizeof t);
	return t.magic == TAG_MAGIC ? t.target : NULL;
}

/* The siginfo the handler would have had from glibc's call. */
static void untag(siginfo_t *si)
{
	struct tag t;
	memcpy(&t, (const char *)si + TAG_OFFSET, sizeof t);
	si->si_code = t.code;
	if (t.code == SI_TKILL)
		memset(&si->si_value, 0, sizeof si->si_value);
	memset((char *)si + TAG_OFFSET, 0, sizeof t);
}

/* The kernel's mask to restore when the handler returns: the first 8
 * bytes of the frame's uc_sigmask. */
static ls_sigmask_t *frame_mask(void *ucontext)
{
	return (ls_sigmask_t *)&((ucontext_t *)ucontext)->uc_sigmask;
}

/* Queue the signal again to this kernel thread, blocked in the mask the
 * frame restores, so that it waits there until the owner of `owner`
 * sets its mask again (it sees mask_dirty). */
static void requeue_blocked(struct ls_home *owner, long tid, int sig, const siginfo_t *si,
                            void *ucontext)
{
	ls_sys_tgsigqueueinfo(ls_sys_getpid(), tid, sig, si);
	*frame_mask(ucontext) |= LS_SIGBIT(sig);
	owner->mask_dirty = true;
}

/* A delegate's thread got a signal for its own context: keep it, one per
 * signal number, for ls_home_signal_flush.  A second one of the same
 * number while the first is kept (a real-time signal queued twice) waits
 * in the kernel instead, blocked until the delegate's mask is set again. */
static void keep(struct ls_home *host, long tid, int sig, const siginfo_t *si, void *ucontext)
{
	uint64_t bit = LS_SIGBIT(sig);
	/* Only this kernel thread touches host->kept while it hosts, and the
	 * claim comes before the copy: a nested handler finds the bit taken. */
	if (!(atomic_fetch_or_explicit(&host->kept, bit, memory_order_relaxed) & bit))
		memcpy(host->kept_info[sig - 1], si, LS_HOME_SIGINFO_BYTES);
	else
		requeue_blocked(host, tid, sig, si, ucontext);
	ls_delegation_count_signal_kept();
}

/* Whether an untagged signal may travel tagged: its layout leaves the
 * tag's bytes unused (a kill, tgkill or sigqueue; not SIGCHLD's times nor
 * a fault's address bounds). */
static bool taggable(const siginfo_t *si)
{
	return si->si_code == SI_USER || si->si_code == SI_TKILL || si->si_code == SI_QUEUE;
}

/* Send a tagged signal to where its target context runs now: its
 * delegate's thread while away, else its own thread (where, parked, it is
 * queued again until the context is home).  The context may move before
 * the signal lands; the receiver routes it again. */
static void forward(struct ls_home *x, int sig, const siginfo_t *si)
{
	/* acquire: pairs with the delegate's release of away, after host. */
	struct ls_home *host =
	        atomic_load_explicit(&x->away, memory_order_acquire) ? x->host : NULL;
	ls_sys_tgsigqueueinfo(ls_sys_getpid(), host ? host->tid : x->tid, sig, si);
}

bool ls_home_signal_route(int sig, siginfo_t *si, void *ucontext,
                          struct ls_home_signal_scope *sc)
{
	sc->hosted = NULL;
	struct ls_home *target = tag_of(si);
	struct ls_home *h = ls_home_current; /* the running context's block */
	if (!h) {
		if (target)
			untag(si);
		return true;
	}
	long tid = ls_sys_gettid();
	if (target && target != h) {
		/* Not for the context running here.  A delegate keeps its own
		 * signals for the end of its batch; any other goes where its
		 * context is. */
		struct ls_home *host = tid != h->tid ? h->host : NULL;
		if (target == host)
			keep(host, tid, sig, si, ucontext);
		else
			forward(target, sig, si);
		return false;
	}
	if (tid != h->tid) {
		/* A delegate running h's context: the signal is h's (tagged
		 * for it, a fault of its section, or process-wide).  The
		 * program's handler may send the context home (any call of
		 * interpose/away/), where the frame's mask becomes that
		 * thread's: it must not carry the internal signals the
		 * delegate blocks for its batch. */
		sc->hosted = h;
		*frame_mask(ucontext) &= ~LS_SIGMASK_INTERNAL;
	} else if (h->hosting) {
		/* A delegate between two sections of its batch: a handler of
		 * its own could block (a collector's suspend handler does)
		 * while the sections it ran wait for their wake-up, at the
		 * batch's end. */
		keep(h, tid, sig, si, ucontext);
		return false;
	} else if (h->parked) {
		/* h's own thread, parked: h's context is not here.  Still in
		 * the queue: taken out, it goes home and retries, and the
		 * signal waits for it there.  Running on a delegate: the
		 * signal follows it, as it would reach a running thread. */
		if (h->withdraw && h->withdraw(h)) {
			h->interrupted = true;
			ls_delegation_count_interrupted();
		} else if (atomic_load_explicit(&h->away, memory_order_acquire) &&
		           (target || taggable(si))) {
			if (!target)
				ls_home_signal_tag(si, h);
			forward(h, sig, si);
			return false;
		}
		requeue_blocked(h, tid, sig, si, ucontext);
		return false;
	}
	if (target)
		untag(si);
	return true;
}

void ls_home_signal_done(const struct ls_home_signal_scope *sc, void *ucontext)
{
	/* Still on the delegate (the handler did not send its context home):
	 * its batch goes on with glibc's signals blocked. */
	if (sc->hosted && ls_sys_gettid() != sc->hosted->tid)
		*frame_mask(ucontext) |= LS_SIGMASK_INTERNAL;
}

void ls_home_signal_flush(struct ls_home *self)
{
	if (self->mask_dirty) {
		self->mask_dirty = false;
		ls_sys_sigmask_set(&self->mask);
	}
	uint64_t bits = atomic_exchange_explicit(&self->kept, 0, memory_order_relaxed);
	if (!bits)
		return;
	long pid = ls_sys_getpid();
	while (bits) {
		int sig = __builtin_ctzll(bits) + 1;
		bits &= bits - 1;
		siginfo_t info;
		memset(&info, 0, sizeof info);
		memcpy(&info, self->kept_info[sig - 1], LS_HOME_SIGINFO_BYTES);
		/* Delivered at once, to this context, unless it blocks it. */
		ls_sys_tgsigqueueinfo(pid, self->tid, sig, &info);
	}
}
