/*
 * signals.c - every handler the program installs runs in the context its
 * signal is for (core/runtime/home_signal.h), while the backend delegates.
 *
 * How: the program's handlers are kept in a table, and the kernel is given
 * one trampoline instead, with the program's flags and mask, as the
 * sanitizers' signal interception does.  The trampoline routes the signal
 * first (it may be kept or queued again for its context) and then calls
 * the program's handler with the arguments the kernel gave.  sigaction()
 * reports the program's own handler, never the trampoline.  Without
 * delegation (every backend but ces) these calls are glibc's, unchanged.
 *
 * SA_RESETHAND is done here, not by the kernel: a signal the trampoline
 * queues again must still find the program's handler, which is reset
 * when the handler really runs.
 *
 * Not covered: handlers installed by a raw rt_sigaction system call, by
 * sigset() or sigvec(), and glibc's own SIGCANCEL and SIGSETXID; their
 * handlers run wherever the kernel delivers (docs/delegation.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "../../core/runtime/home_signal.h"
#include "../entry/export.h"
#include "away.h"
#include "../../core/runtime/cold.h"

void *_Atomic ls_glibc_sigaction, *_Atomic ls_glibc_signal, *_Atomic ls_glibc_bsd_signal,
        *_Atomic ls_glibc_sysv_signal, *_Atomic ls_glibc___sysv_signal;

/* The program's action for one signal.  A seqlock: written under
 * table_lock by sigaction() with every signal blocked on the writing
 * thread, read by the trampoline on any thread. */
struct action {
	_Atomic uint32_t seq; /* odd while written */
	void *handler;        /* sa_handler or sa_sigaction */
	int flags;            /* the program's sa_flags */
	sigset_t mask;        /* the program's sa_mask */
	bool routed;          /* the kernel has the trampoline for it */
};

static struct action actions[_NSIG] LS_COLD_BSS;
static _Atomic int table_lock;
static bool routing;

static bool is_function(void *handler)
{
	return handler != (void *)SIG_DFL && handler != (void *)SIG_IGN &&
	       handler != (void *)SIG_HOLD && handler != (void *)SIG_ERR;
}

static void read_action(int sig, struct action *out)
{
	struct action *a = &actions[sig];
	for (;;) {
		/* acquire: pairs with the writer's release of an even count. */
		uint32_t s = atomic_load_explicit(&a->seq, memory_order_acquire);
		if (s & 1)
			continue;
		out->handler = a->handler;
		out->flags = a->flags;
		out->routed = a->routed;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&a->seq, memory_order_relaxed) == s)
			return;
	}
}

static void write_action(int sig, void *handler, int flags, const sigset_t *mask, bool routed)
{
	struct action *a = &actions[sig];
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	a->handler = handler;
	a->flags = flags;
	a->mask = *mask;
	a->routed = routed;
	/* release: the fields before the even count. */
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_release);
}

static void reset_to_default(int sig)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigset_t none;
	sigemptyset(&none);
	/* As sigaction(): nothing may interrupt this thread while it holds
	 * the table (another handler here could not take it back). */
	ls_sigmask_t saved;
	ls_sys_block_all(&saved);
	while (atomic_exchange_explicit(&table_lock, 1, memory_order_acquire))
		;
	write_action(sig, (void *)SIG_DFL, 0, &none, false);
	GLIBC(sigaction)(sig, &dfl, NULL);
	atomic_store_explicit(&table_lock, 0, memory_order_release);
	ls_sys_sigmask_set(&saved);
}

static void trampoline(int sig, siginfo_t *si, void *uc)
{
	struct ls_home_signal_scope sc;
	if (!ls_home_signal_route(sig, si, uc, &sc))
		return;
	struct action a;
	read_action(sig, &a);
	if (!a.routed) {
		/* The program changed the action while this one was on its
		 * way: the kernel has the new one now.  Ignored: nothing.
		 * Default: queued again, it gets the kernel's default action
		 * once this handler returns and the signal is unblocked. */
		if (a.handler == (void *)SIG_DFL)
			ls_sys_tgsigqueueinfo(ls_sys_getpid(), ls_sys_gettid(), sig, si);
		return;
	}
	if (a.flags & SA_RESETHAND)
		reset_to_default(sig);
	if (a.flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))a.handler)(sig, si, uc);
	else
		((void (*)(int))a.handler)(sig);
	ls_home_signal_done(&sc, uc);
}

static bool routable(int sig)
{
	return sig > 0 && sig < _NSIG && sig != SIGKILL && sig != SIGSTOP &&
	       sig != LS_SIG_CANCEL && sig != LS_SIG_SETXID;
}

/* The kernel's action for a program's one: the trampoline, with the
 * program's mask and flags (SA_RESETHAND kept by us). */
