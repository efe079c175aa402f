#include "backend_hints.h"

#include <stdio.h>
#include <string.h>

#include "../../backends/backend.h"
#include "closest.h"

struct closest_backend {
	const char *name;
	size_t n, best_d;
	char best[LS_HINT_NAME_MAX + 1];
};

static void consider(struct closest_backend *c, const char *candidate)
{
	size_t len = strlen(candidate);
	if (len > LS_HINT_NAME_MAX)
		return;
	size_t d = ls_edit_distance(c->name, c->n, candidate, len);
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
		char wrapper[LS_HINT_NAME_MAX + 1];
		snprintf(wrapper, sizeof wrapper, "%.*s", (int)(colon - name), name);
		consider(c, wrapper);
	}
	consider(c, name);
}

bool ls_backend_check(const char *name, char *why, size_t len)
{
	char reason[768];
	if (ls_backend_select(name, reason, sizeof reason))
		return true;
	struct closest_backend c = { .name = name, .n = strlen(name), .best_d = (size_t)-1 };
	if (c.n <= LS_HINT_NAME_MAX && !ls_backend_name_known(name))
		ls_backend_each(consider_listed, &c);
	if (!c.best[0] || !ls_close_enough(c.best_d, c.n)) {
		snprintf(why, len, "%s", reason);
		return false;
	}
	/* The hint before the list of accepted names, where it is read. */
	const char *list = strstr(reason, " (accepted");
	int head = list ? (int)(list - reason) : (int)strlen(reason);
	snprintf(why, len, "%.*s; did you mean %s?%s", head, reason, c.best, list ? list : "");
	return false;
}
