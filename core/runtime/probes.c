/* probes.c - the USDT semaphore of core/runtime/probes.h.  In ".probes",
 * where sdt.h's convention puts semaphores and tracers look for them. */
#include "probes.h"

volatile unsigned short ls_probe_semaphore __attribute__((section(".probes"), used));

#define LS_PROBE_SEMAPHORE_ALIAS(name, n)                                                  \
	extern volatile unsigned short lockswap_##name##_semaphore                         \
	        __attribute__((alias("ls_probe_semaphore")));
LS_PROBE_LIST(LS_PROBE_SEMAPHORE_ALIAS)
