/* slice: wraps any native backend (core/wrap/slice.h).  State: the slice word
 * in bytes 0..7, the inner lock's state from byte 8. */
#include "wrapper.h"

#include "../core/wrap/slice.h"

LS_BACKEND_WRAPPER(slice, slice,
	"lock slices around INNER: a contended lock is owned for LOCKSWAP_SLICE_US of hold time by one thread, then handed to the oldest waiter; open (INNER alone) where slices do not pay",
	"futex");
