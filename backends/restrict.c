/* restrict: wraps any native backend (core/wrap/restrict.h).  State: the
 * restrict word in bytes 0..7, the inner lock's state from byte 8. */
#include "wrapper.h"

#include "../core/wrap/restrict.h"

LS_BACKEND_WRAPPER(restrict, restrict,
	"concurrency restriction around INNER: LOCKSWAP_RESTRICT_ACTIVE threads circulate, the rest park FIFO; one is rotated in after at most LOCKSWAP_RESTRICT_ROTATE fast admissions",
	"mcs");
