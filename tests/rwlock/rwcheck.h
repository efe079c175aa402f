/*
 * rwcheck.h - the preload checker (tests/preload/check.h) plus the name of
 * the rwlock backend serving the process ("none" without lockswap), which
 * every program prints last so run.sh can confirm it.
 */
#ifndef LS_TEST_RWCHECK_H
#define LS_TEST_RWCHECK_H

#include "../preload/check.h"

static const char *rw_backend(void)
{
	const char *(*fn)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "lockswap_rwlock");
	return fn ? fn() : "none";
}

static int rw_finish(void)
{
	printf("# rwlock %s\n", rw_backend());
	return check_finish();
}

#endif
