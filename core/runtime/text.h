/*
 * text.h - a bounded, truncating append for names built on start-up's
 * path (a variable's name, a backend's full name): what snprintf("%s%s")
 * would write, without snprintf, whose code is pages of libc that a
 * process seldom touches otherwise, each a page fault in every process
 * the preload enters (cold.h).
 */
#ifndef LS_CORE_RUNTIME_TEXT_H
#define LS_CORE_RUNTIME_TEXT_H

#include <stddef.h>

/* Appends s at out[*n], cut to fit len with its terminator (len > 0). */
static inline void ls_text_put(char *out, size_t len, size_t *n, const char *s)
{
	for (; *s && *n + 1 < len; s++)
		out[(*n)++] = *s;
	out[*n] = 0;
}

#endif
