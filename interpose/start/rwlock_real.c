#include "rwlock_real.h"

#include <dlfcn.h>
#include <stddef.h>

struct ls_real_rwlock ls_real_rwlock;

/* Newest ABI first; dlvsym allocates only when it fails (glibc 2.36). */
static void *find(const char *name, const char *old)
{
	void *p = dlvsym(RTLD_NEXT, name, "GLIBC_2.34");
	return p ? p : dlvsym(RTLD_NEXT, name, old);
}

bool ls_rwlock_real_resolve(void)
{
	struct ls_real_rwlock r;
	*(void **)&r.timedrdlock = find("pthread_rwlock_timedrdlock", "GLIBC_2.2.5");
	*(void **)&r.timedwrlock = find("pthread_rwlock_timedwrlock", "GLIBC_2.2.5");
	*(void **)&r.clockrdlock = find("pthread_rwlock_clockrdlock", "GLIBC_2.30");
	*(void **)&r.clockwrlock = find("pthread_rwlock_clockwrlock", "GLIBC_2.30");
	ls_real_rwlock = r;
	return r.timedrdlock && r.timedwrlock && r.clockrdlock && r.clockwrlock;
}
