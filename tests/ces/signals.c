/*
 * signals.c - signals under delegation behave as under glibc
 * (docs/delegation.md, "What a delegated section sees"): a handler runs in
 * the context its signal is for, when glibc would run it.  Run under
 * futex and under ces (tests/ces/run.sh); every check holds under both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <sys/mman.h>

#include "harness.h"

#define N 4

static pthread_t main_thread;

/* What the handlers saw, per section id (h_id), or for the main thread. */
struct seen {
	atomic_int runs, wrong_ctx, before_return, before_section;
};
static struct seen seen[MAX_SECTIONS];
static struct seen seen_main;
static pthread_t section_self[MAX_SECTIONS];
static __thread volatile int in_call;   /* set around the sending call */
static __thread volatile int section_started;

/* The handler must see the context it is for: a section's TLS id and its
 * pthread_self(). */
static void on_sig(int sig)
{
	(void)sig;
	int id = h_id;
	if (id < 0) {
		atomic_fetch_add(&seen_main.runs, 1);
		if (!pthread_equal(pthread_self(), main_thread))
			atomic_fetch_add(&seen_main.wrong_ctx, 1);
		return;
	}
	struct seen *s = &seen[id];
	atomic_fetch_add(&s->runs, 1);
	if (!pthread_equal(pthread_self(), section_self[id]))
		atomic_fetch_add(&s->wrong_ctx, 1);
	if (in_call)
		atomic_fetch_add(&s->before_return, 1);
	if (!section_started)
		atomic_fetch_add(&s->before_section, 1);
}

static void reset(void)
{
	memset(seen, 0, sizeof seen);
	memset(&seen_main, 0, sizeof seen_main);
}

static int sum(int (*f)(struct seen *), int n)
{
	int t = 0;
	for (int i = 0; i < n; i++)
		t += f(&seen[i]);
	return t;
}
static int runs(struct seen *s) { return atomic_load(&s->runs); }
static int wrong(struct seen *s) { return atomic_load(&s->wrong_ctx); }
static int before_ret(struct seen *s) { return atomic_load(&s->before_return); }
static int before_sec(struct seen *s) { return atomic_load(&s->before_section); }

/* ---- a section signals itself ------------------------------------------ */

#define RAISES 50

static void raise_section(int id)
{
	section_self[id] = pthread_self();
	section_started = 1;
	for (int i = 0; i < RAISES; i++) {
		in_call = 1;
		raise(SIGUSR1);
		in_call = 0;
	}
}

static void kill_self_section(int id)
{
	section_self[id] = pthread_self();
	section_started = 1;
	in_call = 1;
	pthread_kill(pthread_self(), SIGUSR1);
	in_call = 0;
}

static void self_signals(void)
{
	reset();
	int d = run_sections(N, raise_section);
	CHECK_EQ(sum(runs, N), N * RAISES, "raise: every raise() in a section ran its handler once");
	CHECK_EQ(sum(wrong, N), 0, "raise: each handler ran in its section's context (TLS, pthread_self)");
	CHECK_EQ(sum(before_ret, N), N * RAISES, "raise: each handler ran before raise() returned");
	check_delegated(d, "raise");

	reset();
	d = run_sections(N, kill_self_section);
	CHECK_EQ(sum(runs, N), N, "pthread_kill(self): its handler ran once per section");
	CHECK_EQ(sum(wrong, N), 0, "pthread_kill(self): in the section's context");
	CHECK_EQ(sum(before_ret, N), N, "pthread_kill(self): before pthread_kill returned");
	check_delegated(d, "pthread_kill(self)");
}

/* ---- SIGPIPE from a write in a section ---------------------------------- */

static int pipe_w[MAX_SECTIONS];
static int write_errno[MAX_SECTIONS];

static void pipe_section(int id)
{
	section_self[id] = pthread_self();
	section_started = 1;
	in_call = 1;
	ssize_t r = write(pipe_w[id], "x", 1);
	in_call = 0;
	write_errno[id] = r < 0 ? errno : 0;
}

