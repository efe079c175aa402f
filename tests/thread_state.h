/* thread_state.h - a thread's scheduler state from /proc, for the tests
 * that wait until a thread sleeps in a lock call (tests/ces, the preload
 * and usdt programs; C and C++). */
#ifndef LS_TEST_THREAD_STATE_H
#define LS_TEST_THREAD_STATE_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* The scheduler state of thread tid of this process ('S' sleeping, 'R'
 * running...), '?' if it cannot be read. */
__attribute__((unused)) static char thread_state(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* "tid (comm) S ...": comm may hold spaces */
	return p && p[1] == ' ' ? p[2] : '?';
}

#endif
