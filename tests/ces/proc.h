/*
 * proc.h - for the tests of tests/ces that must wait until a thread sleeps
 * in its lock call (C and C++).
 */
#ifndef LS_TEST_CES_PROC_H
#define LS_TEST_CES_PROC_H

#include <sys/types.h>
#include <unistd.h>

#include "../thread_state.h"

/* Until thread tid sleeps (its lock call parked), at most 5 s. */
static void wait_sleeping(pid_t tid)
{
	for (int i = 0; i < 5000 && thread_state(tid) != 'S'; i++)
		usleep(1000);
	usleep(2000);
}

#endif
