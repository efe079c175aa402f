/*
 * pending.h - a thread's pending sampled wait (pending.c): recorded after
 * the thread's next release, which is where record.c defers it to, or at
 * the thread's exit or a dump.
 */
#ifndef LS_STATS_PENDING_H
#define LS_STATS_PENDING_H

#include "data.h"

/* ls_stats_release_work (hooks.h) says whether the thread's next release
 * has work for the hooks: open hold samples, a pending wait. */
static inline void ls_stats_release_work_sync(const struct ls_stats_thread *t)
{
	ls_stats_release_work = t->nheld + t->pending.set;
}

/* Record a sampled wait that ended: its lock's timing, its event. */
void ls_stats_wait_record(uint32_t slot, uint32_t wstack, uint32_t hstack, uintptr_t wsite,
                          uintptr_t hsite, uint64_t ns);

/* Record the calling thread's pending sampled wait, if it has one
 * (ls_stats_pending_wait): its thread's release of a lock does, and so
 * do its next contended wait, its exit and a dump that it makes. */
void ls_stats_wait_flush(struct ls_stats_thread *t);
/* Forget it (a fork child's thread, a block handed to a new thread). */
void ls_stats_wait_forget(struct ls_stats_thread *t);

#endif
