/*
 * wrappers.c - the wrappers of calls.def: each sends a delegated critical
 * section home (core/runtime/home.h), then calls glibc's definition.
 *
 * The prototypes are glibc's own (its headers declare them; the
 * _FORTIFY_SOURCE forms are declared below), so a wrapper that disagreed
 * with glibc's type would not compile.
 */
#undef _FORTIFY_SOURCE
#include <aio.h>
#include <fcntl.h>
#include <grp.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/fsuid.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../entry/export.h"
#include "away.h"

/* glibc's _FORTIFY_SOURCE entry points (what a program built with it
 * calls instead of the plain names); glibc declares them only under
 * _FORTIFY_SOURCE. */
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask,
                size_t fdslen);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dir, const char *path, int flags);
int __openat64_2(int dir, const char *path, int flags);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
                       struct sockaddr *addr, socklen_t *len);

/* The NEXTRA words of a variadic call, read in order (one statement each:
 * the order of a call's arguments is unspecified) as unsigned long: on
 * x86-64 every integer or pointer argument is passed in a 64-bit slot, and
 * glibc reads back only what the call's flags ask for. */
#define VA_READ_1 unsigned long a1 = va_arg(ap, unsigned long);
#define VA_PASS_1 a1
#define VA_READ_4                                                        \
	VA_READ_1 unsigned long a2 = va_arg(ap, unsigned long);          \
	unsigned long a3 = va_arg(ap, unsigned long);                    \
	unsigned long a4 = va_arg(ap, unsigned long);
#define VA_PASS_4 a1, a2, a3, a4
#define UNPAREN(...) __VA_ARGS__

#define LS_AWAY(REASON, RET, NAME, PARAMS, ARGS)                         \
	void *_Atomic ls_glibc_##NAME;                                   \
	LS_EXPORT RET NAME PARAMS                                        \
	{                                                                \
		ls_go_home(LS_BACK_##REASON);                            \
		return GLIBC(NAME) ARGS;                                 \
	}
#define LS_AWAY_VOID(REASON, NAME, PARAMS, ARGS)                         \
	void *_Atomic ls_glibc_##NAME;                                   \
	LS_EXPORT void NAME PARAMS                                       \
	{                                                                \
		ls_go_home(LS_BACK_##REASON);                            \
		GLIBC(NAME) ARGS;                                        \
	}
#define LS_AWAY_NORETURN(REASON, NAME, PARAMS, ARGS)                     \
	void *_Atomic ls_glibc_##NAME;                                   \
	LS_EXPORT __attribute__((noreturn)) void NAME PARAMS             \
	{                                                                \
		ls_go_home(LS_BACK_##REASON);                            \
		GLIBC(NAME) ARGS;                                        \
		__builtin_unreachable();                                 \
	}
#define LS_AWAY_VA(REASON, RET, NAME, PARAMS, ARGS, LAST, NEXTRA)        \
	void *_Atomic ls_glibc_##NAME;                                   \
	LS_EXPORT RET NAME PARAMS                                        \
	{                                                                \
		ls_go_home(LS_BACK_##REASON);                            \
		va_list ap;                                              \
		va_start(ap, LAST);                                      \
		VA_READ_##NEXTRA                                         \
		va_end(ap);                                              \
		return GLIBC(NAME)(UNPAREN ARGS, VA_PASS_##NEXTRA);      \
	}
#define LS_AWAY_CUSTOM(REASON, NAME) void *_Atomic ls_glibc_##NAME;
#include "calls.def"
#undef LS_AWAY
#undef LS_AWAY_VOID
#undef LS_AWAY_NORETURN
#undef LS_AWAY_VA
#undef LS_AWAY_CUSTOM

void ls_away_resolve(void)
{
#define RESOLVE(NAME) ls_next_symbol(#NAME, &ls_glibc_##NAME);
#define LS_AWAY(REASON, RET, NAME, PARAMS, ARGS) RESOLVE(NAME)
#define LS_AWAY_VOID(REASON, NAME, PARAMS, ARGS) RESOLVE(NAME)
#define LS_AWAY_NORETURN(REASON, NAME, PARAMS, ARGS) RESOLVE(NAME)
#define LS_AWAY_VA(REASON, RET, NAME, PARAMS, ARGS, LAST, NEXTRA) RESOLVE(NAME)
#define LS_AWAY_CUSTOM(REASON, NAME) RESOLVE(NAME)
#include "calls.def"
}
