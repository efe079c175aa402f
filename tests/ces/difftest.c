/*
 * difftest.c SEED [THREADS] [STEPS] - a random program, run the same under
 * any backend.
 *
 * The seed chooses, for each of THREADS threads, STEPS steps; each step
 * takes one of three mutexes (or none) and, inside the critical section,
 * does one thing a real program does there: reads and writes TLS and
 * errno, signals itself (raise, pthread_kill), changes and reads its
 * signal mask, its cancellation state, its name, its nice value or its
 * sigaltstack, takes a second lock (in order) or a rwlock, waits on a
 * condvar, writes and reads a pipe, forks, creates a thread, faults on a
 * guard page, sets the rounding mode, sleeps, calls gettid... Each step
 * writes what it observed to its thread's log, in a form that does not
 * depend on how threads interleave, so that every run of one seed prints
 * the same lines under any correct lock: tests/ces/difftest.py runs each
 * seed under futex and under ces and compares the output byte for byte.
 * What the kernel attributes to the running kernel thread (the rows of
 * docs/delegation.md that are the releaser's: raw thread ids, CPU time,
 * the CPU number) is never printed.
 *
 * Built against stock pthreads, never linked to lockswap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 8
#define MAX_STEPS 400
#define LOG_BYTES (64 * 1024)
#define LOCKS 3

static pthread_mutex_t locks[LOCKS] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	                                PTHREAD_MUTEX_INITIALIZER };
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long shared[LOCKS]; /* protected by locks[i] */
static long expected[LOCKS];
static atomic_long started;

/* Per thread, in TLS: it must follow the thread's own code wherever a
 * section runs. */
static __thread int me = -1;
static __thread long tls_value;
static __thread volatile int usr1_seen, usr2_seen;
static __thread char *log_buf;
static __thread size_t log_len;
static __thread sigjmp_buf fault_env;
static __thread char *guard;
static __thread pid_t my_tid;

static char logs[MAX_THREADS][LOG_BYTES];
static size_t log_lens[MAX_THREADS];

static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(log_buf + log_len, LOG_BYTES - log_len, fmt, ap);
	va_end(ap);
	if (n > 0 && log_len + (size_t)n < LOG_BYTES)
		log_len += (size_t)n;
}

/* xorshift64*: the seed's stream, one per thread. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static void on_usr1(int sig) { (void)sig; usr1_seen++; }
static void on_usr2(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	/* The code a handler sees is glibc's: SI_TKILL for pthread_kill. */
	usr2_seen += si->si_code == SI_TKILL ? 1 : 1000;
}
static void on_segv(int sig) { (void)sig; siglongjmp(fault_env, 1); }

static uint64_t visible_mask(void)
{
	sigset_t s;
	pthread_sigmask(SIG_BLOCK, NULL, &s);
	uint64_t m = 0;
	for (int i = 1; i < 32; i++)
		if (sigismember(&s, i))
			m |= 1ull << i;
	return m;
}

static void *child_thread(void *arg) { return (void *)((intptr_t)arg * 3 + 1); }

