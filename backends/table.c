#include "backend.h"

#include <stdio.h>
#include <string.h>

#include "../core/runtime/text.h"

const struct ls_lock_ops ls_backend_glibc = {
	.name = "glibc",
	.about = "pass-through to glibc's own pthread functions (the A/B baseline)",
};

#define LS_BACKEND(ops) extern const struct ls_lock_ops ops;
#include "list.h"
#undef LS_BACKEND

const struct ls_lock_ops *const ls_backends[] = {
#define LS_BACKEND(ops) &ops,
#include "list.h"
#undef LS_BACKEND
	NULL,
};

static const struct ls_lock_ops *find(const char *name, size_t len)
{
	for (const struct ls_lock_ops *const *p = ls_backends, *b; (b = *p); p++)
		if (strlen(b->name) == len && memcmp(b->name, name, len) == 0)
			return b;
	return NULL;
}

/* Accepted names, comma separated, for error messages. */
static void names(char *out, size_t outlen)
{
	size_t n = 0;
	out[0] = 0;
	for (const struct ls_lock_ops *const *p = ls_backends, *b; (b = *p); p++) {
		int w = snprintf(out + n, outlen - n, "%s%s%s", n ? ", " : "",
		                 b->name, b->compose ? ":INNER" : "");
		if (w < 0 || (size_t)w >= outlen - n)
			break;
		n += (size_t)w;
	}
}

static bool composable(const struct ls_lock_ops *wrapper, const struct ls_lock_ops *inner)
{
	return !inner->compose && !ls_backend_is_passthrough(inner) &&
	       wrapper->state_size + inner->state_size <= LS_LOCK_STATE_BYTES;
}

/* The inner locks wrapper can wrap, comma separated, for error messages. */
static void inner_names(const struct ls_lock_ops *wrapper, char *out, size_t outlen)
{
	size_t n = 0;
	out[0] = 0;
	for (const struct ls_lock_ops *const *p = ls_backends, *b; (b = *p); p++) {
		if (!composable(wrapper, b))
			continue;
		int w = snprintf(out + n, outlen - n, "%s%s", n ? ", " : "", b->name);
		if (w < 0 || (size_t)w >= outlen - n)
			break;
		n += (size_t)w;
	}
}

/* Why wrapper cannot wrap inner (a listed backend that is not composable). */
static const char *not_composable_why(const struct ls_lock_ops *inner)
{
	if (ls_backend_is_passthrough(inner))
		return "glibc is the pass-through, not a lock lockswap can drive";
	if (inner->compose)
		return "a wrapper wraps a lock algorithm, not another wrapper";
	return "its state does not fit beside the wrapper's in a mutex";
}

static const struct ls_lock_ops *select_inner(const struct ls_lock_ops *b, const char *inner_name,
                                              char *err, size_t errlen)
{
	const struct ls_lock_ops *inner = find(inner_name, strlen(inner_name));
	if (inner && composable(b, inner))
		return b->compose(inner);
	char accepted[256];
	inner_names(b, accepted, sizeof accepted);
	if (!inner)
		snprintf(err, errlen, "unknown inner lock '%.40s' (accepted after '%s:': %s)",
		         inner_name, b->name, accepted);
	else
		snprintf(err, errlen, "'%s' cannot wrap '%s': %s (accepted after '%s:': %s)",
		         b->name, inner->name, not_composable_why(inner), b->name, accepted);
	return NULL;
}

__thread bool ls_backend_names_only;

const struct ls_lock_ops *ls_backend_select(const char *name, char *err, size_t errlen)
{
	char accepted[512];
	const char *colon = strchr(name, ':');
	size_t head = colon ? (size_t)(colon - name) : strlen(name);
	const struct ls_lock_ops *b = find(name, head);
	if (!b) {
		names(accepted, sizeof accepted);
		snprintf(err, errlen, "unknown backend (accepted: %s)", accepted);
		return NULL;
	}
	if (!b->compose) {
		if (colon) {
			snprintf(err, errlen, "backend '%s' does not wrap another lock", b->name);
			return NULL;
		}
		if (b->prepare && !ls_backend_names_only && !b->prepare(err, errlen))
			return NULL;
		return b;
	}
	return select_inner(b, colon ? colon + 1 : b->default_inner, err, errlen);
}

bool ls_backend_name_known(const char *name)
{
	const char *colon = strchr(name, ':');
	size_t head = colon ? (size_t)(colon - name) : strlen(name);
	return find(name, head) && (!colon || find(colon + 1, strlen(colon + 1)));
}

/* Without snprintf, whose code is three pages of libc that start-up would
 * otherwise fault in for this alone, in every process the preload enters
 * (core/runtime/cold.h: about 12 us a page on the project's VM). */
char *ls_backend_full_name(const char *name, char *out, size_t len)
{
	const struct ls_lock_ops *b = strchr(name, ':') ? NULL : find(name, strlen(name));
	size_t n = 0;
	if (!len)
		return out;
	if (b && b->compose && b->default_inner) {
		ls_text_put(out, len, &n, b->name);
		ls_text_put(out, len, &n, ":");
		ls_text_put(out, len, &n, b->default_inner);
	} else {
		ls_text_put(out, len, &n, name);
	}
	return out;
}

void ls_backend_each(void (*fn)(const char *name, const char *about, void *arg), void *arg)
{
	for (const struct ls_lock_ops *const *p = ls_backends, *b; (b = *p); p++) {
		if (!b->compose) {
			fn(b->name, b->about, arg);
			continue;
		}
		for (const struct ls_lock_ops *const *q = ls_backends, *in; (in = *q); q++) {
			if (!composable(b, in))
				continue;
			char full[128];
			snprintf(full, sizeof full, "%s:%s", b->name, in->name);
			fn(full, b->about, arg);
		}
	}
}
