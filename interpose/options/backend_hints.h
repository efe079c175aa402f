/*
 * backend_hints.h - LOCKSWAP_BACKEND's check with a did-you-mean for a
 * misspelt backend or inner lock (closest.h).  No malloc, no stdio
 * streams.
 */
#ifndef LS_INTERPOSE_BACKEND_HINTS_H
#define LS_INTERPOSE_BACKEND_HINTS_H

#include <stdbool.h>
#include <stddef.h>

/* True if name selects a backend, else false with ls_backend_select's
 * reason in why, plus "did you mean NAME?" when a part of the name is
 * unknown and close to a listed one ("futx", "slice:futx"). */
bool ls_backend_check(const char *name, char *why, size_t len);

#endif
