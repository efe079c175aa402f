/*
 * report.h - everything a run found, as main.c gathers it after the join,
 * and its two renderings: one JSON object (--json) or one human line.
 */
#ifndef MUTEXBENCH_REPORT_H
#define MUTEXBENCH_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "mutexbench.h"
#include "shares.h"
#include "short_windows.h"
#include "window.h"

struct mb_results {
	const struct mb_window *w;
	double secs, tput;           /* the window's length, ops per second in it */
	uint64_t run_end;            /* ns: when the stop flag was set */
	uint64_t *wops, *whold, *wcpu;   /* per thread, over the window */
	struct mb_shares so, sh, sc;    /* of wops, whold, wcpu */
	uint64_t total_ops, produced, consumed;
	uint64_t all_acquired;       /* ns: the last thread's first op (0: never) */
	bool excl_ok;                /* every lock's counter adds up, no overlap seen */
	uint64_t counted, acq, overlaps;   /* what the exclusion check compared */
	uint64_t p50, p99, p999;     /* sampled acquire waits, ns */
	uint64_t vcsw, ivcsw;        /* the process's context switches in the window */
	struct mb_class_sum cls[MAX_CLASSES];
	double cls_min, cls_max;     /* least and greatest class hold_vs_equal */
	struct mb_window_shares ms1, ms10;  /* short windows of 1 and 10 ms */
	uint64_t *longest_ns;        /* per thread: longest stretch without an acquisition */
	uint64_t longest_max_ns, longest_median_ns;
	/* request mode: ns over every request of every thread, and the worst
	 * thread's p99 */
	uint64_t requests, req_p50, req_p99, req_p999, req_max, req_worst_p99;
	uint64_t *req_thread_p99;
	/* --limit: one thread alone's throughput (ops/s) and this run's over it */
	double limit, limit_ratio;
};

void mb_report_json(const struct mb_results *r);
void mb_report_human(const struct mb_results *r);

#endif
