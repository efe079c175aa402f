/*
 * state.c - what the kernel keeps per thread, changed or read inside a
 * delegated section, acts on the section's own thread as under glibc
 * (docs/delegation.md): credentials, threads and processes it creates,
 * sigaltstack, names, nice, CPU affinity, unshare, its CPU-time clock, its
 * thread id and its cancellation state.  Run under futex and under ces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"

#define N 3

extern char **environ;

static pid_t main_tid;

/* "SigBlk:" of a process or thread, from /proc. */
static unsigned long long sigblk_of(const char *status_path)
{
	char line[256];
	unsigned long long v = ~0ull;
	FILE *f = fopen(status_path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "SigBlk: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

static unsigned long long own_sigblk(void)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)raw_tid());
	return sigblk_of(path);
}

static void comm_of(pid_t tid, char *out, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

static long nice_field(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -100;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	long v = -100;
	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice */
	if (p)
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %ld", &v);
	return v;
}

/* ---- credentials --------------------------------------------------------- */

static uid_t target_euid;
static int cred_rc;
static atomic_int cred_done, cred_seen;

static void cred_section(int id)
{
	if (id == 0) {
		cred_rc = seteuid(target_euid);
		atomic_store(&cred_done, 1);
	}
}

/* This thread's effective uid, as the kernel keeps it for the thread. */
static long own_euid(void)
{
	char path[64], line[256];
	long e = -1;
	snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)raw_tid());
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Uid: %*u %ld", &e) == 1)
			break;
	fclose(f);
	return e;
}

/* After its section, at home: every waiter's own thread has the new euid
 * (glibc's setuid family changes every thread of the process). */
static void cred_after(int id)
{
	(void)id;
	for (int i = 0; i < 5000 && !atomic_load(&cred_done); i++)
		usleep(1000);
	if (own_euid() == (long)target_euid)
		atomic_fetch_add(&cred_seen, 1);
}

static void credentials(void)
{
	/* As root the section drops the effective uid to nobody's; elsewhere
	 * it sets it to what it is, which still makes glibc signal every
	 * thread (the case that livelocked). */
	target_euid = geteuid() == 0 ? 65534 : geteuid();
	h_epilogue = cred_after;
	int d = run_sections(N, cred_section);
	h_epilogue = NULL;
	CHECK_EQ(cred_rc, 0, "credentials: seteuid() in a section returns 0 (no livelock)");
	CHECK_EQ(atomic_load(&cred_seen), N, "credentials: every waiter's own thread has the euid set in a section");
	CHECK_EQ(own_euid(), (long)target_euid, "credentials: and the releasing thread too");
	if (target_euid != geteuid() || getuid() == 0)
		seteuid(getuid());
	check_delegated(d, "credentials");
}

/* ---- threads created in a section ---------------------------------------- */

struct child_seen {
	unsigned long long sigblk;
	char comm[32];
	long nice;
	int cpus;
};
static struct child_seen child[MAX_SECTIONS], parent[MAX_SECTIONS];

static void *child_main(void *arg)
{
	struct child_seen *c = arg;
	c->sigblk = own_sigblk();
	comm_of(raw_tid(), c->comm, sizeof c->comm);
	c->nice = nice_field(raw_tid());
	cpu_set_t set;
	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof set, &set);
	c->cpus = CPU_COUNT(&set);
	return NULL;
}

static void thread_section(int id)
{
	pthread_t t;
	if (pthread_create(&t, NULL, child_main, &child[id]) == 0)
		pthread_join(t, NULL);
}

static void threads(void)
{
	memset(child, 0, sizeof child);
	/* Each waiter gets a name, a nice value and a CPU of its own before
	 * it locks (at home), and its child must inherit them, not the
	 * releaser's. */
	int d = run_sections(N, thread_section);
	int mask_ok = 0, name_ok = 0, nice_ok = 0, cpus_ok = 0;
	for (int i = 0; i < N; i++) {
		mask_ok += child[i].sigblk == parent[i].sigblk;
		name_ok += strcmp(child[i].comm, parent[i].comm) == 0;
		nice_ok += child[i].nice == parent[i].nice;
		cpus_ok += child[i].cpus == parent[i].cpus;
	}
	CHECK_EQ(mask_ok, N, "threads: a thread created in a section starts with its creator's signal mask");
	CHECK_EQ(name_ok, N, "threads: and its creator's name");
	CHECK_EQ(nice_ok, N, "threads: and its creator's nice value");
	CHECK_EQ(cpus_ok, N, "threads: and its creator's CPU affinity");
	check_delegated(d, "threads");
}

