/*
 * tunables.h - the declarations of the targets that tunables.def names:
 * the core/ headers whose modules own them.  Include this before
 * expanding tunables.def.
 */
#ifndef LS_BACKENDS_TUNABLES_H
#define LS_BACKENDS_TUNABLES_H

#include "../core/mutex/queued.h"
#include "../core/runtime/spin.h"
#include "../core/wrap/capacitor.h"
#include "../core/wrap/restrict.h"
#include "../core/wrap/slice.h"
#include "../core/wrap/slice_share.h"

#endif
