/*
 * closest.h - how far apart two names are, for the did-you-mean hints of
 * the options (option_hints.h) and the backends (backend_hints.h).
 * No malloc, no stdio.
 */
#ifndef LS_INTERPOSE_CLOSEST_H
#define LS_INTERPOSE_CLOSEST_H

#include <stdbool.h>
#include <stddef.h>

/* Names longer than this get no hint. */
#define LS_HINT_NAME_MAX 40

/* Edits (insert, delete, replace, swap two neighbours) from a[0..na) to
 * b[0..nb); both at most LS_HINT_NAME_MAX characters. */
size_t ls_edit_distance(const char *a, size_t na, const char *b, size_t nb);

/* Whether d edits make a typo of a name of n characters rather than
 * another name. */
bool ls_close_enough(size_t d, size_t n);

#endif
