#include "home.h"

__thread struct ls_home *ls_home_current __attribute__((tls_model("initial-exec")));
__thread unsigned ls_home_pins __attribute__((tls_model("initial-exec")));
const struct ls_home_hooks *ls_home_hooks;
bool ls_home_delegation_wanted;
bool ls_home_delegating;

void ls_home_after_fork(void)
{
	struct ls_home *h = ls_home_current;
	if (h)
		h->tid = ls_sys_gettid();
}

bool ls_home_use_altstack(const stack_t *ss)
{
	stack_t set = *ss;
	set.ss_flags &= SS_DISABLE; /* SS_ONSTACK is a reading, not a setting */
	return ls_sys6(SYS_sigaltstack, (long)&set, 0, 0, 0, 0, 0) == 0;
}

void ls_home_start_delegation(void)
{
	ls_home_delegating = true;
}

void ls_home_arrived(struct ls_home *h)
{
	/* Only a context that was away ran leave_home: one granted the lock
	 * at home has no state of the embedder's to get back (back_home would
	 * restore another wait's). */
	bool was_away = h->away;
	h->parked = false; /* back on the context's own stack */
	h->away = false;
	const struct ls_home_hooks *k = ls_home_hooks;
	if (was_away && k && k->back_home)
		k->back_home(h);
	/* A handler that ran on the parked thread re-queued its signal and
	 * blocked it (home_signal.c): unblocking it here runs the program's
	 * handler now, at home, in this context. */
	if (h->mask_dirty) {
		h->mask_dirty = false;
		ls_sys_sigmask_set(&h->mask);
	}
}

void ls_go_home_slow(enum ls_home_reason why)
{
	struct ls_home *h = ls_home_current;
	h->result = LS_AWAY_BACK;
	h->reason = why;
	/* Back to the delegate (core/delegation/ces.c, run_away), which stops
	 * its batch and wakes our own thread; that thread resumes us here. */
	ls_fiber_switch(&h->ctx, h->delegate);
	ls_home_arrived(h);
}

void ls_home_before_fork(void)
{
	ls_go_home(LS_BACK_FORK);
}

const char *ls_home_reason_name(enum ls_home_reason why)
{
	static const char *const names[LS_BACK_REASONS] = {
		[LS_BACK_LOCK] = "lock",          [LS_BACK_TIMEDLOCK] = "timedlock",
		[LS_BACK_CONDVAR] = "condvar",    [LS_BACK_PARK] = "park",
		[LS_BACK_EXIT] = "exit",          [LS_BACK_FORK] = "fork",
		[LS_BACK_BLOCKING] = "blocking",  [LS_BACK_THREAD_STATE] = "thread_state",
		[LS_BACK_SIGNAL] = "signal",      [LS_BACK_CREDENTIALS] = "credentials",
		[LS_BACK_KERNEL_LOCK] = "kernel_lock", [LS_BACK_CANCEL] = "cancel",
	};
	return (unsigned)why < LS_BACK_REASONS ? names[why] : "?";
}
