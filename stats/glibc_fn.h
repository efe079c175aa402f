/*
 * glibc_fn.h - glibc's own definitions of the names lockswap itself
 * defines (interpose/away/), for the statistics' own use: the library never
 * calls its own entry points (docs/hacking.md, the layer rules).  Looked up
 * past lockswap (dlsym RTLD_NEXT) on first use; file I/O uses glibc's
 * internal names instead (core/runtime/own_io.h).
 */
#ifndef LS_STATS_GLIBC_FN_H
#define LS_STATS_GLIBC_FN_H

#include <pthread.h>

/* glibc's pthread_create, or NULL if it cannot be found. */
typedef int (*ls_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
ls_create_fn ls_stats_glibc_create(void);

/* glibc's pthread_setname_np (NULL if absent). */
typedef int (*ls_setname_fn)(pthread_t, const char *);
ls_setname_fn ls_stats_glibc_setname(void);

/* glibc's abort(). */
__attribute__((noreturn)) void ls_stats_glibc_abort(void);

#endif
