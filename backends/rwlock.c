#include "rwlock.h"

#include <string.h>

#include "../core/rwlock/bravo.h"
#include "../core/rwlock/rwlock.h"

_Static_assert(sizeof(struct ls_rwlock) <= LS_RWLOCK_STATE_BYTES, "futex rwlock fits");
_Static_assert(sizeof(struct ls_bravo) <= LS_RWLOCK_STATE_BYTES, "bravo rwlock fits");

/* One-line adapters from `void *` state to each core lock's verbs. */
#define LS_RWLOCK_FROM_CORE(algo)                                                          \
	static int algo##_rd(void *s, unsigned f) { return ls_##algo##_rdlock(s, f); }      \
	static int algo##_tryrd(void *s, unsigned f) { return ls_##algo##_tryrdlock(s, f); } \
	static int algo##_timedrd(void *s, unsigned f, clockid_t c, const struct timespec *t) \
	{                                                                                     \
		return ls_##algo##_timedrdlock(s, f, c, t);                                   \
	}                                                                                     \
	static int algo##_wr(void *s, unsigned f) { return ls_##algo##_wrlock(s, f); }      \
	static int algo##_timedwr(void *s, unsigned f, clockid_t c, const struct timespec *t) \
	{                                                                                     \
		return ls_##algo##_timedwrlock(s, f, c, t);                                   \
	}                                                                                     \
	static void algo##_unlock(void *s, unsigned f) { ls_##algo##_unlock(s, f); }

LS_RWLOCK_FROM_CORE(rwlock)
LS_RWLOCK_FROM_CORE(bravo)

static int rwlock_trywr(void *s, unsigned f) { return ls_rwlock_trywrlock(s); }
static int bravo_trywr(void *s, unsigned f) { return ls_bravo_trywrlock(s, f); }

static const struct ls_rwlock_ops rw_glibc = {
	.name = "glibc",
	.about = "pass-through to glibc's own pthread_rwlock functions (the A/B baseline)",
};

static const struct ls_rwlock_ops rw_futex = {
	.name = "futex",
	.about = "compact futex rwlock: reader or writer preference per kind, no FIFO; spin then park",
	.state_size = sizeof(struct ls_rwlock),
	.rdlock = rwlock_rd, .tryrdlock = rwlock_tryrd, .timedrdlock = rwlock_timedrd,
	.wrlock = rwlock_wr, .trywrlock = rwlock_trywr, .timedwrlock = rwlock_timedwr,
	.unlock = rwlock_unlock,
};

static const struct ls_rwlock_ops rw_bravo = {
	.name = "bravo",
	.about = "BRAVO reader bias over the futex rwlock: readers announce in a global table; writers revoke, re-bias after 9x the revocation time",
	.state_size = sizeof(struct ls_bravo),
	.rdlock = bravo_rd, .tryrdlock = bravo_tryrd, .timedrdlock = bravo_timedrd,
	.wrlock = bravo_wr, .trywrlock = bravo_trywr, .timedwrlock = bravo_timedwr,
	.unlock = bravo_unlock,
};

_Atomic unsigned ls_rwlock_choice;

const struct ls_rwlock_ops *const ls_rwlock_backends[] = { &rw_glibc, &rw_futex, &rw_bravo, NULL };

const struct ls_rwlock_ops *ls_rwlock_backend_find(const char *name)
{
	for (const struct ls_rwlock_ops *const *p = ls_rwlock_backends; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}
