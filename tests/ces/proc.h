/*
 * proc.h - a thread's scheduler state from /proc, for the tests of
 * tests/ces that must wait until a thread sleeps in its lock call (C and
 * C++).
 */
#ifndef LS_TEST_CES_PROC_H
#define LS_TEST_CES_PROC_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The scheduler state of thread tid ('S' sleeping, 'R' running...). */
static char thread_state(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Until thread tid sleeps (its lock call parked), at most 5 s. */
static void wait_sleeping(pid_t tid)
{
	for (int i = 0; i < 5000 && thread_state(tid) != 'S'; i++)
		usleep(1000);
	usleep(2000);
}

#endif
