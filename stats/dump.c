/*
 * dump.c - when the statistics are written: at exit (library
 * destructor), and on LOCKSWAP_STATS_SIGNAL while the program runs.
 *
 * Signal: the handler only writes a byte to a pipe (async-signal-safe).  A
 * helper thread blocked on the pipe does the dump.  The helper is created
 * lazily, after the constructor, from the first lock call made by the
 * program's own code (the main executable's text): never from inside a
 * preloaded allocator's lock call, where creating a thread would re-enter
 * malloc.  Until it exists, a signal stays in the pipe.  It is created with
 * every signal blocked, so the program's signals never land on it.
 *
 * Files: "%p" in a path is the pid; a fork child without %p appends
 * ".<pid>".  Each file is written to a temporary name and renamed, so a
 * reader never sees half a dump; a device, a FIFO or a link into /proc is
 * written in place, appended (writing.h ls_stats_file_open).  Dumps are
 * serialised; the exit dump waits for a signal dump in progress.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/runtime/own_io.h"
#include "../core/runtime/sys.h"
#include "dump.h"
#include "exe_text.h"
#include "export.h"
#include "pending.h"
#include "spawn.h"
#include "report.h"
#include "stderr_keep.h"
#include "writing.h"
#include "../core/runtime/cold.h"


static int pipe_r = -1;
static _Atomic int pipe_w = -1;
static _Atomic uint32_t dump_seq;

/* A raw write: it touches no errno, which under the ces backend may be
 * in use by a context running elsewhere while this thread is parked
 * (core/runtime/sys.h). */
static void on_signal(int sig)
{
	int fd = atomic_load_explicit(&pipe_w, memory_order_relaxed);
	if (fd >= 0) {
		char b = (char)sig;
		ls_sys6(SYS_write, fd, (long)&b, 1, 0, 0, 0);
	}
}

static bool make_pipe(void)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return false;
	ls_own_fcntl(fds[1], F_SETFL, O_NONBLOCK);
	pipe_r = fds[0];
	atomic_store_explicit(&pipe_w, fds[1], memory_order_release);
	return true;
}

static void signal_setup(void)
{
	if (!ls_stats_cfg.signal || !make_pipe())
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (ls_own_sigaction(ls_stats_cfg.signal, &sa, NULL) == 0)
		ls_stats_want_helper();
}

void ls_stats_constructor(void)
{
	if (!ls_stats_on() || !ls_stats_setup())
		return;
	ls_stats_stderr_keep();
	ls_stats_enter();
	ls_exe_text_find();
	ls_stats_leave();
	ls_stats_unwind_warm();
	signal_setup();
	ls_stats_export_start();
}

static void *helper_main(void *arg)
{
	ls_stats_enter(); /* everything this thread does is the profiler's */
	char b[64];
	for (;;) {
		ssize_t n = ls_own_read(pipe_r, b, sizeof b);
		if (n > 0)
			ls_stats_dump("signal");
		else if (n == 0 || errno != EINTR)
			return NULL;
	}
}

void ls_stats_helper_maybe_start(uintptr_t site)
{
	if (!ls_exe_text_has(site))
		return;
	int expected = 1;
	if (!atomic_compare_exchange_strong(&ls_stats_helper_wanted, &expected, 0))
		return;
	/* Wanted for the signal (a pipe) or for a fork child's export. */
	if (pipe_r >= 0)
		ls_stats_spawn(helper_main, "lockswap-stats", 256 * 1024);
	ls_stats_export_child_maybe_start();
}

static void warn_file(const char *what, const char *path)
{
	char line[600];
	int n = snprintf(line, sizeof line, "lockswap: cannot write %s %s: %s\n", what, path,
	                 strerror(errno));
	int fd = ls_stats_stderr_fd(); /* where the summary goes, so the warning is seen */
	if (fd >= 0 && n > 0) {
		ssize_t w = ls_own_write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
		(void)w;
	}
}

enum fmt { FMT_JSON, FMT_FOLDED };

static void write_file(const struct ls_snap *s, const char *pattern, enum fmt f,
                       const char *reason, uint32_t seq)
{
	char path[512];
	ls_stats_path_expand(pattern, path, sizeof path);
	/* A process that used no lock (a shell or `timeout` in front of the
	 * program, with the same environment) leaves an existing file alone. */
	if (!ls_snap_any(s) && access(path, F_OK) == 0)
		return;
	struct ls_stats_file file;
	if (ls_stats_file_open(&file, path) < 0) {
		warn_file(f == FMT_JSON ? "the statistics to" : "folded stacks to", path);
		return;
	}
	static struct ls_out out LS_COLD_BSS; /* 16 KiB: not on the helper's stack; dumps are serialised */
	ls_out_init(&out, file.fd);
	if (f == FMT_JSON)
		ls_stats_write_json(s, &out, reason, seq);
	else
		ls_stats_write_folded(s, &out);
	if (!ls_stats_file_commit(&file, ls_out_flush(&out)))
		warn_file(f == FMT_JSON ? "the statistics to" : "folded stacks to", path);
}

void ls_stats_dump(const char *reason)
{
	if (!ls_stats_on() || !ls_stats_setup())
		return;
	if (!ls_stats_dump_enter(strcmp(reason, "exit") == 0))
		return;
	uint32_t seq = atomic_fetch_add(&dump_seq, 1) + 1;
	/* The dumping thread's own sampled wait, if one is pending (the
	 * program exits holding the lock it ended in): other threads' are
	 * theirs to record, at their release. */
	if (ls_stats_me)
		ls_stats_wait_flush(ls_stats_me);
	struct ls_snap s;
	if (ls_snap_take(&s)) {
		ls_symbols_begin();
		int err_fd = ls_stats_stderr_fd();
		if (ls_stats_cfg.top && ls_snap_any(&s) && err_fd >= 0) {
			static struct ls_out err LS_COLD_BSS;
			ls_out_init(&err, err_fd);
			ls_stats_write_text(&s, &err, reason);
			ls_out_flush(&err);
		}
		if (ls_stats_cfg.file[0])
			write_file(&s, ls_stats_cfg.file, FMT_JSON, reason, seq);
		if (ls_stats_cfg.folded[0])
			write_file(&s, ls_stats_cfg.folded, FMT_FOLDED, reason, seq);
		ls_stats_export_at_dump(&s);
		ls_symbols_end();
		ls_snap_free(&s);
	}
	ls_stats_dump_leave();
}

void ls_stats_exit(void)
{
	ls_stats_export_stop();
	ls_stats_dump("exit");
}

void ls_stats_after_fork(void)
{
	if (!ls_stats_on() || !ls_stats_setup())
		return;
	ls_stats_writing_after_fork();
	ls_stats_table_reset();
	ls_stats_stacks_reset();
	ls_stats_thread_reset();
	atomic_store(&dump_seq, 0);
	ls_stats_export_after_fork();
	/* The parent's helper thread is not here, and its pipe is the
	 * parent's: a new pipe, and a new helper on demand. */
	if (pipe_r >= 0) {
		ls_own_close(pipe_r);
		ls_own_close(atomic_load(&pipe_w));
		pipe_r = -1;
		atomic_store(&pipe_w, -1);
		if (make_pipe())
			ls_stats_want_helper();
	}
}
