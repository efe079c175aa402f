/* capacitor: wraps any native backend (core/wrap/capacitor.h).  State: the
 * capacitor word in bytes 0..7, the inner lock's state from byte 8. */
#include "wrapper.h"

#include "../core/wrap/capacitor.h"

LS_BACKEND_WRAPPER(capacitor, capacitor,
	"capacitor (platoons of LOCKSWAP_BYPASS) around INNER: at most B-1 later arrivals overtake a waiter; the next platoon is woken ahead and spins",
	"tts");
