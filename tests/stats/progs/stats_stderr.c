/*
 * stats_stderr.c - a program that does to its stderr, before the library's
 * exit summary, what real programs do; tests/stats/stderr.py checks where
 * the summary went.  Two threads take `the_lock` 20000 times each (so the
 * summary has a lock to show), then, by argv[1]:
 *
 *   close          close(2) in an atexit handler, as gnulib's close_stdout
 *                  (GNU sort, xz) does
 *   close-reuse F  close(2), then open F, which takes number 2, and write
 *                  "data\n" to it: the program's own file, which must not
 *                  get the summary
 *   redirect F     dup2 a file F over fd 2 at start-up (a daemon's log)
 *   close-all      close(2) and every descriptor above it (closefrom)
 *   keep           nothing: the summary goes to fd 2
 *
 * Writes "done" on stdout last.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t the_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static const char *mode = "keep", *file;

static void *work(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&the_lock);
		counter++;
		pthread_mutex_unlock(&the_lock);
	}
	return arg;
}

static void at_exit(void)
{
	if (strcmp(mode, "close") == 0) {
		close(STDERR_FILENO);
	} else if (strcmp(mode, "close-reuse") == 0) {
		close(STDERR_FILENO);
		int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd != STDERR_FILENO)
			_exit(3); /* the case needs the file on number 2 */
		if (write(fd, "data\n", 5) != 5)
			_exit(3);
	} else if (strcmp(mode, "close-all") == 0) {
		close_range(STDERR_FILENO, ~0u, 0);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		mode = argv[1];
	if (argc > 2)
		file = argv[2];
	if (strcmp(mode, "redirect") == 0) {
		int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, STDERR_FILENO) != STDERR_FILENO)
			return 3;
		close(fd);
	}
	atexit(at_exit);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("done %ld\n", counter);
	fflush(stdout);
	return counter == 40000 ? 0 : 1;
}