/* One thing done inside (or outside) a critical section. */
static void act(int what, uint64_t r, int step)
{
	switch (what) {
	case 0: { /* TLS and errno survive the lock call */
		tls_value = (long)(r % 1000) + me;
		errno = (int)(r % 100) + 1;
		int e = errno;
		say("tls %ld errno %d\n", tls_value - me, e == (int)(r % 100) + 1);
		break;
	}
	case 1: { /* raise: the handler runs, in this thread, before raise returns */
		int before = usr1_seen;
		raise(SIGUSR1);
		say("raise %d\n", usr1_seen - before);
		break;
	}
	case 2: { /* pthread_kill(self) */
		int before = usr2_seen;
		pthread_kill(pthread_self(), SIGUSR2);
		say("kill-self %d\n", usr2_seen - before);
		break;
	}
	case 3: { /* the signal mask: block, read, restore */
		sigset_t s, old;
		sigemptyset(&s);
		sigaddset(&s, SIGUSR2);
		pthread_sigmask(SIG_BLOCK, &s, &old);
		uint64_t m = visible_mask();
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		say("mask %llx %llx\n", (unsigned long long)m, (unsigned long long)visible_mask());
		break;
	}
	case 4: { /* cancellation state */
		int old, older;
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
		pthread_setcancelstate(old, &older);
		say("cancelstate %d %d\n", old, older);
		break;
	}
	case 5: { /* a second lock, taken in order */
		int j = (int)(r % LOCKS);
		pthread_mutex_lock(&locks[j]);
		shared[j]++;
		pthread_mutex_unlock(&locks[j]);
		say("nested\n");
		break;
	}
	case 6: { /* rwlock, read or write */
		if (r & 1)
			pthread_rwlock_rdlock(&rw);
		else
			pthread_rwlock_wrlock(&rw);
		pthread_rwlock_unlock(&rw);
		say("rwlock\n");
		break;
	}
	case 7: { /* a pipe: write, then read back */
		int fds[2];
		char c = (char)('a' + r % 26), got = 0;
		if (pipe(fds) == 0) {
			ssize_t w = write(fds[1], &c, 1);
			ssize_t n = read(fds[0], &got, 1);
			close(fds[0]);
			close(fds[1]);
			say("pipe %zd %zd %d\n", w, n, got == c);
		}
		break;
	}
	case 8: { /* fork: the child is a copy of this thread */
		pid_t p = fork();
		if (p == 0)
			_exit((int)((tls_value + me) & 0x7f));
		int st = 0;
		waitpid(p, &st, 0);
		say("fork %d\n", WIFEXITED(st) && WEXITSTATUS(st) == (int)((tls_value + me) & 0x7f));
		break;
	}
	case 9: { /* a thread, joined */
		pthread_t t;
		void *ret = NULL;
		pthread_create(&t, NULL, child_thread, (void *)(intptr_t)step);
		pthread_join(t, &ret);
		say("thread %ld\n", (long)(intptr_t)ret);
		break;
	}
	case 10: { /* a fault on a guard page, recovered by siglongjmp */
		if (sigsetjmp(fault_env, 1) == 0) {
			volatile char x = guard[0];
			(void)x;
			say("fault missed\n");
		} else {
			say("fault %llx\n", (unsigned long long)visible_mask());
		}
		break;
	}
	case 11: { /* the rounding mode */
		int modes[4] = { FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO };
		int old = fegetround();
		fesetround(modes[r % 4]);
		volatile double a = 1.0, b = 3.0;
		double q = a / b;
		fesetround(old);
		say("round %a\n", q);
		break;
	}
	case 12: { /* the thread's name */
		char name[16], got[16] = "";
		snprintf(name, sizeof name, "dt%d-%d", me, (int)(r % 100));
		prctl(PR_SET_NAME, name);
		prctl(PR_GET_NAME, got);
		char path[64], comm[32] = "";
		snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)my_tid);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fgets(comm, sizeof comm, f))
				comm[strcspn(comm, "\n")] = 0;
			fclose(f);
		}
		say("name %s %s\n", got, comm);
		break;
	}
	case 13: { /* nice, read back from the kernel's own record of the thread */
		int want = (int)(r % 5);
		setpriority(PRIO_PROCESS, 0, want);
		errno = 0;
		int got = getpriority(PRIO_PROCESS, 0);
		say("nice %d %d\n", want, got);
		break;
	}
	case 14: { /* sigaltstack: set, read, clear */
		static __thread char alt[32768];
		stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt }, cur, off = { .ss_flags = SS_DISABLE };
		sigaltstack(&ss, NULL);
		sigaltstack(NULL, &cur);
		sigaltstack(&off, NULL);
		say("altstack %d\n", cur.ss_sp == alt);
		break;
	}
	case 15: { /* a condvar wait that times out (or is woken): the mutex comes back */
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 200000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		(void)t;
		say("condvar\n");
		break;
	}
	case 16: { /* sleep and yield */
		usleep((useconds_t)(r % 50));
		sched_yield();
		say("sleep\n");
		break;
	}
	case 17: { /* gettid: the thread's own */
		say("gettid %d\n", gettid() == my_tid);
		break;
	}
	case 18: { /* stdio's lock */
		flockfile(stdout);
		funlockfile(stdout);
		say("stdio\n");
		break;
	}
	case 19: { /* a semaphore of its own */
		sem_t s;
		sem_init(&s, 0, 1);
		int a = sem_trywait(&s), b = sem_trywait(&s);
		sem_post(&s);
		sem_destroy(&s);
		say("sem %d %d\n", a, b);
		break;
	}
	}
}

