/*
 * timespec.h - validating and comparing the absolute deadlines that
 * timedlock, clocklock, timedwait and clockwait receive.
 */
#ifndef LS_CORE_TIMESPEC_H
#define LS_CORE_TIMESPEC_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* glibc accepts only these two clocks for clocklock and clockwait. */
static inline bool ls_clock_supported(clockid_t clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC;
}

static inline bool ls_timespec_valid(const struct timespec *t)
{
	return t->tv_nsec >= 0 && t->tv_nsec < 1000000000L;
}

/* A deadline before the epoch (tv_sec < 0) has passed; futex(2) would
 * reject it with EINVAL, pthread reports ETIMEDOUT. */
static inline bool ls_timespec_negative(const struct timespec *t)
{
	return t->tv_sec < 0;
}

/* A valid, non-negative time as nanoseconds. */
static inline uint64_t ls_timespec_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

static inline uint64_t ls_now_ns(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return ls_timespec_ns(&t);
}

/* Whether clock has reached the absolute deadline abstime; never without
 * one (NULL: wait for ever). */
static inline bool ls_timespec_passed(clockid_t clock, const struct timespec *abstime)
{
	return abstime && ls_now_ns(clock) >= ls_timespec_ns(abstime);
}

#endif
