/*
 * forkps.c - rwlocks across fork(), and process-shared rwlocks.
 *   - fork with a write lock, a read lock held by the forking thread and a
 *     read lock held by another thread: in the child the forking thread's
 *     locks still work (unlock, relock); the other thread's read lock stays
 *     held (trywrlock EBUSY), as with glibc;
 *   - a PTHREAD_PROCESS_SHARED rwlock in shared memory is glibc's: parent
 *     and child exclude each other through it, and its bytes are glibc's
 *     (__cur_writer = the writer's TID), whatever the backend.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rwcheck.h"

static pthread_rwlock_t W = PTHREAD_RWLOCK_INITIALIZER, R = PTHREAD_RWLOCK_INITIALIZER,
                        O = PTHREAD_RWLOCK_INITIALIZER;
static _Atomic int holding, release_it;

static void *other_reader(void *a)
{
	pthread_rwlock_rdlock(&O);
	holding = 1;
	while (!release_it)
		usleep(1000);
	pthread_rwlock_unlock(&O);
	return NULL;
}

/* Runs in the child; exit status = the first step that failed, or 0.
 * glibc answers a write unlock from a thread whose TID differs from the
 * parent's __cur_writer as a read unlock, so the forking thread's write
 * lock cannot be released in a glibc child; lockswap's owner id survives
 * fork (docs/rwlock.md), as for recursive mutexes.  Those steps are
 * checked under lockswap's own backends only. */
static int child_checks(bool glibc)
{
	int bad = 0;
	if (!glibc && pthread_rwlock_unlock(&W) != 0)
		bad = 1;
	if (!glibc && !bad && pthread_rwlock_trywrlock(&W) != 0)
		bad = 2;
	if (!glibc && !bad && pthread_rwlock_unlock(&W) != 0)
		bad = 3;
	if (!bad && pthread_rwlock_unlock(&R) != 0)
		bad = 4;
	if (!bad && pthread_rwlock_trywrlock(&R) != 0)
		bad = 5;
	if (!bad && pthread_rwlock_unlock(&R) != 0)
		bad = 6;
	if (!bad && pthread_rwlock_trywrlock(&O) != EBUSY)
		bad = 7;
	if (!bad && pthread_rwlock_tryrdlock(&O) != 0)
		bad = 8;
	if (!bad && pthread_rwlock_unlock(&O) != 0)
		bad = 9;
	return bad;
}

static void fork_with_locks_held(void)
{
	pthread_t t;
	pthread_create(&t, NULL, other_reader, NULL);
	while (!holding)
		usleep(1000);
	/* R is read twice: once the slow way, once (BRAVO) biased. */
	CHECK_ERR(pthread_rwlock_wrlock(&W), 0, "parent: wrlock W");
	CHECK_ERR(pthread_rwlock_rdlock(&R), 0, "parent: rdlock R");
	CHECK_ERR(pthread_rwlock_unlock(&R), 0, "parent: unlock R");
	CHECK_ERR(pthread_rwlock_rdlock(&R), 0, "parent: rdlock R again");
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_checks(strcmp(rw_backend(), "glibc") == 0 || strcmp(rw_backend(), "none") == 0));
	int status = -1;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child: forking thread's write and read locks work; another thread's read lock stays held");
	release_it = 1;
	pthread_join(t, NULL);
	CHECK_ERR(pthread_rwlock_unlock(&W), 0, "parent: unlock W");
	CHECK_ERR(pthread_rwlock_unlock(&R), 0, "parent: unlock R");
	CHECK_ERR(pthread_rwlock_trywrlock(&O), 0, "parent: O free after the other thread left");
	pthread_rwlock_unlock(&O);
}

struct shm {
	pthread_rwlock_t l;
	_Atomic int inside, violations, child_done;
};

static void process_shared(void)
{
	struct shm *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	CHECK_ERR(pthread_rwlock_init(&s->l, &a), 0, "pshared: init");
	pthread_rwlockattr_destroy(&a);
	CHECK_ERR(pthread_rwlock_wrlock(&s->l), 0, "pshared: wrlock");
	int32_t cur_writer;
	memcpy(&cur_writer, (char *)&s->l + 24, sizeof cur_writer);
	CHECK_EQ(cur_writer, gettid(), "pshared: glibc's __cur_writer holds our TID (served by glibc)");
	CHECK_ERR(pthread_rwlock_unlock(&s->l), 0, "pshared: unlock");
	pid_t pid = fork();
	for (int i = 0; i < 2000; i++) {
		pthread_rwlock_wrlock(&s->l);
		if (s->inside++ != 0)
			s->violations++;
		s->inside--;
		pthread_rwlock_unlock(&s->l);
		pthread_rwlock_rdlock(&s->l);
		pthread_rwlock_unlock(&s->l);
	}
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	CHECK_EQ(s->violations, 0, "pshared: parent and child writers excluded each other");
	CHECK_ERR(pthread_rwlock_destroy(&s->l), 0, "pshared: destroy");
	munmap(s, sizeof *s);
}

int main(void)
{
	fork_with_locks_held();
	process_shared();
	return rw_finish();
}
