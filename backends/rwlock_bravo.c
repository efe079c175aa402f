/* bravo: BRAVO reader bias over the futex rwlock (core/rwlock/bravo.h). */
#include "rwlock.h"

#include "../core/rwlock/bravo.h"

_Static_assert(sizeof(struct ls_bravo) <= LS_RWLOCK_STATE_BYTES, "bravo rwlock fits");
_Static_assert(LS_RW_PREFER_WRITER == LS_RWLOCK_PREFER_WRITER, "the same kind flag");

LS_RWLOCK_ADAPTERS(bravo)

static int bravo_trywr(void *s, unsigned f) { return ls_bravo_trywrlock(s, f); }

const struct ls_rwlock_ops ls_rwlock_backend_bravo = {
	.name = "bravo",
	.about = "BRAVO reader bias over the futex rwlock: readers announce in a global table; writers revoke, re-bias after 9x the revocation time",
	.state_size = sizeof(struct ls_bravo),
	.rdlock = bravo_rd, .tryrdlock = bravo_tryrd, .timedrdlock = bravo_timedrd,
	.wrlock = bravo_wr, .trywrlock = bravo_trywr, .timedwrlock = bravo_timedwr,
	.unlock = bravo_unlock,
};
