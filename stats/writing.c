/* writing.c - one writer at a time, and the names of its files (writing.h). */
#include "writing.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

/* The regular file a symbolic link leads to, through its whole chain, in
 * out; false if the chain ends elsewhere (a device, a FIFO, nothing), is
 * too long, or passes through /proc: /dev/stdout leads through
 * /proc/self/fd/1 to whatever the program's stdout is, a file it writes
 * included, which must be appended to, not replaced. */
static bool regular_behind_link(const char *path, char *out, size_t len)
{
	char cur[512], next[512];
	size_t n = strlen(path);
	if (n >= sizeof cur)
		return false;
	memcpy(cur, path, n + 1);
	for (int hop = 0; hop < 40; hop++) {
		ssize_t k = readlink(cur, next, sizeof next - 1);
		if (k < 0) {
			struct stat st;
			if (errno != EINVAL || lstat(cur, &st) != 0 || !S_ISREG(st.st_mode))
				return false;
			n = strlen(cur);
			if (n >= len)
				return false;
			memcpy(out, cur, n + 1);
			return true;
		}
		next[k] = 0;
		if (strncmp(next, "/proc/", 6) == 0)
			return false;
		/* A relative link is relative to the link's own folder. */
		char *slash = next[0] == '/' ? NULL : strrchr(cur, '/');
		size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;
		if (dir + (size_t)k >= sizeof cur)
			return false;
		memcpy(cur + dir, next, (size_t)k + 1);
	}
	return false;
}

int ls_stats_file_open(struct ls_stats_file *f, const char *path)
{
	struct stat st;
	f->path = path;
	f->tmp[0] = 0;
	/* lstat: the name itself, not what a link points to.  A link to a
	 * regular file is followed: its target is replaced whole, and the
	 * link stays. */
	bool exists = lstat(path, &st) == 0;
	if (exists && S_ISLNK(st.st_mode) && regular_behind_link(path, f->target, sizeof f->target)) {
		f->path = f->target;
		exists = lstat(f->path, &st) == 0;
	}
	f->in_place = exists && !S_ISREG(st.st_mode);
	if (f->in_place) {
		/* O_NONBLOCK for the open alone: a FIFO nobody reads fails
		 * (ENXIO) instead of holding the program at exit; the writes
		 * then block as usual, for a reader that is there. */
		f->fd = ls_own_open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
		if (f->fd >= 0)
			(void)ls_own_fcntl(f->fd, F_SETFL, O_WRONLY | O_APPEND);
		return f->fd;
	}
	snprintf(f->tmp, sizeof f->tmp, "%s.tmp%d", f->path, (int)getpid());
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
