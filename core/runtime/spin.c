#include "spin.h"

_Atomic unsigned ls_spin_limit = LS_SPIN_ADAPTIVE;
