/*
 * table.h - the lock records (table.c): slots, the address table, the
 * configuration, the timings' histograms.
 */
#ifndef LS_STATS_TABLE_H
#define LS_STATS_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "data.h"

extern struct ls_stats_config ls_stats_cfg;

extern struct ls_stats_lock *ls_stats_recs;
extern _Atomic uint32_t ls_stats_next_slot;
extern _Atomic uint64_t ls_stats_untracked; /* objects refused: tables full */
bool ls_stats_setup(void); /* idempotent; false while not ready */
static inline struct ls_stats_lock *ls_stats_rec(uint32_t slot)
{
	return &ls_stats_recs[slot];
}
/* A new record (two for an rwlock: the id of the first is returned). */
uint32_t ls_stats_slot_new(void *obj, unsigned type, int32_t kind, bool glibc, uintptr_t site);
uint32_t ls_stats_addr_slot(void *obj, unsigned type, int32_t kind, bool glibc, uintptr_t site,
                            bool create);
void ls_stats_addr_forget(void *obj);
void ls_stats_table_reset(void);
const char *ls_stats_backend_name(void);
const char *ls_stats_rwlock_backend_name(void);
/* "glibc" or the backend that serves the object of a slot. */
const char *ls_stats_served_by(uint32_t slot);

/* The settings given by the shim (never NULL; fields may be). */
const struct ls_stats_settings *ls_stats_given(void);

void ls_stats_timing_add(struct ls_stats_timing *t, uint64_t ns);
unsigned ls_stats_bucket(uint64_t ns);

#endif
