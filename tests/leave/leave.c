/*
 * leave.c - waiters that leave a lock's queue without finishing, and the
 * misuse glibc survives (issue 10).  Built against stock pthreads and run
 * under LD_PRELOAD=liblockswap.so for every backend (tests/leave/run.sh).
 *
 *   leave WAY POSITION [ITERATIONS] [-o BUSY_THREADS]
 *
 * One case per run.  Seven waiters queue one at a time behind a holder
 * (each is asleep before the next starts); the one at POSITION (head =
 * first, middle = fourth, tail = seventh) leaves in the way WAY, the holder
 * lets go, and then:
 *   - every survivor gets the mutex, and a counter incremented without
 *     atomics inside the critical section adds up (mutual exclusion);
 *   - trylock succeeds on the free mutex (no queue position left behind);
 *   - destroy, re-init and lock work.
 * Ways (cond* ways queue on a condvar and are woken one signal each):
 *   timedlock clocklock condtimed  the leaver times out
 *   condcancel                     deferred cancellation in a cond wait
 *   asynclock asynctimed asynccond asynchronous cancellation while blocked
 *   selfdead   the holder locks its own default mutex again with async
 *              cancellation on and is cancelled; its cleanup handler
 *              unlocks.  POSITION "alone" is issue 10's exact case (no one
 *              else queued, varied cancel timing, then another thread locks
 *              it or it is destroyed and re-initialised first)
 *   exit       the waiter, once it holds the mutex, exits without unlocking;
 *              another thread unlocks it (tolerated, as in glibc)
 *   fork       the waiter forks while it holds the mutex, with threads
 *              queued behind it and others hammering the mutex and condvar;
 *              the child must unlock, lock, trylock, wait on and destroy them
 * Misuse (POSITION "none"): unlocked (unlock an unlocked default mutex),
 * nonowner (a thread that does not hold it unlocks a default mutex with
 * waiters queued); errorcheck and recursive mutexes return EPERM as glibc.
 * -o N adds N busy threads (oversubscription).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "queue.h"

enum way { TIMEDLOCK, CLOCKLOCK, CONDTIMED, CONDCANCEL, ASYNCLOCK, ASYNCTIMED, ASYNCCOND,
           SELFDEAD, EXIT, FORK, UNLOCKED, NONOWNER, NWAYS };
static const char *const way_names[NWAYS] = {
	"timedlock", "clocklock", "condtimed", "condcancel", "asynclock", "asynctimed", "asynccond",
	"selfdead", "exit", "fork", "unlocked", "nonowner",
};
static int is_cond(enum way w) { return w == CONDTIMED || w == CONDCANCEL || w == ASYNCCOND; }
static int is_timed(enum way w) { return w == TIMEDLOCK || w == CLOCKLOCK || w == CONDTIMED; }
static int is_misuse(enum way w) { return w == UNLOCKED || w == NONOWNER; }

enum { NW = 7 };      /* waiters queued behind the holder, as in issue 10 */
enum { ROUNDS = 10 }; /* extra lock/unlock rounds per survivor, contended */

struct waiter {
	pthread_t t;
	atomic_int tid, armed, holding, left;
	atomic_int got; /* acquisitions so far (survivors), for hang reports */
	int leaver;     /* this one leaves; the others survive */
	int rc;         /* what the leaver's blocking call returned */
	int cleanup_rc; /* the unlock in its cleanup handler */
	int child_status;
};

static enum way way;
static struct waiter w[NW];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static long counter;   /* incremented without atomics, under m */
static int tokens;     /* cond ways: wake-ups handed out, under m */
static atomic_int go;  /* selfdead: the holder's cue to lock again */
static long leave_ms;  /* timed ways: how long the leaver waits */
static int glibc_serves;

/* Failures of one case, over all its iterations: one ok/FAIL line each. */
static int case_fails, iteration;
static char first_fail[256];

__attribute__((format(printf, 2, 3))) static void expect(int ok, const char *fmt, ...)
{
	if (ok)
		return;
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (case_fails++ == 0)
		snprintf(first_fail, sizeof first_fail, "iteration %d: %s", iteration, msg);
	if (case_fails <= 5)
		printf("# iteration %d: %s\n", iteration, msg);
}

/* Read, pause, write: two threads inside at once lose an increment. */
static void critical(void)
{
	long v = counter;
	__asm__ volatile("" ::: "memory");
	for (volatile int i = 0; i < 30; i++)
		;
	__asm__ volatile("" ::: "memory");
	counter = v + 1;
}

