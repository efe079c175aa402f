/*
 * init.h - start-up: options, glibc bindings, the active backend.
 *
 * Any entry point may be the first call into the library, even before its
 * constructor (a preloaded jemalloc initialises its mutexes from another
 * library's constructor).  So every entry point gets the backend through
 * ls_active(), which runs ls_init() on first use.  ls_init() is idempotent
 * and lock-free: racing threads compute the same result from the same
 * environment and publish it with a release store; nothing is allocated,
 * no lock is held across dlvsym (which takes ld.so's load lock).
 */
#ifndef LS_INTERPOSE_INIT_H
#define LS_INTERPOSE_INIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../backends/backend.h"
#include "../../core/runtime/say.h" /* ls_say: a message line on stderr */
#include "../../stats/hooks.h"
#include "active.h" /* the published backends; ls_observing, ls_hold_due */

/* The selected name as given ("capacitor:tts"), valid once ls_active(). */
#define LS_ACTIVE_NAME_MAX 64
extern char ls_active_name[LS_ACTIVE_NAME_MAX];

const struct ls_lock_ops *ls_init(void);

static inline const struct ls_lock_ops *ls_active(void)
{
	/* acquire: pairs with the release store at the end of ls_init, so the
	 * options, glibc pointers and probed offsets are visible. */
	const struct ls_lock_ops *b =
	        atomic_load_explicit(&ls_active_backend, memory_order_acquire);
	return __builtin_expect(b != NULL, 1) ? b : ls_init();
}

/* Byte offset of glibc's condvar flags word (bit 0 pshared, bit 1 clock):
 * 36 in glibc 2.36, 28 from 2.41; probed at start-up. */
extern size_t ls_cond_flags_offset;

#endif
