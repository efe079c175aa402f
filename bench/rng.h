/*
 * rng.h - the work unit of the benchmarks: one xorshift64* step.  Cheap, good
 * enough to pick locks, and a data dependency the compiler keeps, so N steps
 * burn the same time in MutexBench (bench/mutexbench/) and nativebench.c,
 * whose --cs-work and --ncs-work count them.
 */
#ifndef LS_BENCH_RNG_H
#define LS_BENCH_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#endif
