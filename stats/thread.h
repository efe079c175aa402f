/*
 * thread.h - the per-thread blocks (thread.c): attach, exit, the exited
 * threads' counters, the sampling periods.
 */
#ifndef LS_STATS_THREAD_H
#define LS_STATS_THREAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "data.h"

extern __thread struct ls_stats_thread *ls_stats_me __attribute__((tls_model("initial-exec")));
/* Set once the thread's block was retired at thread exit: lock calls made
 * by key destructors that run after ours are served, not counted. */
extern __thread bool ls_stats_gone __attribute__((tls_model("initial-exec")));

struct ls_stats_thread *ls_stats_thread_attach(void);
struct ls_stats_thread *ls_stats_threads(void); /* head of the all-blocks list */
/* The latest acquisition site of `slot` by the live thread `serial`; 0 if
 * unknown (racy read of that thread's row: sampled waits only). */
uintptr_t ls_stats_holder_site(uint32_t serial, uint32_t slot);
struct ls_stats_exited *ls_stats_exited_list(void);
uint64_t ls_stats_exited_folded(void);
uint32_t ls_stats_period(struct ls_stats_thread *t);
uint32_t ls_stats_hold_period(struct ls_stats_thread *t);
uint32_t ls_stats_stack_period(struct ls_stats_thread *t);
void ls_stats_thread_reset(void);

#endif
