/* writing.c - one writer at a time, and the names of its files (writing.h). */
#include "writing.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/runtime/own_io.h"
#include "../core/runtime/sys.h"
#include "state.h"

/* 1 while a dump or an export writes; a CAS from 0 enters. */
static _Atomic int dumping;
/* Set in a fork child (before any thread of the child can dump). */
static bool forked;

bool ls_stats_dump_enter(bool wait)
{
	for (int tries = 0;; tries++) {
		int expected = 0;
		if (atomic_compare_exchange_strong(&dumping, &expected, 1))
			break;
		if (!wait || tries > 5000)
			return false;
		ls_sys_sleep_ns(1000000);
	}
	ls_stats_enter();
	return true;
}

void ls_stats_dump_leave(void)
{
	ls_stats_leave();
	atomic_store(&dumping, 0);
}

void ls_stats_path_expand(const char *path, char *out, size_t len)
{
	size_t n = 0;
	bool pid_seen = false;
	for (const char *p = path; *p && n + 1 < len; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			n += (size_t)snprintf(out + n, len - n, "%d", (int)getpid());
			pid_seen = true;
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			out[n++] = '%';
			p++;
		} else {
			out[n++] = *p;
		}
		if (n >= len)
			n = len - 1;
	}
	out[n] = 0;
	if (forked && !pid_seen)
		snprintf(out + n, len - n, ".%d", (int)getpid());
}

void ls_stats_writing_after_fork(void)
{
	forked = true;
	/* The dump in progress at fork, if any, was another thread's: it is
	 * not in the child. */
	atomic_store(&dumping, 0);
}

int ls_stats_file_open(struct ls_stats_file *f, const char *path)
{
	struct stat st;
	f->path = path;
	f->tmp[0] = 0;
	/* lstat: the name itself, not what a link points to. */
	f->in_place = lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
	if (f->in_place) {
		/* O_NONBLOCK for the open alone: a FIFO nobody reads fails
		 * (ENXIO) instead of holding the program at exit; the writes
		 * then block as usual, for a reader that is there. */
		f->fd = ls_own_open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
		if (f->fd >= 0)
			(void)ls_own_fcntl(f->fd, F_SETFL, O_WRONLY | O_APPEND);
		return f->fd;
	}
	snprintf(f->tmp, sizeof f->tmp, "%s.tmp%d", path, (int)getpid());
	f->fd = ls_own_open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return f->fd;
}

bool ls_stats_file_commit(struct ls_stats_file *f, bool ok)
{
	int saved = errno;
	bool closed = ls_own_close(f->fd) == 0;
	if (!ok)
		errno = saved; /* the write's error, not the close's */
	ok = ok && closed;
	if (f->in_place)
		return ok;
	if (ok && rename(f->tmp, f->path) == 0)
		return true;
	saved = errno;
	unlink(f->tmp);
	errno = saved;
	return false;
}
