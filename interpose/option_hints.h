/*
 * option_hints.h - the checks and hints that make a bad LOCKSWAP_* value's
 * one line point at the fix: the known name closest to a misspelt one.
 * No malloc, no stdio (options.h).
 */
#ifndef LS_INTERPOSE_OPTION_HINTS_H
#define LS_INTERPOSE_OPTION_HINTS_H

#include <stdbool.h>
#include <stddef.h>

/* The option name (without LOCKSWAP_) closest to name[0..n) by edit
 * distance, or NULL when none is close enough to be a typo of it. */
const char *ls_option_closest(const char *name, size_t n);

/* LOCKSWAP_BACKEND's check: true if name selects a backend, else false
 * with ls_backend_select's reason in why, plus "did you mean NAME?" when
 * a part of the name is unknown and close to a listed one ("futx",
 * "slice:futx"). */
bool ls_backend_check(const char *name, char *why, size_t len);

#endif
