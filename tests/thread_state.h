/* thread_state.h - a thread's scheduler state from /proc, for the tests
 * that wait until a thread sleeps in a lock call (tests/ces, tests/leave,
 * the statistics', unit and usdt programs; C and C++). */
#ifndef LS_TEST_THREAD_STATE_H
#define LS_TEST_THREAD_STATE_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The scheduler state of thread tid of this process ('S' sleeping, 'R'
 * running...), '?' if it cannot be read.  open/read, not stdio: no
 * allocation and no stream lock, so a caller may look while the thread it
 * watches is stopped anywhere. */
__attribute__((unused)) static char thread_state(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* "tid (comm) S ...": comm may hold spaces and ')' */
	return p && p[1] == ' ' ? p[2] : '?';
}

#endif