#define ACTS 20

struct plan {
	int id, steps;
	uint64_t seed;
};

static void *run(void *arg)
{
	struct plan *p = arg;
	me = p->id;
	my_tid = gettid();
	log_buf = logs[me];
	log_len = 0;
	guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t s = p->seed * 0x9e3779b97f4a7c15ull + (uint64_t)me + 1;
	atomic_fetch_add(&started, 1);
	for (int step = 0; step < p->steps; step++) {
		uint64_t r = next(&s);
		int lock = (int)(r % (LOCKS + 1)) - 1; /* -1: outside any section */
		int what = (int)((r >> 8) % ACTS);
		uint64_t arg_r = r >> 16;
		say("%d:", step);
		if (lock >= 0) {
			pthread_mutex_lock(&locks[lock]);
			shared[lock]++;
			/* A section long enough for others to queue behind it. */
			for (volatile int i = 0; i < (int)(arg_r % 2000); i++)
				;
			if (what == 15) {
				struct timespec t;
				clock_gettime(CLOCK_REALTIME, &t);
				t.tv_nsec += 100000;
				if (t.tv_nsec >= 1000000000) {
					t.tv_sec++;
					t.tv_nsec -= 1000000000;
				}
				int rc = pthread_cond_timedwait(&cv, &locks[lock], &t);
				say("cv %d ", rc == 0 || rc == ETIMEDOUT);
			}
			/* Nested locks only upwards: no lock-order cycle. */
			if (what == 5)
				arg_r = (uint64_t)(lock + 1 + (int)(arg_r % (LOCKS - lock))) % (LOCKS + 1);
			if (what == 5 && (int)arg_r >= LOCKS) {
				say("nested\n");
			} else if (what == 5 && (int)arg_r <= lock) {
				say("nested\n");
			} else {
				act(what, arg_r, step);
			}
			pthread_mutex_unlock(&locks[lock]);
			atomic_fetch_add((_Atomic long *)&expected[lock], 1 + (what == 5 ? 0 : 0));
		} else {
			act(what, arg_r, step);
		}
	}
	log_lens[me] = log_len;
	munmap(guard, 4096);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: difftest SEED [THREADS] [STEPS]\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[1], NULL, 0);
	int threads = argc > 2 ? atoi(argv[2]) : 4;
	int steps = argc > 3 ? atoi(argv[3]) : 60;
	if (threads < 1 || threads > MAX_THREADS || steps < 1 || steps > MAX_STEPS) {
		fprintf(stderr, "difftest: THREADS 1..%d, STEPS 1..%d\n", MAX_THREADS, MAX_STEPS);
		return 2;
	}
	signal(SIGUSR1, on_usr1);
	struct sigaction sa = { .sa_sigaction = on_usr2, .sa_flags = SA_SIGINFO };
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGSEGV, on_segv);
	pthread_t t[MAX_THREADS];
	struct plan plans[MAX_THREADS];
	for (int i = 0; i < threads; i++) {
		plans[i] = (struct plan){ i, steps, seed };
		pthread_create(&t[i], NULL, run, &plans[i]);
	}
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("seed %llu threads %d steps %d\n", (unsigned long long)seed, threads, steps);
	for (int i = 0; i < threads; i++) {
		printf("== thread %d\n", i);
		fwrite(logs[i], 1, log_lens[i], stdout);
	}
	/* Mutual exclusion: every increment under locks[i] counted once. */
	long total = 0, want = 0;
	for (int i = 0; i < LOCKS; i++)
		total += shared[i];
	for (int i = 0; i < LOCKS; i++)
		want += expected[i];
	printf("increments %s\n", total >= want ? "ok" : "LOST");
	return 0;
}