static void sigpipe(void)
{
	reset();
	signal(SIGPIPE, on_sig);
	for (int i = 0; i < N; i++) {
		int fds[2];
		if (pipe(fds) != 0)
			exit(2);
		close(fds[0]);
		pipe_w[i] = fds[1];
	}
	int d = run_sections(N, pipe_section);
	int epipe = 0;
	for (int i = 0; i < N; i++) {
		epipe += write_errno[i] == EPIPE;
		close(pipe_w[i]);
	}
	CHECK_EQ(epipe, N, "SIGPIPE: a write to a closed pipe in a section fails with EPIPE");
	CHECK_EQ(sum(runs, N), N, "SIGPIPE: its handler ran once per section");
	CHECK_EQ(sum(wrong, N), 0, "SIGPIPE: in the section's context");
	CHECK_EQ(sum(before_ret, N), N, "SIGPIPE: before write() returned");
	check_delegated(d, "SIGPIPE");
	signal(SIGPIPE, SIG_DFL);
}

/* ---- faults in a section ------------------------------------------------ */

static char *guard[MAX_SECTIONS];
static atomic_int segv_ok, segv_wrong;
static __thread sigjmp_buf fpe_env;
static atomic_int fpe_ok, fpe_wrong, mask_kept;
static volatile int zero;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	int id = h_id;
	if (id < 0 || si->si_addr != guard[id] || !pthread_equal(pthread_self(), section_self[id])) {
		atomic_fetch_add(&segv_wrong, 1);
		_exit(3); /* a fault not ours: the section cannot go on */
	}
	/* A guard page, as a JIT or a growable buffer uses it: open it and
	 * let the faulting access run again. */
	mprotect(guard[id], 4096, PROT_READ | PROT_WRITE);
	atomic_fetch_add(&segv_ok, 1);
}

static void on_fpe(int sig)
{
	(void)sig;
	int id = h_id;
	if (id < 0 || !pthread_equal(pthread_self(), section_self[id]))
		atomic_fetch_add(&fpe_wrong, 1);
	siglongjmp(fpe_env, 1);
}

/* The program-visible part of the running thread's signal mask, read raw
 * (no wrapper can send the section home for it): glibc's two internal
 * signals, which a program can never block, left out. */
static uint64_t visible_mask(void)
{
	uint64_t m = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, sizeof m);
	return m & ~((1ull << 31) | (1ull << 32));
}

static uint64_t mask_before[MAX_SECTIONS];

static void fault_section(int id)
{
	section_self[id] = pthread_self();
	guard[id][0] = 1; /* faults once; the handler opens the page */
	if (sigsetjmp(fpe_env, 1) == 0) {
		mask_before[id] = visible_mask();
		volatile int q = 1 / zero;
		(void)q;
	}
	if (visible_mask() == mask_before[id])
		atomic_fetch_add(&mask_kept, 1);
	atomic_fetch_add(&fpe_ok, 1);
}

static void faults(void)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	sigaction(SIGSEGV, &sa, NULL);
	signal(SIGFPE, on_fpe);
	for (int i = 0; i < N; i++) {
		guard[i] = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (guard[i] == MAP_FAILED)
			exit(2);
	}
	int d = run_sections(N, fault_section);
	CHECK_EQ(atomic_load(&segv_ok), N, "SIGSEGV: a fault in a section runs the program's handler, which resumes it");
	CHECK_EQ(atomic_load(&segv_wrong), 0, "SIGSEGV: in the section's context");
	CHECK_EQ(atomic_load(&fpe_ok), N, "SIGFPE: a division by zero in a section reaches its handler, which siglongjmps back");
	CHECK_EQ(atomic_load(&fpe_wrong), 0, "SIGFPE: in the section's context");
	CHECK_EQ(atomic_load(&mask_kept), N, "sigsetjmp/siglongjmp in a section keep the section's own signal mask");
	check_delegated(d, "faults");
	signal(SIGSEGV, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	for (int i = 0; i < N; i++)
		munmap(guard[i], 4096);
}

/* ---- signals to a waiting thread ---------------------------------------- */

static void mark_started(int id)
{
	section_self[id] = pthread_self();
	section_started = 1;
}

static void section_after_wait(int id)
{
	mark_started(id);
}

