#include "twa.h"
#include "cold.h"

struct ls_twa_bucket ls_twa_table[LS_TWA_BUCKETS] __attribute__((aligned(4096))) LS_COLD_BSS;
