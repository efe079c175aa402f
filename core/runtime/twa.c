#include "twa.h"

struct ls_twa_bucket ls_twa_table[LS_TWA_BUCKETS] __attribute__((aligned(4096)));
