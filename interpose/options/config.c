#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/runtime/text.h"
#include "arms.h"
#include "option_hints.h"

#define PREFIX "LOCKSWAP_"

bool ls_option_check(const struct ls_option *o, const char *v, char *err, size_t errlen)
{
	if (o->kind != LS_OPT_ARMS)
		return ls_option_check_value(o, v, err, errlen);
	/* "" is no experiment.  The parser's message names the arm. */
	struct ls_arm_list l;
	return !*v || ls_arms_parse(v, &l, err, errlen);
}

const char *ls_option_value(const struct ls_option *o)
{
	const char *arm = ls_arm_value(o);
	if (arm)
		return arm;
	/* The variable's name without snprintf: start-up asks for every
	 * option, in every process the preload enters. */
	char var[64];
	size_t n = 0;
	ls_text_put(var, sizeof var, &n, PREFIX);
	ls_text_put(var, sizeof var, &n, o->name);
	const char *v = getenv(var);
	if (v)
		return v;
	/* Asking for an export is asking for the numbers it exports. */
	if (strcmp(o->name, "STATS") == 0 && *ls_option_value(ls_option_find("STATS_PROM")))
		return "summary";
	return o->def;
}

/* Rules between options: an export needs statistics switched on. */
static bool check_together(char *err, size_t errlen)
{
	const char *prom = ls_option_value(ls_option_find("STATS_PROM"));
	if (!*prom || strcmp(ls_option_value(ls_option_find("STATS")), "off") != 0)
		return true;
	snprintf(err, errlen, PREFIX "STATS_PROM='%.60s' needs the statistics, but "
	         PREFIX "STATS=off (leave it unset or give summary or full)", prom);
	return false;
}

/* A LOCKSWAP_* variable the table does not know is a typo the user would
 * otherwise never notice. */
static bool check_unknown(char *err, size_t errlen)
{
	extern char **environ;
	size_t plen = strlen(PREFIX);
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, PREFIX, plen) != 0)
			continue;
		const char *name = *e + plen;
		const char *eq = strchr(name, '=');
		size_t n = eq ? (size_t)(eq - name) : strlen(name);
		bool known = false;
		for (size_t i = 0; i < ls_option_count() && !known; i++)
			known = strlen(ls_option_at(i)->name) == n &&
			        strncmp(ls_option_at(i)->name, name, n) == 0;
		if (known)
			continue;
		int shown = (int)(n > 40 ? 40 : n);
		const char *close = ls_option_closest(name, n);
		if (close) {
			snprintf(err, errlen, PREFIX "%.*s: unknown variable; did you mean " PREFIX
			         "%s? (`lockswap list` shows them all)", shown, name, close);
			return false;
		}
		/* Room for the whole table (~500 characters) within LS_ERR_MAX;
		 * should it grow past that, the list ends at a whole name. */
		char list[LS_ERR_MAX - 100];
		size_t used = 0;
		list[0] = 0;
		for (size_t i = 0; i < ls_option_count(); i++) {
			int w = snprintf(list + used, sizeof list - used, "%s" PREFIX "%s",
			                 i ? ", " : "", ls_option_at(i)->name);
			if (w < 0 || (size_t)w >= sizeof list - used) {
				list[used] = 0;
				break;
			}
			used += (size_t)w;
		}
		snprintf(err, errlen, PREFIX "%.*s: unknown variable (known: %s)", shown, name, list);
		return false;
	}
	return true;
}

bool ls_options_load(char *err, size_t errlen)
{
	/* The arm first: its settings are the values checked below. */
	bool ok = check_unknown(err, errlen) && ls_arms_select(err, errlen);
	for (size_t i = 0; ok && i < ls_option_count(); i++)
		ok = ls_option_check(ls_option_at(i), ls_option_value(ls_option_at(i)), err, errlen);
	ok = ok && check_together(err, errlen);
	if (!ok)
		ls_arms_clear();
	/* All or nothing: with any bad value every target keeps its default. */
	for (size_t i = 0; i < ls_option_count(); i++) {
		const struct ls_option *o = ls_option_at(i);
		if (!o->target)
			continue;
		const char *v = ok ? ls_option_value(o) : o->def;
		atomic_store_explicit(o->target, (unsigned)ls_option_number(o, v), memory_order_relaxed);
	}
	return ok;
}