static void signal_waiters(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++)
		section_self[i] = t[i];
	for (int i = 0; i < n; i++)
		pthread_kill(t[i], SIGUSR1);
	/* Long enough for every handler: they run while the lock is held. */
	for (int i = 0; i < 2000 && sum(runs, n) < n; i++)
		usleep(1000);
}

static void waiting(void)
{
	reset();
	int d = run_sections_hook(N, section_after_wait, signal_waiters);
	CHECK_EQ(sum(runs, N), N, "waiting: a thread waiting for the mutex runs its handler");
	CHECK_EQ(sum(before_sec, N), N, "waiting: while it waits (the lock still held), then the wait goes on");
	CHECK_EQ(sum(wrong, N), 0, "waiting: in its own context");
	check_delegated(d, "waiting");
}

/* ---- a signal to a thread whose section is running --------------------- */

static pthread_t waiters[MAX_SECTIONS];
static atomic_int running[MAX_SECTIONS], got[MAX_SECTIONS], got_in_section[MAX_SECTIONS],
        stop_watch;

static void on_running(int sig)
{
	(void)sig;
	if (h_id >= 0 && pthread_equal(pthread_self(), section_self[h_id]))
		atomic_store(&got[h_id], 1);
}

/* The section waits for its own handler, as a program may wait for a
 * flag its handler sets: under glibc the handler runs while the thread
 * runs its section, wherever that section runs. */
static void waits_for_its_handler(int id)
{
	section_self[id] = pthread_self();
	atomic_store(&running[id], 1);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while (!atomic_load(&got[id]) && t.tv_sec - t0.tv_sec < 3);
	atomic_store(&got_in_section[id], atomic_load(&got[id]));
}

static void *watcher(void *arg)
{
	int n = (int)(intptr_t)arg;
	int sent = 0;
	while (sent < n && !atomic_load(&stop_watch)) {
		for (int i = 0; i < n; i++)
			if (atomic_load(&running[i]) == 1) {
				atomic_store(&running[i], 2);
				pthread_kill(waiters[i], SIGUSR2);
				sent++;
			}
		usleep(100);
	}
	return NULL;
}

static void keep_waiters(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++)
		waiters[i] = t[i];
}

static void running_section(void)
{
	signal(SIGUSR2, on_running);
	memset(running, 0, sizeof running);
	memset(got, 0, sizeof got);
	memset(got_in_section, 0, sizeof got_in_section);
	atomic_store(&stop_watch, 0);
	pthread_t w;
	pthread_create(&w, NULL, watcher, (void *)(intptr_t)N);
	int d = run_sections_hook(N, waits_for_its_handler, keep_waiters);
	atomic_store(&stop_watch, 1);
	pthread_join(w, NULL);
	int ok = 0;
	for (int i = 0; i < N; i++)
		ok += atomic_load(&got_in_section[i]);
	CHECK_EQ(ok, N, "running: a signal to a thread whose section runs reaches its handler during the section, in its context");
	check_delegated(d, "running");
	signal(SIGUSR2, SIG_DFL);
}

/* ---- a handler that sends its section home ------------------------------ */

static atomic_int homed_ok;
static unsigned long long blk_after[MAX_SECTIONS];

static void on_go_home(int sig)
{
	(void)sig;
	/* write() sends a delegated section home, from inside its handler. */
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0 && write(fd, "x", 1) == 1)
		atomic_fetch_add(&homed_ok, 1);
	if (fd >= 0)
		close(fd);
}

static void raises_and_goes_home(int id)
{
	section_self[id] = pthread_self();
	raise(SIGUSR2);
}

/* At home after the section: the thread's mask, as the kernel keeps it,
 * has none of the delegate's batch mask in it (bits 31-32: signals 32, 33). */
static void read_blk_after(int id)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)raw_tid());
	FILE *f = fopen(path, "r");
	blk_after[id] = ~0ull;
	if (!f)
		return;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "SigBlk: %llx", &blk_after[id]) == 1)
			break;
	fclose(f);
}

