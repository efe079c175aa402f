/*
 * option_hints.h - the checks and hints that make a bad LOCKSWAP_* value's
 * one line point at the fix: the known option name closest to a misspelt
 * one (backend names: backend_hints.h).
 * No malloc, no stdio (options.h).
 */
#ifndef LS_INTERPOSE_OPTION_HINTS_H
#define LS_INTERPOSE_OPTION_HINTS_H

#include <stdbool.h>
#include <stddef.h>

/* The option name (without LOCKSWAP_) closest to name[0..n) by edit
 * distance, or NULL when none is close enough to be a typo of it. */
const char *ls_option_closest(const char *name, size_t n);

#endif