static void rounds(atomic_int *got)
{
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&m);
		critical();
		atomic_fetch_add(got, 1);
		pthread_mutex_unlock(&m);
	}
}

static void survive(struct waiter *me)
{
	if (is_cond(way)) {
		pthread_mutex_lock(&m);
		atomic_store(&me->armed, 1);
		while (tokens == 0)
			pthread_cond_wait(&c, &m);
		tokens--;
	} else {
		atomic_store(&me->armed, 1);
		pthread_mutex_lock(&m);
	}
	critical();
	atomic_fetch_add(&me->got, 1);
	pthread_mutex_unlock(&m);
	rounds(&me->got);
}

static void cleanup_unlock(void *arg)
{
	((struct waiter *)arg)->cleanup_rc = pthread_mutex_unlock(&m);
}

static void async_cancel_on(void)
{
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
}

static void fork_child(void);

/* The leaver: blocks at its place in the queue and leaves in the way
 * under test.  The cancelled ones never return from here. */
static void leave(struct waiter *me)
{
	struct timespec d;
	switch (way) {
	case TIMEDLOCK:
		d = deadline_in(CLOCK_REALTIME, leave_ms);
		atomic_store(&me->armed, 1);
		me->rc = pthread_mutex_timedlock(&m, &d);
		break;
	case CLOCKLOCK:
		d = deadline_in(CLOCK_MONOTONIC, leave_ms);
		atomic_store(&me->armed, 1);
		me->rc = pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &d);
		break;
	case CONDTIMED:
		pthread_mutex_lock(&m);
		d = deadline_in(CLOCK_REALTIME, leave_ms);
		atomic_store(&me->armed, 1);
		while ((me->rc = pthread_cond_timedwait(&c, &m, &d)) == 0)
			; /* spurious: no token is ever handed to the leaver */
		pthread_mutex_unlock(&m);
		break;
	case CONDCANCEL:
	case ASYNCCOND:
		pthread_mutex_lock(&m);
		pthread_cleanup_push(cleanup_unlock, me);
		if (way == ASYNCCOND)
			async_cancel_on();
		atomic_store(&me->armed, 1);
		for (;;)
			pthread_cond_wait(&c, &m);
		pthread_cleanup_pop(0);
		break;
	case ASYNCLOCK:
	case ASYNCTIMED:
		async_cancel_on();
		atomic_store(&me->armed, 1);
		d = deadline_in(CLOCK_REALTIME, 60000);
		/* The holder keeps m until this thread is gone: getting it is a bug. */
		me->rc = way == ASYNCLOCK ? pthread_mutex_lock(&m) : pthread_mutex_timedlock(&m, &d);
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, NULL);
		if (me->rc == 0)
			pthread_mutex_unlock(&m);
		me->rc = me->rc ? me->rc : -1;
		break;
	case SELFDEAD:
		pthread_mutex_lock(&m);
		atomic_store(&me->holding, 1);
		while (!atomic_load(&go))
			usleep(100);
		pthread_cleanup_push(cleanup_unlock, me);
		async_cancel_on();
		atomic_store(&me->armed, 1);
		pthread_mutex_lock(&m); /* a default mutex: blocks on itself */
		pthread_cleanup_pop(0);
		break;
	case EXIT:
		atomic_store(&me->armed, 1);
		pthread_mutex_lock(&m);
		critical();
		pthread_exit(NULL); /* still holding m */
	case FORK:
		atomic_store(&me->armed, 1);
		pthread_mutex_lock(&m);
		critical();
		pid_t pid = fork();
		if (pid == 0)
			fork_child();
		pthread_mutex_unlock(&m);
		if (pid < 0 || waitpid(pid, &me->child_status, 0) != pid)
			me->child_status = -1;
		break;
	default:
		break;
	}
}

static void *waiter_main(void *arg)
{
	struct waiter *me = arg;
	atomic_store(&me->tid, gettid());
	if (me->leaver)
		leave(me);
	else
		survive(me);
	atomic_store(&me->left, 1);
	return NULL;
}

static void start(int i, int leaver)
{
	w[i].leaver = leaver;
	if (pthread_create(&w[i].t, NULL, waiter_main, &w[i]) != 0)
		hang("pthread_create failed");
}

/* --- fork: the child inherits m held by its only thread and c, both with
 * waiters (now ghosts) queued; it must be able to use and destroy them. --- */
