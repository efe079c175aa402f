/*
 * limit.c - --limit: one thread alone first (limit.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "limit.h"

double mb_limit_alone(void (*run)(struct mb_results *, struct mb_window *))
{
	int fd[2];
	if (pipe(fd) != 0)
		mb_die("pipe", errno);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		mb_die("fork", errno);
	if (pid == 0) {
		close(fd[0]);
		mb_opt.threads = 1;
		struct mb_results r;
		struct mb_window w;
		run(&r, &w);
		/* -1: the lock did not exclude (the parent reports it). */
		double tput = r.excl_ok ? r.tput : -1;
		ssize_t n = write(fd[1], &tput, sizeof tput);
		/* _exit: nothing of the parent's (stdio buffers, a library's
		 * exit report) runs twice. */
		_exit(n == (ssize_t)sizeof tput ? 0 : 1);
	}
	close(fd[1]);
	double tput = -1;
	ssize_t n;
	while ((n = read(fd[0], &tput, sizeof tput)) < 0 && errno == EINTR)
		;
	close(fd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			mb_die("waitpid", errno);
	if (n != (ssize_t)sizeof tput || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "mutexbench: --limit: the one-thread run failed (%s)\n",
		        WIFSIGNALED(status) ? "killed by a signal" : "no result");
		exit(1);
	}
	if (tput < 0) {
		fprintf(stderr, "mutexbench: --limit: mutual exclusion violated in the one-thread run\n");
		exit(1);
	}
	return tput;
}
