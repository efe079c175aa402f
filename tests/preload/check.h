/*
 * check.h - a minimal checker for the preload test programs.  These programs
 * are built against stock pthreads (never linked to lockswap) and run under
 * LD_PRELOAD for every backend, so they cannot use cmocka (cmocka itself
 * would run on the interposed locks; that is fine, but a plain checker keeps
 * failures readable in every backend's log).
 *
 * Each CHECK prints "ok - what" or "FAIL - what: detail"; main returns
 * check_finish(), non-zero when anything failed.
 */
#ifndef LS_TEST_CHECK_H
#define LS_TEST_CHECK_H

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../deadline.h"

static int check_failed, check_passed;

static void check_report(int ok, const char *what, const char *fmt, ...)
{
	if (ok) {
		check_passed++;
		printf("ok - %s\n", what);
	} else {
		check_failed++;
		printf("FAIL - %s: ", what);
		va_list ap;
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

#define CHECK(cond, what) check_report(!!(cond), what, "%s is false (%s:%d)", #cond, __FILE__, __LINE__)
#define CHECK_EQ(got, want, what)                                                         \
	do {                                                                              \
		long long g_ = (long long)(got), w_ = (long long)(want);                  \
		check_report(g_ == w_, what, "got %lld, want %lld (%s:%d)", g_, w_,       \
		             __FILE__, __LINE__);                                         \
	} while (0)
#define CHECK_ERR(got, want, what)                                                        \
	do {                                                                              \
		int g_ = (got), w_ = (want);                                              \
		check_report(g_ == w_, what, "got %d (%s), want %d (%s) (%s:%d)", g_,     \
		             strerror(g_), w_, strerror(w_), __FILE__, __LINE__);         \
	} while (0)

/* Which implementation serves this process: the name of lockswap's active
 * backend, or "none" when the library is not preloaded. */
static const char *check_backend(void)
{
	const char *(*fn)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "lockswap_backend");
	return fn ? fn() : "none";
}

static int check_finish(void)
{
	printf("# %d passed, %d failed (backend %s)\n", check_passed, check_failed, check_backend());
	return check_failed ? 1 : 0;
}

#endif
