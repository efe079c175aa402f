/* state.c - the switches of state.h, defined at the bottom of stats/ so
 * that every file may read them without depending on the file that sets
 * them (table.c configures the mode, dump.c serves the helper request). */
#include "state.h"

_Atomic unsigned ls_stats_mode __attribute__((aligned(64)));
_Atomic unsigned ls_stats_top = 10;
_Atomic unsigned ls_stats_sample = 16;
/* hold_left 1: no block yet, the first lock takes the hooks' path (quick.h). */
__thread struct ls_stats_quick ls_stats_q __attribute__((tls_model("initial-exec"))) = {
	.hold_left = 1,
};
_Atomic int ls_stats_helper_wanted;
