/*
 * special.c - robust, priority-inherit, priority-protect and process-shared
 * objects are glibc's for their whole life, and still work; lockswap's own
 * condvar works with a robust mutex (EOWNERDEAD passes through).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static pthread_mutex_t robust;

static void *die_holding(void *a)
{
	pthread_mutex_lock(&robust);
	return NULL; /* exits with the robust mutex held */
}

static void robust_test(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	CHECK_ERR(pthread_mutex_init(&robust, &a), 0, "robust: init");
	pthread_mutexattr_destroy(&a);
	pthread_t t;
	pthread_create(&t, NULL, die_holding, NULL);
	pthread_join(t, NULL);
	CHECK_ERR(pthread_mutex_lock(&robust), EOWNERDEAD, "robust: lock after owner died -> EOWNERDEAD");
	CHECK_ERR(pthread_mutex_consistent(&robust), 0, "robust: consistent");
	CHECK_ERR(pthread_mutex_unlock(&robust), 0, "robust: unlock");
	CHECK_ERR(pthread_mutex_lock(&robust), 0, "robust: relock");
	/* lockswap's condvar with a glibc-served mutex. */
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec d = deadline_in(CLOCK_REALTIME, 5);
	CHECK_ERR(pthread_cond_timedwait(&c, &robust, &d), ETIMEDOUT, "robust + cond: timedwait -> ETIMEDOUT");
	CHECK_ERR(pthread_mutex_unlock(&robust), 0, "robust + cond: mutex held after the wait");
	CHECK_ERR(pthread_mutex_destroy(&robust), 0, "robust: destroy");
}

static void protocol_test(int protocol, const char *name)
{
	pthread_mutex_t m;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, protocol);
	if (protocol == PTHREAD_PRIO_PROTECT)
		pthread_mutexattr_setprioceiling(&a, sched_get_priority_min(SCHED_FIFO));
	int r = pthread_mutex_init(&m, &a);
	pthread_mutexattr_destroy(&a);
	char what[128];
	snprintf(what, sizeof what, "%s: init", name);
	CHECK_ERR(r, 0, what);
	/* glibc may refuse a PP lock (EINVAL when the ceiling cannot be
	 * applied, as in this sandbox); whatever it says, it must be glibc's
	 * answer, with its state untouched by lockswap. */
	r = pthread_mutex_lock(&m);
	snprintf(what, sizeof what, "%s: lock answered by glibc (0, or EINVAL for a refused ceiling)", name);
	CHECK(r == 0 || (protocol == PTHREAD_PRIO_PROTECT && r == EINVAL), what);
	if (r == 0) {
		snprintf(what, sizeof what, "%s: trylock by owner -> EBUSY", name);
		CHECK_ERR(pthread_mutex_trylock(&m), EBUSY, what);
		snprintf(what, sizeof what, "%s: unlock", name);
		CHECK_ERR(pthread_mutex_unlock(&m), 0, what);
	}
	int ceiling = -1;
	r = pthread_mutex_getprioceiling(&m, &ceiling);
	snprintf(what, sizeof what, "%s: getprioceiling (glibc's own, not interposed)", name);
	CHECK_ERR(r, protocol == PTHREAD_PRIO_PROTECT ? 0 : EINVAL, what);
	snprintf(what, sizeof what, "%s: destroy", name);
	CHECK_ERR(pthread_mutex_destroy(&m), 0, what);
}

/* A process-shared mutex + condvar in shared memory, used by two processes. */
struct shm {
	pthread_mutex_t m;
	pthread_cond_t c;
	int ready;
};

static void pshared_test(void)
{
	struct shm *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	CHECK_ERR(pthread_mutex_init(&s->m, &ma), 0, "pshared: mutex init");
	CHECK_ERR(pthread_cond_init(&s->c, &ca), 0, "pshared: cond init");
	pid_t pid = fork();
	if (pid == 0) {
		usleep(20000);
		pthread_mutex_lock(&s->m);
		s->ready = 1;
		pthread_cond_signal(&s->c);
		pthread_mutex_unlock(&s->m);
		_exit(0);
	}
	pthread_mutex_lock(&s->m);
	int r = 0;
	struct timespec d = deadline_in(CLOCK_REALTIME, 10000);
	while (!s->ready && r == 0)
		r = pthread_cond_timedwait(&s->c, &s->m, &d);
	pthread_mutex_unlock(&s->m);
	CHECK(s->ready && r == 0, "pshared: woken across processes");
	waitpid(pid, NULL, 0);
	/* A process-shared condvar with a private mutex would make glibc's
	 * wait corrupt lockswap's mutex: lockswap refuses with EINVAL. */
	pthread_mutex_t priv = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&priv);
	d = deadline_in(CLOCK_REALTIME, 5);
	r = pthread_cond_timedwait(&s->c, &priv, &d);
	if (strcmp(check_backend(), "glibc") == 0 || strcmp(check_backend(), "none") == 0)
		CHECK_ERR(r, ETIMEDOUT, "pshared cond + private glibc mutex: glibc allows it");
	else
		CHECK_ERR(r, EINVAL, "pshared cond + private lockswap mutex -> EINVAL");
	pthread_mutex_unlock(&priv);
	CHECK_ERR(pthread_cond_destroy(&s->c), 0, "pshared: cond destroy");
	CHECK_ERR(pthread_mutex_destroy(&s->m), 0, "pshared: mutex destroy");
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
}

int main(void)
{
	printf("# special under backend %s\n", check_backend());
	robust_test();
	protocol_test(PTHREAD_PRIO_INHERIT, "prio-inherit");
	protocol_test(PTHREAD_PRIO_PROTECT, "prio-protect");
	pshared_test();
	return check_finish();
}
