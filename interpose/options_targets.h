/*
 * options_targets.h - the headers that declare the TARGET variables named in
 * options.def.  Add the header of a new option's target here.
 */
#include "../core/spin.h"
#include "../core/capacitor.h"
#include "../core/restrict.h"
#include "../core/slice.h"
#include "../core/queued.h"
#include "options.h"
#include "rwlock.h"
