/*
 * window.h - the steady window over which mutexbench measures: it opens
 * after the warm-up once every thread has finished an op, and lasts
 * --seconds.  The rule is in docs/bench.md ("The measured window").
 */
#ifndef MUTEXBENCH_WINDOW_H
#define MUTEXBENCH_WINDOW_H

#include <stdint.h>
#include <sys/resource.h>

enum mb_rule { W_WARMUP, W_ALL_ACQUIRED, W_TIMEOUT };
extern const char *const mb_rule_names[];

struct mb_window {
	uint64_t start, end;         /* ns, CLOCK_MONOTONIC */
	enum mb_rule rule;
	uint64_t *ops0, *ops1, *hold0, *hold1;   /* per-thread counters at start, end */
	uint64_t *cpu0, *cpu1;       /* per-thread CPU time (ns) at start, end */
	struct rusage ru0, ru1;      /* the process's context switches at start, end */
};

/* Called right after the start barrier: waits for the window, measures
 * it, and returns once it has closed (the threads still run). */
void mb_measure_window(struct mb_window *w);

/* Seconds from the start barrier's release to t (ns). */
double mb_since_start(uint64_t t);

#endif
