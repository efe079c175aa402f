#include "option_hints.h"

#include <stdio.h>
#include <string.h>

#include "../backends/backend.h"
#include "options.h"

/* Edit distance counting a swap of two neighbours as one edit ("optimal
 * string alignment", Damerau's variant of Levenshtein's), with three rows
 * on the stack; names are short (the longest option has 16 characters, a
 * typo longer than 40 gets no hint). */
#define HINT_NAME_MAX 40

static size_t min2(size_t a, size_t b)
{
	return a < b ? a : b;
}

static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t rows[3][HINT_NAME_MAX + 1];
	size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= nb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= na; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t d = min2(prev[j - 1] + (a[i - 1] != b[j - 1]),
			                min2(prev[j] + 1, cur[j - 1] + 1));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				d = min2(d, before[j - 2] + 1);
			cur[j] = d;
		}
		size_t *t = before;
		before = prev, prev = cur, cur = t;
	}
	return prev[nb];
}

/* A typo: at most 2 edits, and fewer than a third of the name, so that
 * "LOCKSWAP_X" is not "corrected" to an unrelated short name. */
static bool close_enough(size_t d, size_t n)
{
	return d <= 2 && d * 3 < n;
}

const char *ls_option_closest(const char *name, size_t n)
{
	if (n > HINT_NAME_MAX)
		return NULL;
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	for (size_t i = 0; i < ls_options_count; i++) {
		size_t len = strlen(ls_options[i].name);
		if (len > HINT_NAME_MAX)
			continue;
		size_t d = edit_distance(name, n, ls_options[i].name, len);
		if (d < best_d)
			best_d = d, best = ls_options[i].name;
	}
	return best && close_enough(best_d, n) ? best : NULL;
}

struct closest_backend {
	const char *name;
	size_t n, best_d;
	char best[HINT_NAME_MAX + 1];
};

static void consider(struct closest_backend *c, const char *candidate)
{
	size_t len = strlen(candidate);
	if (len > HINT_NAME_MAX)
		return;
	size_t d = edit_distance(c->name, c->n, candidate, len);
	if (d < c->best_d) {
		c->best_d = d;
		snprintf(c->best, sizeof c->best, "%s", candidate);
	}
}

/* Every selectable name ("futex", "slice:futex"), and each wrapper alone. */
static void consider_listed(const char *name, const char *about, void *arg)
{
	struct closest_backend *c = arg;
	const char *colon = strchr(name, ':');
	if (colon) {
		char wrapper[HINT_NAME_MAX + 1];
		snprintf(wrapper, sizeof wrapper, "%.*s", (int)(colon - name), name);
		consider(c, wrapper);
	}
	consider(c, name);
}

bool ls_backend_check(const char *name, char *why, size_t len)
{
	char reason[LS_ERR_MAX];
	if (ls_backend_select(name, reason, sizeof reason))
		return true;
	struct closest_backend c = { .name = name, .n = strlen(name), .best_d = (size_t)-1 };
	if (c.n <= HINT_NAME_MAX && !ls_backend_name_known(name))
		ls_backend_each(consider_listed, &c);
	if (!c.best[0] || !close_enough(c.best_d, c.n)) {
		snprintf(why, len, "%s", reason);
		return false;
	}
	/* The hint before the list of accepted names, where it is read. */
	const char *list = strstr(reason, " (accepted");
	int head = list ? (int)(list - reason) : (int)strlen(reason);
	snprintf(why, len, "%.*s; did you mean %s?%s", head, reason, c.best, list ? list : "");
	return false;
}
