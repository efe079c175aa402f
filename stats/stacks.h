/*
 * stacks.h - stacks and contention events (stacks.c): lock-free
 * insert-only open-addressing tables.
 */
#ifndef LS_STATS_STACKS_H
#define LS_STATS_STACKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "data.h"

bool ls_stats_stacks_setup(void);
uint32_t ls_stats_stack_capture(struct ls_stats_thread *t, uintptr_t site);
uint32_t ls_stats_stack_count(void);
const uintptr_t *ls_stats_stack_frames(uint32_t id, uint32_t *n);
struct ls_stats_event {
	_Atomic uint64_t hash; /* 0 free, 1 being written, else the key's hash */
	uint32_t slot, wstack, hstack, pad;
	uintptr_t wsite, hsite;
	_Atomic uint64_t count, wait_ns;
};
void ls_stats_event_add(uint32_t slot, uint32_t wstack, uint32_t hstack, uintptr_t wsite,
                        uintptr_t hsite, uint64_t wait_ns);
struct ls_stats_event *ls_stats_events(uint32_t *capacity);
uint64_t ls_stats_events_dropped(void);
void ls_stats_stacks_reset(void);

#endif
