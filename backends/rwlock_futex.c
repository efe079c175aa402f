/* futex rwlock: the compact futex reader-writer lock (core/rwlock/rwfutex.h). */
#include "rwlock.h"

#include "../core/rwlock/rwfutex.h"

_Static_assert(sizeof(struct ls_rwlock) <= LS_RWLOCK_STATE_BYTES, "futex rwlock fits");
_Static_assert(LS_RW_PREFER_WRITER == LS_RWLOCK_PREFER_WRITER, "the same kind flag");

LS_RWLOCK_ADAPTERS(rwlock)

/* Its trywrlock ignores the kind: a writer's try never waits either way. */
static int rwlock_trywr(void *s, unsigned f) { return ls_rwlock_trywrlock(s); }

const struct ls_rwlock_ops ls_rwlock_backend_futex = {
	.name = "futex",
	.about = "compact futex rwlock: reader or writer preference per kind, no FIFO; spin then park",
	.state_size = sizeof(struct ls_rwlock),
	.rdlock = rwlock_rd, .tryrdlock = rwlock_tryrd, .timedrdlock = rwlock_timedrd,
	.wrlock = rwlock_wr, .trywrlock = rwlock_trywr, .timedwrlock = rwlock_timedwr,
	.unlock = rwlock_unlock,
};