/* The waiter's own settings, made at home before it locks: run by the
 * harness's threads through this section's prologue. */
static void personalise(int id)
{
	char name[16];
	snprintf(name, sizeof name, "waiter%d", id);
	prctl(PR_SET_NAME, name);
	setpriority(PRIO_PROCESS, 0, 1 + id);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof one, &one);
	parent[id].sigblk = own_sigblk();
	comm_of(raw_tid(), parent[id].comm, sizeof parent[id].comm);
	parent[id].nice = nice_field(raw_tid());
	parent[id].cpus = 1;
}

/* ---- processes created in a section -------------------------------------- */

static unsigned long long spawn_blk[4][MAX_SECTIONS];
static unsigned long long home_blk[MAX_SECTIONS];

static unsigned long long read_child_blk(int fd)
{
	char buf[64] = { 0 };
	ssize_t n = read(fd, buf, sizeof buf - 1);
	unsigned long long v = ~0ull;
	if (n > 0)
		sscanf(buf, "%llx", &v);
	return v;
}

/* The child prints its SigBlk: sed reads its own, which is the shell's
 * (exec keeps the mask), which is what the section's call gave the
 * child.  (Read from the shell itself, the mask could be one the shell
 * sets briefly for its own use.) */
#define SHOW_BLK "exec sed -n 's/^SigBlk:[[:space:]]*//p' /proc/self/status"

/* The waiter's own mask, read at home before it locks. */
static void read_home_blk(int id)
{
	home_blk[id] = own_sigblk();
}

