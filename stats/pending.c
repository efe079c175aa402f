/* pending.c - a thread's pending sampled wait (pending.h): kept by
 * record.c's wait_defer until the thread's next release, recorded here. */
#include "pending.h"

#include "stacks.h"
#include "state.h"
#include "table.h"

/* What this thread's next observed release has to do (hooks.h):
 * close its open hold samples, record its pending wait. */
__thread uint32_t ls_stats_release_work;

void ls_stats_wait_record(uint32_t slot, uint32_t wstack, uint32_t hstack, uintptr_t wsite,
                          uintptr_t hsite, uint64_t ns)
{
	ls_stats_timing_add(&ls_stats_rec(slot)->wait, ns);
	ls_stats_event_add(slot, wstack, hstack, wsite, hsite, ns);
}

void ls_stats_wait_flush(struct ls_stats_thread *t)
{
	if (LIKELY(!t->pending.set))
		return;
	struct ls_stats_pending_wait p = t->pending;
	t->pending.set = false;
	ls_stats_release_work_sync(t);
	ls_stats_wait_record(p.slot, p.wstack, p.hstack, p.wsite, p.hsite, p.ns);
}

void ls_stats_wait_forget(struct ls_stats_thread *t)
{
	t->pending.set = false;
	ls_stats_release_work_sync(t);
}
