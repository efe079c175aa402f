#include "real.h"

#include <dlfcn.h>
#include <stddef.h>

struct ls_real ls_real;

/* Newest ABI first; dlvsym allocates only when it fails (glibc 2.36). */
static void *find(const char *name, const char *v1, const char *v2)
{
	void *p = dlvsym(RTLD_NEXT, name, v1);
	if (!p && v2)
		p = dlvsym(RTLD_NEXT, name, v2);
	return p;
}

bool ls_real_resolve(const char **missing)
{
	struct ls_real r;
#define GET(field, name, v1, v2)                                   \
	do {                                                       \
		*(void **)&r.field = find(name, v1, v2);           \
		if (!r.field) {                                    \
			*missing = name;                           \
			return false;                              \
		}                                                  \
	} while (0)
	GET(mutex_timedlock, "pthread_mutex_timedlock", "GLIBC_2.34", "GLIBC_2.2.5");
	GET(mutex_clocklock, "pthread_mutex_clocklock", "GLIBC_2.34", "GLIBC_2.30");
	GET(cond_init, "pthread_cond_init", "GLIBC_2.3.2", NULL);
	GET(cond_destroy, "pthread_cond_destroy", "GLIBC_2.3.2", NULL);
	GET(cond_wait, "pthread_cond_wait", "GLIBC_2.3.2", NULL);
	GET(cond_timedwait, "pthread_cond_timedwait", "GLIBC_2.3.2", NULL);
	GET(cond_clockwait, "pthread_cond_clockwait", "GLIBC_2.34", "GLIBC_2.30");
	GET(cond_signal, "pthread_cond_signal", "GLIBC_2.3.2", NULL);
	GET(cond_broadcast, "pthread_cond_broadcast", "GLIBC_2.3.2", NULL);
#undef GET
	ls_real = r;
	return true;
}