static int child_bad;
#define CHILD_EXPECT(cond) \
	do { if (!(cond)) { child_bad++; fprintf(stderr, "fork child: %s failed\n", #cond); } } while (0)

static atomic_int child_got;

static void *child_thread(void *arg)
{
	rounds(&child_got);
	return NULL;
}

static void fork_child(void)
{
	alarm(2); /* a hang in the child kills it with SIGALRM (before HANG_MS) */
	CHILD_EXPECT(pthread_mutex_unlock(&m) == 0); /* held by the forking thread */
	CHILD_EXPECT(pthread_mutex_lock(&m) == 0);   /* not handed to a ghost */
	struct timespec d = deadline_in(CLOCK_REALTIME, 2);
	int rc;
	while ((rc = pthread_cond_timedwait(&c, &m, &d)) == 0)
		;
	CHILD_EXPECT(rc == ETIMEDOUT);
	CHILD_EXPECT(pthread_mutex_unlock(&m) == 0);
	CHILD_EXPECT(pthread_mutex_trylock(&m) == 0);
	CHILD_EXPECT(pthread_mutex_unlock(&m) == 0);
	CHILD_EXPECT(pthread_cond_signal(&c) == 0);
	CHILD_EXPECT(pthread_cond_broadcast(&c) == 0);
	pthread_t t;
	CHILD_EXPECT(pthread_create(&t, NULL, child_thread, NULL) == 0);
	rounds(&child_got);
	pthread_join(t, NULL);
	/* glibc counts a thread in a cond wait as a user of the mutex
	 * (__nusers), so a ghost cond waiter makes glibc's destroy say EBUSY;
	 * and glibc's cond destroy waits for the parent's waiters, which never
	 * leave (glibc-facts.md 5).  lockswap must do both. */
	rc = pthread_mutex_destroy(&m);
	CHILD_EXPECT(rc == 0 || (glibc_serves && rc == EBUSY));
	if (!glibc_serves)
		CHILD_EXPECT(pthread_cond_destroy(&c) == 0);
	_exit(child_bad ? 1 : 0);
}

/* Other threads hammer m and c while the fork cases run, so that forks
 * find waiters of every kind on both. */
static atomic_int hammer_stop;
static int hammer_tokens;
static pthread_t hammers[4];

static void *hammer_lock(void *arg)
{
	while (!atomic_load(&hammer_stop)) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *hammer_wait(void *arg)
{
	pthread_mutex_lock(&m);
	while (!atomic_load(&hammer_stop)) {
		struct timespec d = deadline_in(CLOCK_REALTIME, 20);
		if (pthread_cond_timedwait(&c, &m, &d) == 0 && hammer_tokens > 0)
			hammer_tokens--;
	}
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *hammer_signal(void *arg)
{
	while (!atomic_load(&hammer_stop)) {
		pthread_mutex_lock(&m);
		hammer_tokens++;
		pthread_cond_signal(&c);
		pthread_mutex_unlock(&m);
		usleep(200);
	}
	return NULL;
}

static void hammers_start(void)
{
	void *(*fn[4])(void *) = {hammer_lock, hammer_lock, hammer_wait, hammer_signal};
	for (int i = 0; i < 4; i++)
		pthread_create(&hammers[i], NULL, fn[i], NULL);
}

static void hammers_stop(void)
{
	atomic_store(&hammer_stop, 1);
	for (int i = 0; i < 4; i++)
		join_bounded(hammers[i], "a thread hammering the mutex");
}

/* --- after each case: m (and c) free, usable, reusable --- */
static void check_reusable(void)
{
	int rc = pthread_mutex_trylock(&m);
	expect(rc == 0, "trylock on the free mutex returned %d (a queue position was left behind)", rc);
	if (rc != 0) { /* broken: go on with a fresh one */
		pthread_mutex_init(&m, NULL);
		pthread_cond_init(&c, NULL);
		return;
	}
	expect(pthread_mutex_unlock(&m) == 0, "unlock after trylock failed");
	rc = pthread_mutex_destroy(&m);
	/* glibc counts users (__nusers): an unlock of an unlocked mutex
	 * leaves it at -1 and destroy then says EBUSY.  Either is fine. */
	expect(rc == 0 || (way == UNLOCKED && rc == EBUSY), "destroy returned %d", rc);
	pthread_mutex_init(&m, NULL);
	lock_bounded(&m, "lock after destroy and re-init");
	if (is_cond(way)) {
		struct timespec d = deadline_in(CLOCK_REALTIME, 1);
		while ((rc = pthread_cond_timedwait(&c, &m, &d)) == 0)
			;
		expect(rc == ETIMEDOUT, "cond timedwait with no signaller returned %d", rc);
		expect(pthread_cond_destroy(&c) == 0, "cond destroy failed");
		pthread_cond_init(&c, NULL);
	}
	pthread_mutex_unlock(&m);
}

static void *unlock_m(void *arg)
{
	return (void *)(long)pthread_mutex_unlock(&m);
}

/* A survivor that does not finish: say how far each one got, which tells
 * "never handed the lock" from "got it, then found it busy forever". */
static void join_survivor(int i, int lead)
{
	struct timespec d = deadline_in(CLOCK_REALTIME, HANG_MS);
	if (pthread_timedjoin_np(w[i].t, NULL, &d) == 0)
		return;
	char got[128] = "";
	int len = 0;
	for (int k = 0; k < NW; k++)
		len += snprintf(got + len, sizeof got - len, k == lead ? " -" : " %d", atomic_load(&w[k].got));
	hang("survivor %d (leaver at %d of %d queued) never finished; acquisitions of %d each:%s", i, lead, NW,
	     1 + ROUNDS, got);
}

/* One iteration: queue NW waiters, the one at index `lead` leaves, the
 * holder lets go, the survivors must all get through. */
static void one_round(int lead)
{
	char who[64];
	counter = 0;
	tokens = 0;
	atomic_store(&go, 0);
	for (int i = 0; i < NW; i++)
		memset(&w[i], 0, sizeof w[i]);

	if (way == UNLOCKED) {
		expect(pthread_mutex_unlock(&m) == 0, "unlock of an unlocked default mutex did not return 0");
		lock_bounded(&m, "lock after unlocking an unlocked mutex");
		pthread_mutex_unlock(&m);
		expect(pthread_mutex_unlock(&m) == 0, "second unlock of an unlocked default mutex did not return 0");
	}
	/* The holder: the self-deadlocking leaver, or this thread. */
	if (way == SELFDEAD) {
		start(lead, 1);
		struct timespec end = deadline_in(CLOCK_MONOTONIC, HANG_MS);
		while (!atomic_load(&w[lead].holding))
			if (past(&end))
				hang("the self-deadlocking thread never got the free mutex");
			else
				usleep(50);
	} else if (!is_cond(way)) {
		lock_bounded(&m, "the holder's lock");
	}
	for (int i = 0; i < NW; i++) {
		if (way == SELFDEAD && i == lead)
			atomic_store(&go, 1);
		else
			start(i, i == lead && !is_misuse(way));
		if (!wait_parked(&w[i].tid, &w[i].armed))
			printf("# iteration %d: waiter %d did not go to sleep; position approximate\n", iteration, i);
	}
	if (is_timed(way) && lead < NW - 1 && atomic_load(&w[lead].left)) {
		printf("# iteration %d: the leaver timed out before the queue was complete; waiting longer next time\n", iteration);
		leave_ms *= 2;
	}

	/* The leaver leaves. */
	snprintf(who, sizeof who, "the leaving waiter (%s)", way_names[way]);
	if (is_timed(way)) {
		join_bounded(w[lead].t, who);
		expect(w[lead].rc == ETIMEDOUT, "the leaver's wait returned %d, not ETIMEDOUT", w[lead].rc);
	} else if (way == CONDCANCEL || way == ASYNCCOND || way == ASYNCLOCK || way == ASYNCTIMED || way == SELFDEAD) {
		/* For the cond ways, hold m while cancelling: the cancelled waiter
		 * must queue on the mutex to re-take it for its cleanup handler.
		 * For the lock ways the holder lets go only once the leaver is
		 * gone (joined): an unlock racing with the cancel loses its
		 * wake-up even in glibc (the futex wake can pick the dying
		 * waiter), and lock is not async-cancel-safe in POSIX. */
		if (is_cond(way))
			lock_bounded(&m, "lock to cancel a cond waiter");
		pthread_cancel(w[lead].t);
		if (is_cond(way)) {
			usleep(1000);
			pthread_mutex_unlock(&m);
		}
		void *res = join_bounded(w[lead].t, who);
		expect(res == PTHREAD_CANCELED, "the leaver was not cancelled (its call returned %d)", w[lead].rc);
		if (way != ASYNCLOCK && way != ASYNCTIMED)
			expect(w[lead].cleanup_rc == 0, "unlock in the cancelled thread's cleanup handler returned %d (mutex not held?)",
			       w[lead].cleanup_rc);
	}

	/* The holder lets go. */
	if (way == NONOWNER) {
		pthread_t t;
		pthread_create(&t, NULL, unlock_m, NULL);
		long rc = (long)join_bounded(t, "the non-owner's unlock");
		expect(rc == 0, "unlock of a default mutex by a non-owner returned %ld", rc);
	} else if (!is_cond(way) && way != SELFDEAD) {
		expect(pthread_mutex_unlock(&m) == 0, "the holder's unlock failed");
	}
	if (is_cond(way)) {
		for (int i = 0; i < NW - 1; i++) { /* one signal per survivor */
			lock_bounded(&m, "lock to signal");
			tokens++;
			pthread_cond_signal(&c);
			pthread_mutex_unlock(&m);
		}
	}
	if (way == EXIT) {
		join_bounded(w[lead].t, "the waiter that exits holding the mutex");
		/* glibc leaves the mutex locked by the dead thread and lets any
		 * thread unlock a default mutex: the survivors go on. */
		expect(pthread_mutex_unlock(&m) == 0, "unlock of a mutex held by an exited thread returned non-zero");
	}

	for (int i = 0; i < NW; i++)
		if (!w[i].leaver || way == FORK) /* the other leavers were joined above */
			join_survivor(i, lead);
	if (way == FORK) {
		int st = w[lead].child_status;
		expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork child %s (status %#x)",
		       WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM ? "hung" : "failed its checks", st);
	}
	long want = (long)(NW - 1) * (1 + ROUNDS) + (way == EXIT || way == FORK);
	if (is_misuse(way))
		want = (long)NW * (1 + ROUNDS);
	expect(counter == want, "counter %ld, want %ld: mutual exclusion broken", counter, want);
	if (way != FORK) /* the hammers hold it at any time; checked after */
		check_reusable();
}

/* Issue 10's self-deadlock as reported: no one else queued, cancelled at
 * varied moments (before it blocks, while it spins, once it sleeps), then
 * another thread locks it, or it is destroyed and re-initialised first. */
static void selfdead_alone(void)
{
	counter = 0;
	memset(&w[0], 0, sizeof w[0]);
	atomic_store(&go, 1);
	start(0, 1);
	struct timespec end = deadline_in(CLOCK_MONOTONIC, HANG_MS);
	while (!atomic_load(&w[0].armed))
		if (past(&end))
			hang("the self-deadlocking thread never got the free mutex");
		else
			sched_yield(); /* stay close: case 0 cancels as soon as it arms */
	switch (iteration % 3) {
	case 0:
		break;
	case 1:
		for (volatile int i = 0, n = rand() % 5000; i < n; i++)
			;
		break;
	case 2:
		wait_parked(&w[0].tid, &w[0].armed);
		break;
	}
	pthread_cancel(w[0].t);
	void *res = join_bounded(w[0].t, "the cancelled self-deadlocked thread");
	expect(res == PTHREAD_CANCELED, "the self-deadlocked thread was not cancelled");
	expect(w[0].cleanup_rc == 0, "unlock in its cleanup handler returned %d", w[0].cleanup_rc);
	if (iteration % 2) {
		expect(pthread_mutex_destroy(&m) == 0, "destroy after the cancelled self-deadlock failed");
		pthread_mutex_init(&m, NULL);
	}
	memset(&w[1], 0, sizeof w[1]);
	start(1, 0);
	join_bounded(w[1].t, "a thread locking the mutex after the cancelled self-deadlock");
	expect(counter == 1 + ROUNDS, "counter %ld, want %d", counter, 1 + ROUNDS);
	check_reusable();
}

/* --- errorcheck and recursive mutexes: what glibc does --- */
static pthread_mutex_t km;

static void kind_init(int kind)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, kind);
	pthread_mutex_init(&km, &a);
	pthread_mutexattr_destroy(&a);
}

static void *km_unlock(void *arg) { return (void *)(long)pthread_mutex_unlock(&km); }
static void *km_trylock(void *arg) { return (void *)(long)pthread_mutex_trylock(&km); }
static void *km_exit_holding(void *arg) { return (void *)(long)pthread_mutex_lock(&km); }

static long in_thread(void *(*fn)(void *))
{
	pthread_t t;
	pthread_create(&t, NULL, fn, NULL);
	return (long)join_bounded(t, "a helper thread");
}

static void kinds(void)
{
	static const struct { int kind; const char *name; } k[] = {
		{PTHREAD_MUTEX_ERRORCHECK, "errorcheck"}, {PTHREAD_MUTEX_RECURSIVE, "recursive"}};
	char what[160];
	for (int i = 0; i < 2; i++) {
		kind_init(k[i].kind);
		if (way == UNLOCKED) {
			snprintf(what, sizeof what, "leave %s: %s unlock of an unlocked mutex: EPERM, still usable", case_name, k[i].name);
			int rc = pthread_mutex_unlock(&km);
			int ok = rc == EPERM && pthread_mutex_trylock(&km) == 0 && pthread_mutex_unlock(&km) == 0;
			check_report(ok, what, "unlock returned %d", rc);
		} else if (way == NONOWNER) {
			snprintf(what, sizeof what, "leave %s: %s unlock by a non-owner: EPERM, still held", case_name, k[i].name);
			pthread_mutex_lock(&km);
			long rc = in_thread(km_unlock), busy = in_thread(km_trylock);
			int ok = rc == EPERM && busy == EBUSY && pthread_mutex_unlock(&km) == 0;
			check_report(ok, what, "unlock returned %ld, trylock %ld", rc, busy);
		} else if (way == EXIT) {
			/* Not robust: the dead owner keeps it; no one else may unlock it. */
			snprintf(what, sizeof what, "leave %s: %s mutex whose holder exited: EBUSY, EPERM", case_name, k[i].name);
			long rc = in_thread(km_exit_holding);
			int busy = pthread_mutex_trylock(&km), un = pthread_mutex_unlock(&km);
			check_report(rc == 0 && busy == EBUSY && un == EPERM, what, "lock %ld, trylock %d, unlock %d", rc, busy, un);
			continue; /* stays locked forever, as in glibc: not destroyed */
		}
		pthread_mutex_destroy(&km);
	}
}

static int position(const char *s)
{
	if (!strcmp(s, "head"))
		return 0;
	if (!strcmp(s, "middle"))
		return NW / 2;
	if (!strcmp(s, "tail"))
		return NW - 1;
	if (!strcmp(s, "alone") && way == SELFDEAD)
		return -1;
	if (!strcmp(s, "none") && is_misuse(way))
		return 0;
	return -2;
}

int main(int argc, char **argv)
{
	int busy = 0, opt;
	while ((opt = getopt(argc, argv, "o:")) != -1)
		busy = opt == 'o' ? atoi(optarg) : busy;
	way = NWAYS;
	for (int i = 0; optind < argc && i < NWAYS; i++)
		if (!strcmp(argv[optind], way_names[i]))
			way = i;
	int pos = way < NWAYS && optind + 1 < argc ? position(argv[optind + 1]) : -2;
	int iterations = optind + 2 < argc ? atoi(argv[optind + 2]) : 1;
	if (pos == -2 || iterations < 1) {
		fprintf(stderr, "usage: leave WAY POSITION [ITERATIONS] [-o BUSY_THREADS]\n"
		                "  WAY: timedlock clocklock condtimed condcancel asynclock asynctimed asynccond\n"
		                "       selfdead exit fork (POSITION head, middle, tail; selfdead also alone)\n"
		                "       unlocked nonowner (POSITION none)\n");
		return 2;
	}
	snprintf(case_name, sizeof case_name, "%s/%s", argv[optind], argv[optind + 1]);
	glibc_serves = !strcmp(check_backend(), "glibc") || !strcmp(check_backend(), "none");
	printf("# leave %s, %d iteration(s), %d busy threads, backend %s\n", case_name, iterations, busy, check_backend());
	fflush(stdout);

	hogs_start(busy);
	if ((way == EXIT && pos == 0) || is_misuse(way)) /* position-independent: once */
		kinds();
	/* Head and middle leavers must outlast the queue built behind them. */
	leave_ms = pos == NW - 1 ? 10 : 100;
	if (way == FORK)
		hammers_start();
	for (iteration = 0; iteration < iterations; iteration++) {
		if (pos < 0)
			selfdead_alone();
		else
			one_round(pos);
	}
	if (way == FORK) {
		hammers_stop();
		check_reusable();
	}
	hogs_stop_all();

	char what[200];
	snprintf(what, sizeof what, "leave %s: %d iteration(s): survivors all locked, exclusion held, mutex free and reusable",
	         case_name, iterations);
	check_report(case_fails == 0, what, "%d failure(s); first: %s", case_fails, first_fail);
	return check_finish();
}