static void process_section(int id)
{
	int fds[2];
	/* posix_spawn */
	if (pipe(fds) == 0) {
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
		char *argv[] = { "sh", "-c", SHOW_BLK, NULL };
		pid_t pid;
		if (posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ) == 0) {
			close(fds[1]);
			spawn_blk[0][id] = read_child_blk(fds[0]);
			waitpid(pid, NULL, 0);
		} else {
			close(fds[1]);
		}
		close(fds[0]);
		posix_spawn_file_actions_destroy(&fa);
	}
	/* popen */
	FILE *p = popen(SHOW_BLK, "r");
	if (p) {
		spawn_blk[1][id] = read_child_blk(fileno(p));
		pclose(p);
	}
	/* vfork + exec */
	if (pipe(fds) == 0) {
		pid_t pid = vfork();
		if (pid == 0) {
			dup2(fds[1], 1);
			execl("/bin/sh", "sh", "-c", SHOW_BLK, (char *)NULL);
			_exit(127);
		}
		close(fds[1]);
		spawn_blk[2][id] = read_child_blk(fds[0]);
		close(fds[0]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	/* system: the child writes to a file */
	char path[64], cmd[160];
	snprintf(path, sizeof path, "/tmp/lockswap-ces-state-%d-%d", (int)getpid(), id);
	snprintf(cmd, sizeof cmd, SHOW_BLK " > %s", path);
	if (system(cmd) == 0) {
		int fd = open(path, O_RDONLY);
		if (fd >= 0) {
			spawn_blk[3][id] = read_child_blk(fd);
			close(fd);
		}
	}
	unlink(path);
}

static void processes(void)
{
	memset(spawn_blk, 0xff, sizeof spawn_blk);
	h_prologue = read_home_blk;
	int d = run_sections(N, process_section);
	h_prologue = NULL;
	const char *how[4] = { "posix_spawn", "popen", "vfork", "system" };
	for (int k = 0; k < 4; k++) {
		int ok = 0;
		for (int i = 0; i < N; i++) {
			ok += spawn_blk[k][i] == home_blk[i];
			if (spawn_blk[k][i] != home_blk[i])
				printf("# %s, section %d: child's SigBlk %llx, creator's %llx\n",
				       how[k], i, spawn_blk[k][i], home_blk[i]);
		}
		char what[128];
		snprintf(what, sizeof what, "processes: a child started by %s in a section has its creator's signal mask",
		         how[k]);
		CHECK_EQ(ok, N, what);
	}
	check_delegated(d, "processes");
}

/* ---- sigaltstack, names, nice, unshare, clocks, tid, cancel state --------- */

static char alt[MAX_SECTIONS][65536];
static int alt_home_ok[MAX_SECTIONS], name_ok[MAX_SECTIONS], nice_ok[MAX_SECTIONS];
static int clock_ok[MAX_SECTIONS], tid_ok[MAX_SECTIONS], cancel_ok[MAX_SECTIONS];
static int unshared_fd[MAX_SECTIONS];

static void misc_section(int id)
{
	stack_t ss = { .ss_sp = alt[id], .ss_size = sizeof alt[id] };
	sigaltstack(&ss, NULL);
	char name[16];
	snprintf(name, sizeof name, "sect%d", id);
	if (id % 2)
		pthread_setname_np(pthread_self(), name);
	else
		prctl(PR_SET_NAME, name);
	setpriority(PRIO_PROCESS, 0, 5);
	clockid_t c;
	pthread_getcpuclockid(pthread_self(), &c);
	clock_ok[id] = (pid_t)~(c >> 3) == h_home[id];
	tid_ok[id] = gettid() == h_home[id];
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	if (unshare(CLONE_FILES) == 0)
		unshared_fd[id] = open("/dev/null", O_RDONLY);
	else
		unshared_fd[id] = -2;
}

static void misc_after(int id)
{
	/* At home, after the section: what it set is this thread's. */
	stack_t cur;
	alt_home_ok[id] = sigaltstack(NULL, &cur) == 0 && cur.ss_sp == alt[id];
	char name[16], want[16];
	snprintf(want, sizeof want, "sect%d", id);
	comm_of(raw_tid(), name, sizeof name);
	name_ok[id] = strcmp(name, want) == 0;
	nice_ok[id] = nice_field(raw_tid()) == 5;
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	cancel_ok[id] = old == PTHREAD_CANCEL_DISABLE;
}

static void misc(void)
{
	char main_name[32];
	comm_of(main_tid, main_name, sizeof main_name);
	long main_nice = nice_field(main_tid);
	int d = run_sections(N, misc_section);
	int alt = 0, nm = 0, nc = 0, ck = 0, td = 0, cs = 0, fd_isolated = 0;
	for (int i = 0; i < N; i++) {
		alt += alt_home_ok[i];
		nm += name_ok[i];
		nc += nice_ok[i];
		ck += clock_ok[i];
		td += tid_ok[i];
		cs += cancel_ok[i];
		/* The file was opened in the section's own, unshared table. */
		if (unshared_fd[i] >= 0)
			fd_isolated += fcntl(unshared_fd[i], F_GETFD) == -1 || unshared_fd[i] > 64;
		else
			fd_isolated += unshared_fd[i] == -2;
	}
	CHECK_EQ(alt, N, "sigaltstack: set in a section, it is the section's own thread's");
	stack_t cur;
	CHECK(sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE),
	      "sigaltstack: the releasing thread has none");
	CHECK_EQ(nm, N, "names: pthread_setname_np(self) / PR_SET_NAME in a section name its own thread");
	char now[32];
	comm_of(main_tid, now, sizeof now);
	CHECK(strcmp(now, main_name) == 0, "names: the releasing thread keeps its name");
	CHECK_EQ(nc, N, "nice: setpriority(PRIO_PROCESS, 0) in a section sets its own thread's");
	CHECK_EQ(nice_field(main_tid), main_nice, "nice: the releasing thread's is unchanged");
	CHECK_EQ(ck, N, "clocks: pthread_getcpuclockid(pthread_self()) in a section is its own thread's");
	CHECK_EQ(td, N, "gettid() in a section is its own thread's");
	CHECK_EQ(cs, N, "cancel state: pthread_setcancelstate in a section lasts after it");
	CHECK_EQ(fd_isolated, N, "unshare: unshare(CLONE_FILES) in a section unshares its own thread's table");
	check_delegated(d, "misc");
}

int main(void)
{
	harness_start();
	main_tid = raw_tid();
	credentials();
	h_prologue = personalise;
	threads();
	h_prologue = NULL;
	processes();
	h_epilogue = misc_after;
	misc();
	h_epilogue = NULL;
	return check_finish();
}
