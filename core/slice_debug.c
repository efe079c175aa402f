/* TEMPORARY: event counts for tuning */
#include "slice.h"
#include <stdio.h>
#include <stdlib.h>
static _Atomic unsigned long cnt[8];
static void on(const void *r, int ev, uint32_t t, uint32_t a) { (void)r; (void)t; (void)a; atomic_fetch_add(&cnt[ev], 1); }
__attribute__((constructor)) static void dbg_init(void) { if (getenv("SLDBG")) atomic_store(&ls_slice_trace, on); }
__attribute__((destructor)) static void dbg_fini(void) { if (getenv("SLDBG")) fprintf(stderr, "opened %lu handover %lu gap %lu takeover %lu ghost %lu closed %lu\n", cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], cnt[5]); }