static void handler_goes_home(void)
{
	signal(SIGUSR2, on_go_home);
	atomic_store(&homed_ok, 0);
	h_epilogue = read_blk_after;
	int d = run_sections(N, raises_and_goes_home);
	h_epilogue = NULL;
	int clean = 0;
	for (int i = 0; i < N; i++)
		clean += (blk_after[i] & (3ull << 31)) == 0;
	CHECK_EQ(atomic_load(&homed_ok), N, "handler goes home: a handler that blocks in I/O runs to its end");
	CHECK_EQ(clean, N, "handler goes home: its thread's mask afterwards blocks none of glibc's internal signals");
	check_delegated(d, "handler goes home");
	signal(SIGUSR2, SIG_DFL);
}

/* ---- a handler on the section's own alternate stack --------------------- */

static char alt_mem[MAX_SECTIONS][65536];
static atomic_int on_own_alt;

static char *alt_guard[MAX_SECTIONS];

/* A fault's handler (as a stack-overflow handler is): it runs where the
 * fault happened, on the alternate stack of the thread it belongs to. */
static void on_alt(int sig)
{
	(void)sig;
	char here;
	int id = h_id;
	if (id < 0)
		_exit(3);
	if (&here >= alt_mem[id] && &here < alt_mem[id] + sizeof alt_mem[id])
		atomic_fetch_add(&on_own_alt, 1);
	mprotect(alt_guard[id], 4096, PROT_READ | PROT_WRITE);
}

static void set_own_altstack(int id)
{
	stack_t ss = { .ss_sp = alt_mem[id], .ss_size = sizeof alt_mem[id] };
	sigaltstack(&ss, NULL);
}

static void fault_on_alt(int id)
{
	section_self[id] = pthread_self();
	alt_guard[id][0] = 1;
}

static void drop_altstack(int id)
{
	(void)id;
	stack_t off = { .ss_flags = SS_DISABLE };
	sigaltstack(&off, NULL);
}

static void altstack(void)
{
	struct sigaction sa = { .sa_handler = on_alt, .sa_flags = SA_ONSTACK };
	sigaction(SIGSEGV, &sa, NULL);
	for (int i = 0; i < N; i++)
		alt_guard[i] = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	atomic_store(&on_own_alt, 0);
	h_prologue = set_own_altstack;
	h_epilogue = drop_altstack;
	int d = run_sections(N, fault_on_alt);
	h_prologue = h_epilogue = NULL;
	CHECK_EQ(atomic_load(&on_own_alt), N,
	         "altstack: a fault's SA_ONSTACK handler runs on the section's own alternate stack");
	check_delegated(d, "altstack");
	signal(SIGSEGV, SIG_DFL);
	for (int i = 0; i < N; i++)
		munmap(alt_guard[i], 4096);
}

/* ---- signals to the releasing thread while it runs others' sections ----- */

static atomic_int stop_sender;

static void *sender(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_sender)) {
		pthread_kill(main_thread, SIGUSR1);
		usleep(200);
	}
	return NULL;
}

static void busy_section(int id)
{
	mark_started(id);
	/* Long enough for the sender to hit the releaser mid-section. */
	for (volatile int i = 0; i < 3000000; i++)
		;
}

static void releaser(void)
{
	reset();
	pthread_t s;
	atomic_store(&stop_sender, 0);
	pthread_create(&s, NULL, sender, NULL);
	int d = 0;
	for (int round = 0; round < 4; round++)
		d += run_sections(N, busy_section);
	atomic_store(&stop_sender, 1);
	pthread_join(s, NULL);
	CHECK(atomic_load(&seen_main.runs) > 0, "releaser: signals sent to the releasing thread ran their handler");
	CHECK_EQ(atomic_load(&seen_main.wrong_ctx), 0,
	         "releaser: always in the releaser's own context, never in a section it ran");
	CHECK_EQ(sum(runs, N), 0, "releaser: never in a waiter's");
	check_delegated(d, "releaser");
}

int main(void)
{
	harness_start();
	main_thread = pthread_self();
	struct sigaction sa = { .sa_handler = on_sig };
	sigaction(SIGUSR1, &sa, NULL);
	self_signals();
	sigpipe();
	faults();
	waiting();
	running_section();
	handler_goes_home();
	altstack();
	releaser();
	return check_finish();
}
