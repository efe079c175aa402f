/*
 * options_targets.h - the headers that declare the TARGET variables named in
 * options.def.  Add the header of a new option's target here.
 */
#include "../core/runtime/spin.h"
#include "../core/wrap/capacitor.h"
#include "../core/wrap/restrict.h"
#include "../core/wrap/slice.h"
#include "../core/mutex/queued.h"
#include "options.h"
#include "rwlock.h"
