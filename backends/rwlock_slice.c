/* slice rwlock: lock slices in front of the futex rwlock (core/rwlock/rwslice.h). */
#include "rwlock.h"

#include "../core/rwlock/rwslice.h"

_Static_assert(sizeof(struct ls_rwslice) <= LS_RWLOCK_STATE_BYTES, "slice rwlock fits");
_Static_assert(LS_RW_PREFER_WRITER == LS_RWLOCK_PREFER_WRITER, "the same kind flag");

LS_RWLOCK_ADAPTERS(rwslice)

static int rwslice_trywr(void *s, unsigned f) { return ls_rwslice_trywrlock(s, f); }

const struct ls_rwlock_ops ls_rwlock_backend_slice = {
	.name = "slice",
	.about = "lock slices (LOCKSWAP_SLICE_US of hold time per thread, then the oldest waiter) over the futex rwlock; readers join readers at once",
	.state_size = sizeof(struct ls_rwslice),
	.rdlock = rwslice_rd, .tryrdlock = rwslice_tryrd, .timedrdlock = rwslice_timedrd,
	.wrlock = rwslice_wr, .trywrlock = rwslice_trywr, .timedwrlock = rwslice_timedwr,
	.unlock = rwslice_unlock,
};
