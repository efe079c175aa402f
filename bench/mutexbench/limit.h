/*
 * limit.h - --limit: the throughput of one thread alone at the same work,
 * the physical limit of a lock that serves one owner at a time (no
 * hand-over, no shared line), measured first so that the run's report
 * can say how close it came (limit_ratio).
 */
#ifndef MUTEXBENCH_LIMIT_H
#define MUTEXBENCH_LIMIT_H

#include "report.h"
#include "window.h"

/* Runs `run` with one thread in a child process forked before this one
 * starts any thread (so the child is as fresh as a separate invocation
 * under the same environment, and this process's locks, counters and
 * clock are untouched) and returns its throughput in ops/s.  Exits with
 * the child's failure if it fails. */
double mb_limit_alone(void (*run)(struct mb_results *, struct mb_window *));

#endif