static struct sigaction kernel_action(const struct sigaction *act)
{
	struct sigaction k = *act;
	k.sa_sigaction = trampoline;
	k.sa_flags = (act->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
	return k;
}

LS_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!routing || !routable(sig))
		return GLIBC(sigaction)(sig, act, old);
	/* Every signal blocked on this thread while it holds the table: a
	 * handler here could not take the lock back. */
	ls_sigmask_t saved;
	ls_sys_block_all(&saved);
	while (atomic_exchange_explicit(&table_lock, 1, memory_order_acquire))
		;
	/* The program's previous action (fields: the seqlock count is not
	 * ours to copy; the lock keeps writers out). */
	void *prev_handler = actions[sig].handler;
	int prev_flags = actions[sig].flags;
	sigset_t prev_mask = actions[sig].mask;
	bool prev_routed = actions[sig].routed;
	struct sigaction kold;
	int r;
	if (act) {
		bool route = is_function((void *)act->sa_handler);
		struct sigaction k = route ? kernel_action(act) : *act;
		write_action(sig, (void *)act->sa_handler, act->sa_flags, &act->sa_mask, route);
		r = GLIBC(sigaction)(sig, &k, &kold);
		if (r != 0)
			write_action(sig, prev_handler, prev_flags, &prev_mask, prev_routed);
	} else {
		r = GLIBC(sigaction)(sig, NULL, &kold);
	}
	int err = errno;
	if (r == 0 && old) {
		*old = kold;
		if (kold.sa_sigaction == trampoline) {
			old->sa_handler = (__sighandler_t)prev_handler;
			old->sa_flags = prev_flags;
			old->sa_mask = prev_mask;
		}
	}
	atomic_store_explicit(&table_lock, 0, memory_order_release);
	ls_sys_sigmask_set(&saved);
	errno = err;
	return r;
}

/* glibc's signal(): BSD semantics (restart, the signal blocked in its
 * handler).  glibc also honours siginterrupt()'s set, which it keeps
 * privately; under routing signal() always restarts. */
static __sighandler_t install(int sig, __sighandler_t handler, int flags, bool block_self)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	if (block_self && sig > 0 && sig < _NSIG)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = flags;
	if (sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

LS_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
	if (!routing)
		return GLIBC(signal)(sig, handler);
	return install(sig, handler, SA_RESTART, true);
}

LS_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
	if (!routing)
		return GLIBC(bsd_signal)(sig, handler);
	return install(sig, handler, SA_RESTART, true);
}

/* System V: reset after one delivery, not blocked in its handler, no
 * restart.  Strict ISO C programs reach it as __sysv_signal. */
LS_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
	if (!routing)
		return GLIBC(sysv_signal)(sig, handler);
	return install(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

__sighandler_t __sysv_signal(int sig, __sighandler_t handler);
LS_EXPORT __sighandler_t __sysv_signal(int sig, __sighandler_t handler)
{
	if (!routing)
		return GLIBC(__sysv_signal)(sig, handler);
	return install(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

/* Goes home (the alternate stack is the kernel thread's), and keeps what
 * it set in the thread's home block: a delegate runs the thread's
 * sections on it (core/delegation/ces.c). */
LS_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	ls_go_home(LS_BACK_THREAD_STATE);
	int r = GLIBC(sigaltstack)(ss, old);
	struct ls_home *h;
	if (r == 0 && ss && ls_home_delegating && (h = ls_home_self()) != NULL) {
		h->alt = *ss;
		h->alt.ss_flags &= SS_DISABLE;
	}
	return r;
}

/* Handlers installed before (by the program's own constructors, or
 * before lockswap was chosen) move behind the trampoline too. */
static void route_installed(void)
{
	for (int sig = 1; sig < _NSIG; sig++) {
		struct sigaction cur;
		if (!routable(sig) || GLIBC(sigaction)(sig, NULL, &cur) != 0 ||
		    !is_function((void *)cur.sa_handler))
			continue;
		sigaction(sig, &cur, NULL);
	}
}

/* From the constructor under every backend (away.h, ls_away_resolve):
 * sigaction is async-signal-safe, and its first call may come from a
 * handler, where dlsym must not run. */
void ls_away_signals_resolve(void)
{
	ls_next_symbol("sigaction", &ls_glibc_sigaction);
	ls_next_symbol("signal", &ls_glibc_signal);
	ls_next_symbol("bsd_signal", &ls_glibc_bsd_signal);
	ls_next_symbol("sysv_signal", &ls_glibc_sysv_signal);
	ls_next_symbol("__sysv_signal", &ls_glibc___sysv_signal);
}

void ls_away_start_delegation(void)
{
	routing = true;
	route_installed();
	ls_home_start_delegation();
}
