/* tts: test-and-test-and-set lock with parked-waiter count (core/mutex/tts.h). */
#include "backend.h"

#include "../core/mutex/tts.h"

LS_BACKEND_FROM_CORE(tts, tts,
	"test-and-test-and-set; spins LOCKSWAP_SPIN polls on a load then parks; unfair, no bypass bound");
