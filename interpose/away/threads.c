/*
 * threads.c - thread and process creation from a delegated section: made
 * from the section's own thread, so that the new thread or child inherits
 * that thread's signal mask, name, affinity and scheduling, never its
 * releaser's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../stats/watch.h"
#include "../start/active.h"
#include "../entry/export.h"
#include "away.h"

/* What a new thread runs while the backend delegates: the program's start
 * routine, then, if it returned inside a delegated section (holding a
 * lock), home first, so that its thread_local destructors and key
 * destructors run on its own thread. */
struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *start_then_home(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	void *ret = s.fn(s.arg);
	ls_go_home(LS_BACK_EXIT);
	return ret;
}

LS_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                             void *arg)
{
	ls_go_home(LS_BACK_FORK);
	if (ls_watching())
		ls_watch_thread_create();
	if (!ls_home_delegating)
		return GLIBC(pthread_create)(t, attr, fn, arg);
	struct start *s = malloc(sizeof *s);
	if (!s)
		return EAGAIN;
	s->fn = fn;
	s->arg = arg;
	int r = GLIBC(pthread_create)(t, attr, start_then_home, s);
	if (r != 0)
		free(s);
	return r;
}

/* vfork returns twice on one stack, so it cannot be wrapped by a C
 * function that returns.  This goes home in a call that returns before
 * vfork starts, then jumps to glibc's vfork with the caller's return
 * address where glibc expects it. */
__attribute__((used)) static void vfork_prepare(void)
{
	ls_go_home(LS_BACK_FORK);
	GLIBC(vfork); /* resolved here, before the jump reads the slot */
}

__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork,@function\n"
        "vfork:\n"
        "	subq $8, %rsp\n"
        "	call vfork_prepare\n"
        "	addq $8, %rsp\n"
        "	jmp *ls_glibc_vfork(%rip)\n"
        ".size vfork, .-vfork\n");
