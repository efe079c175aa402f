/*
 * own_io.h - the library's own file I/O and signal actions (the
 * statistics' files, lines on stderr), under glibc's exported internal
 * names (__write, __open...).
 *
 * Why not write() and friends: lockswap defines the program's names for
 * them (interpose/away/calls.def: a delegated critical section that
 * blocks goes home first), and the library's own calls must never go
 * through its own entry points (docs/hacking.md, the layer rules).  glibc
 * exports these aliases in its base version on every x86-64 release and
 * lockswap defines none of them, so they always reach glibc.  Same
 * arguments, results and errno as the plain names.
 */
#ifndef LS_CORE_OWN_IO_H
#define LS_CORE_OWN_IO_H

#include <signal.h>
#include <sys/types.h>

ssize_t ls_own_write(int fd, const void *buf, size_t n) __asm__("__write");
ssize_t ls_own_read(int fd, void *buf, size_t n) __asm__("__read");
int ls_own_open(const char *path, int flags, ...) __asm__("__open");
int ls_own_close(int fd) __asm__("__close");
int ls_own_fcntl(int fd, int cmd, ...) __asm__("__fcntl");
int ls_own_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
	__asm__("__sigaction");

#endif
