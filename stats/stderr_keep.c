/*
 * stderr_keep.c - where the exit summary goes: the standard error the
 * program started with, even when the program has closed its own by then.
 *
 * GNU sort, xz and the rest of coreutils and gnulib close stdout and
 * stderr in an atexit handler (close_stdout), which runs before the
 * library's destructor; the summary's write(2) then failed with EBADF and
 * the summary was lost without a word.  So at start-up (statistics on) the
 * library keeps a close-on-exec copy of fd 2, placed high (KEEP_FD_MIN and
 * up) so it stays out of the way of programs that count on low numbers,
 * and remembers which file it is (device and inode).  At a dump:
 *
 *   - fd 2 still that file: fd 2, as before;
 *   - else the copy, if it is still that file: the program closed or
 *     redirected its stderr (the summary goes where the user started it);
 *   - else fd 2 if it is open: the program replaced its stderr and closed
 *     every other descriptor, the copy included (what was done before);
 *   - else nowhere.
 *
 * A copy whose number the program has since reused for a file of its own
 * fails the identity check, so the summary never lands in the program's
 * data.  For the same reason a process started with fd 2 closed gets no
 * summary: whatever the program opens next takes number 2.
 *
 * fcntl goes through glibc's __fcntl (own_io.h): the library defines the
 * program's fcntl (interpose/away), and its own calls never take that path.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stderr_keep.h"
#include "../core/runtime/own_io.h"

#define KEEP_FD_MIN 200

static int kept_fd = -1;
static bool started_with_stderr;
static dev_t kept_dev;
static ino_t kept_ino;

static bool same_file(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == kept_dev && st.st_ino == kept_ino;
}

void ls_stats_stderr_keep(void)
{
	struct stat st;
	if (fstat(STDERR_FILENO, &st) != 0)
		return;
	started_with_stderr = true;
	kept_dev = st.st_dev;
	kept_ino = st.st_ino;
	kept_fd = ls_own_fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, KEEP_FD_MIN);
	if (kept_fd < 0) /* RLIMIT_NOFILE below KEEP_FD_MIN: any free number */
		kept_fd = ls_own_fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
}

int ls_stats_stderr_fd(void)
{
	if (!started_with_stderr)
		return -1;
	if (same_file(STDERR_FILENO))
		return STDERR_FILENO;
	if (kept_fd >= 0 && same_file(kept_fd))
		return kept_fd;
	return ls_own_fcntl(STDERR_FILENO, F_GETFD) >= 0 ? STDERR_FILENO : -1;
}
