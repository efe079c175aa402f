/*
 * describe.c - what the library can tell tools about itself, so that
 * `lockswap list` and the CLI's option checks never keep a second list.
 *
 *   size_t lockswap_describe(char *buf, size_t len)
 *       JSON {"version", "backends":[{name, about}], "rwlock_backends":
 *       [{name, about}], "options":[{name, kind, default, min, max,
 *       choices, help}]}; returns the full length (like
 *       snprintf: call again with a bigger buffer if it did not fit).
 *   int lockswap_check_option(const char *var, const char *value,
 *                             char *err, size_t errlen)
 *       0 if LOCKSWAP_<var>=value is valid, else -1 and the same one-line
 *       message the library prints at start-up (ARMS: the whole list).
 *   int lockswap_arm_choose(const char *arms, const char *key,
 *                           char *buf, size_t len)
 *       the arm a process whose key has this value (the pid "12345", the
 *       variable's value "web-7", the seed) runs: its index, and its name
 *       in buf; -1 and the one-line message in buf for a bad list.
 *   const char *lockswap_arm(void)
 *       the name of the arm this process runs; "" without LOCKSWAP_ARMS.
 */
#include <stdio.h>
#include <string.h>

#include "../../backends/backend.h"
#include "../../backends/rwlock.h"
#include "arms.h"
#include "../entry/export.h"
#include "../start/init.h"
#include "option_hints.h"
#include "config.h"
#include "../version.h"

struct out {
	char *buf;
	size_t len, used;
	unsigned items; /* entries written in the current array */
};

static void put(struct out *o, const char *s)
{
	for (; *s; s++, o->used++)
		if (o->used + 1 < o->len)
			o->buf[o->used] = *s;
	if (o->len)
		o->buf[o->used < o->len ? o->used : o->len - 1] = 0;
}

static void put_str(struct out *o, const char *s)
{
	char c[8];
	put(o, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') {
			c[0] = '\\', c[1] = *s, c[2] = 0;
		} else if ((unsigned char)*s < 0x20) {
			snprintf(c, sizeof c, "\\u%04x", *s);
		} else {
			c[0] = *s, c[1] = 0;
		}
		put(o, c);
	}
	put(o, "\"");
}

static void put_backend(const char *name, const char *about, void *arg)
{
	struct out *o = arg;
	put(o, o->items++ ? ",{" : "{");
	put(o, "\"name\":");
	put_str(o, name);
	put(o, ",\"about\":");
	put_str(o, about);
	put(o, "}");
}

static const char *kind_name(enum ls_opt_kind k)
{
	static const char *const names[] = { "uint", "bool", "choice", "backend", "text", "arms" };
	return names[k];
}

LS_EXPORT size_t lockswap_describe(char *buf, size_t len)
{
	struct out o = { buf, len, 0, 0 };
	char num[32];
	put(&o, "{\"version\":");
	put_str(&o, LS_VERSION);
	put(&o, ",\"backends\":[");
	ls_backend_each(put_backend, &o);
	put(&o, "],\"rwlock_backends\":[");
	o.items = 0;
	for (const struct ls_rwlock_ops *const *p = ls_rwlock_backends; *p; p++)
		put_backend((*p)->name, (*p)->about, &o);
	put(&o, "],\"options\":[");
	for (size_t i = 0; i < ls_option_count(); i++) {
		const struct ls_option *opt = ls_option_at(i);
		put(&o, i ? ",{\"name\":\"LOCKSWAP_" : "{\"name\":\"LOCKSWAP_");
		put(&o, opt->name);
		put(&o, "\",\"kind\":");
		put_str(&o, kind_name(opt->kind));
		put(&o, ",\"default\":");
		put_str(&o, opt->def);
		snprintf(num, sizeof num, ",\"min\":%lu", opt->min);
		put(&o, num);
		snprintf(num, sizeof num, ",\"max\":%lu", opt->max);
		put(&o, num);
		put(&o, ",\"choices\":");
		put_str(&o, opt->choices);
		put(&o, ",\"help\":");
		put_str(&o, opt->help);
		put(&o, "}");
	}
	put(&o, "]}");
	return o.used;
}

LS_EXPORT int lockswap_check_option(const char *var, const char *value, char *err, size_t errlen)
{
	const char *name = strncmp(var, "LOCKSWAP_", 9) == 0 ? var + 9 : var;
	const struct ls_option *o = ls_option_find(name);
	if (!o) {
		const char *close = ls_option_closest(name, strlen(name));
		if (close)
			snprintf(err, errlen, "LOCKSWAP_%s: unknown variable; did you mean LOCKSWAP_%s?",
			         name, close);
		else
			snprintf(err, errlen, "LOCKSWAP_%s: unknown variable", name);
		return -1;
	}
	/* The CLI asks about the program it will start, not about itself: a
	 * backend that checks this process (ces: no rseq areas) is checked
	 * by name only; the program runs the full check at start-up, and the
	 * CLI starts it with what that check needs (settings.py). */
	ls_backend_names_only = true;
	bool ok = ls_option_check(o, value, err, errlen);
	ls_backend_names_only = false;
	return ok ? 0 : -1;
}

/* The full name of backend `name` ("capacitor" -> "capacitor:tts"): lets
 * the CLI name the inner lock a wrapper given without ":INNER" runs. */
LS_EXPORT const char *lockswap_backend_name(const char *name, char *buf, size_t len)
{
	return ls_backend_full_name(name, buf, len);
}

/* The name of the backend serving this process ("glibc" after a bad
 * option): lets tests and tools confirm what is really running. */
LS_EXPORT const char *lockswap_backend(void)
{
	ls_active();
	return ls_active_name;
}

LS_EXPORT int lockswap_arm_choose(const char *arms, const char *key, char *buf, size_t len)
{
	struct ls_arm_list l;
	char err[LS_ERR_MAX];
	if (!arms || !*arms) {
		snprintf(buf, len, "LOCKSWAP_ARMS: no arms given");
		return -1;
	}
	/* As in lockswap_check_option: the arms of a program to start. */
	ls_backend_names_only = true;
	bool ok = ls_arms_parse(arms, &l, err, sizeof err);
	ls_backend_names_only = false;
	if (!ok) {
		snprintf(buf, len, "%s", err);
		return -1;
	}
	unsigned i = ls_arms_pick(&l, key ? key : "");
	snprintf(buf, len, "%s", l.arm[i].name);
	return (int)i;
}

LS_EXPORT const char *lockswap_arm(void)
{
	ls_active();
	const struct ls_arm_choice *c = ls_arm_chosen();
	return c ? c->name : "";
}
