/* single.c - the two words of core/runtime/single.h. */
#include "single.h"

const void *_Atomic ls_single_gate;
const void *_Atomic ls_single_after;
