#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../backends/backend.h"
#include "arms.h"
#include "option_hints.h"
#include "options_targets.h"

_Atomic unsigned ls_opt_verbose;
_Atomic unsigned ls_opt_stats, ls_opt_stats_top, ls_opt_stats_sample;
_Atomic unsigned ls_opt_stats_interval, ls_opt_stats_prom_sites;

const struct ls_option ls_options[] = {
#define LS_OPTION(NAME, KIND, DEF, MIN, MAX, CHOICES, TARGET, HELP) \
	{ #NAME, KIND, DEF, MIN, MAX, CHOICES, TARGET, HELP },
#include "options.def"
#undef LS_OPTION
};
const size_t ls_options_count = sizeof ls_options / sizeof ls_options[0];

#define PREFIX "LOCKSWAP_"

const struct ls_option *ls_option_find(const char *name)
{
	for (size_t i = 0; i < ls_options_count; i++)
		if (strcmp(ls_options[i].name, name) == 0)
			return &ls_options[i];
	return NULL;
}

static bool parse_uint(const char *v, unsigned long *out)
{
	if (!*v || strlen(v) > 12)
		return false;
	unsigned long n = 0;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		n = n * 10 + (unsigned long)(*p - '0');
	}
	*out = n;
	return true;
}

static int parse_bool(const char *v)
{
	static const char *const yes[] = { "1", "on", "yes", "true" };
	static const char *const no[] = { "0", "off", "no", "false" };
	for (int i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}

/* Index of v among '|'-separated choices, or -1. */
static int parse_choice(const char *choices, const char *v)
{
	size_t len = strlen(v);
	int idx = 0;
	for (const char *p = choices; *p; idx++) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		if (n == len && strncmp(p, v, n) == 0)
			return idx;
		if (!bar)
			break;
		p = bar + 1;
	}
	return -1;
}

/* Parsed numeric value of a valid input (0 for text/backend). */
static unsigned long value_of(const struct ls_option *o, const char *v)
{
	unsigned long n = 0;
	switch (o->kind) {
	case LS_OPT_UINT:
		if (*o->choices && parse_choice(o->choices, v) == 0)
			return LS_OPT_UINT_WORD;
		parse_uint(v, &n);
		return n;
	case LS_OPT_BOOL: return (unsigned long)parse_bool(v);
	case LS_OPT_CHOICE: return (unsigned long)parse_choice(o->choices, v);
	default: return 0;
	}
}

/* LOCKSWAP_STATS_PROM: a file name in a directory we can write (checked at
 * start-up, so a typo is reported at once rather than at the first write). */
static bool prom_path_check(const char *v, char *why, size_t len)
{
	size_t n = strlen(v);
	if (n == 0)
		return true;
	if (v[n - 1] == '/') {
		snprintf(why, len, "names a directory; give a file name such as "
		         "DIR/lockswap-%%p.prom");
		return false;
	}
	char dir[LS_TEXT_MAX];
	const char *slash = strrchr(v, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", slash == v ? 1 : (int)(slash - v), v);
	/* A directory named with %p is made per process: nothing to check. */
	if (strchr(dir, '%') || access(dir, W_OK | X_OK) == 0)
		return true;
	snprintf(why, len, "cannot write into directory %.200s (%s)", dir, strerror(errno));
	return false;
}

/* Free-text options whose text has a syntax of its own. */
static bool text_check(const struct ls_option *o, const char *v, char *why, size_t len)
{
	if (strcmp(o->name, "ARM_KEY") == 0)
		return ls_arm_key_check(v, why, len);
	if (strcmp(o->name, "STATS_PROM") == 0)
		return prom_path_check(v, why, len);
	if (strcmp(o->name, "STATS_SIGNAL") == 0)
		return ls_signal_option_check(v, why, len);
	return true;
}

bool ls_option_check(const struct ls_option *o, const char *v, char *err, size_t errlen)
{
	unsigned long n;
	char why[LS_ERR_MAX - 64];
	switch (o->kind) {
	case LS_OPT_UINT:
		if (parse_uint(v, &n) && n >= o->min && n <= o->max)
			return true;
		if (*o->choices && parse_choice(o->choices, v) == 0)
			return true;
		snprintf(why, sizeof why, "must be a whole number between %lu and %lu%s%s", o->min,
		         o->max, *o->choices ? ", or " : "", o->choices);
		break;
	case LS_OPT_BOOL:
		if (parse_bool(v) >= 0)
			return true;
		snprintf(why, sizeof why, "not a boolean (accepted: on, off, yes, no, true, false, 1, 0)");
		break;
	case LS_OPT_CHOICE: {
		if (parse_choice(o->choices, v) >= 0)
			return true;
		char list[256];
		snprintf(list, sizeof list, "%s", o->choices);
		for (char *p = list; *p; p++)
			if (*p == '|')
				*p = ',';
		snprintf(why, sizeof why, "not one of the accepted values (accepted: %s)", list);
		break;
	}
	case LS_OPT_BACKEND:
		if (ls_backend_select(v, why, sizeof why))
			return true;
		break;
	case LS_OPT_TEXT:
		if (strlen(v) >= LS_TEXT_MAX) {
			snprintf(why, sizeof why, "longer than %d characters", LS_TEXT_MAX - 1);
			break;
		}
		if (text_check(o, v, why, sizeof why))
			return true;
		break;
	case LS_OPT_ARMS: {
		/* "" is no experiment.  The parser's message names the arm. */
		struct ls_arm_list l;
		return !*v || ls_arms_parse(v, &l, err, errlen);
	}
	}
	snprintf(err, errlen, PREFIX "%s='%.60s': %s", o->name, v, why);
	return false;
}

const char *ls_option_value(const struct ls_option *o)
{
	const char *arm = ls_arm_value(o);
	if (arm)
		return arm;
	char var[64];
	snprintf(var, sizeof var, PREFIX "%s", o->name);
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
		for (size_t i = 0; i < ls_options_count && !known; i++)
			known = strlen(ls_options[i].name) == n &&
			        strncmp(ls_options[i].name, name, n) == 0;
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
		for (size_t i = 0; i < ls_options_count; i++) {
			int w = snprintf(list + used, sizeof list - used, "%s" PREFIX "%s",
			                 i ? ", " : "", ls_options[i].name);
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
	for (size_t i = 0; ok && i < ls_options_count; i++)
		ok = ls_option_check(&ls_options[i], ls_option_value(&ls_options[i]), err, errlen);
	ok = ok && check_together(err, errlen);
	if (!ok)
		ls_arms_clear();
	/* All or nothing: with any bad value every target keeps its default. */
	for (size_t i = 0; i < ls_options_count; i++) {
		const struct ls_option *o = &ls_options[i];
		if (!o->target)
			continue;
		const char *v = ok ? ls_option_value(o) : o->def;
		atomic_store_explicit(o->target, (unsigned)value_of(o, v), memory_order_relaxed);
	}
	return ok;
}
