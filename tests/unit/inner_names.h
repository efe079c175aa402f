/*
 * inner_names.h - the wrapped backends' names a wrapper test runs its
 * checks under: one per inner lock of backends/wrapper_inners.h, the list
 * the wrappers build their own tables from, so that a new inner lock is
 * tested under every wrapper.  The includer defines WRAPPER ("capacitor",
 * "restrict", "slice") and gets inners[] = { WRAPPER ":futex", ... } and
 * NINNERS.
 */
#ifndef LS_TEST_INNER_NAMES_H
#define LS_TEST_INNER_NAMES_H

#define LS_WRAPPER_INNER(name, algo) WRAPPER ":" #name,
static const char *const inners[] = {
#include "../../backends/wrapper_inners.h"
};
#undef LS_WRAPPER_INNER
#define NINNERS (sizeof inners / sizeof inners[0])

#endif
