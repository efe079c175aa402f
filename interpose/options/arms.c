#include "arms.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "../../backends/backend.h"
#include "backend_hints.h"
#include "option_syntax.h"
#include "../../core/runtime/cold.h"

/* Options an arm can set, by index in the whole table (ls_option_count():
 * options.def's rows and every backend's .settings).  An arm that sets an
 * option past it gets an error that says so, and tests/layers
 * (settings_names.py) fails while the library's count reaches it. */
#define LS_OPTIONS_MAX 64

struct field {
	const char *s;
	size_t n;
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next blank-separated field of [*p, end); false at the end. */
static bool next_field(const char **p, const char *end, struct field *f)
{
	const char *s = *p;
	while (s < end && blank(*s))
		s++;
	if (s == end)
		return false;
	const char *e = s;
	while (e < end && !blank(*e))
		e++;
	f->s = s;
	f->n = (size_t)(e - s);
	*p = e;
	return true;
}

static bool field_is(const struct field *f, size_t keylen, const char *key)
{
	return keylen == strlen(key) && strncmp(f->s, key, keylen) == 0;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

/* A whole number in 1..LS_ARM_WEIGHT_MAX written in decimal digits only. */
static bool parse_weight(const char *s, size_t n, unsigned *out)
{
	if (n == 0 || n > 7)
		return false;
	unsigned long w = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		w = w * 10 + (unsigned long)(s[i] - '0');
	}
	if (w < 1 || w > LS_ARM_WEIGHT_MAX)
		return false;
	*out = (unsigned)w;
	return true;
}

/* Error of one arm: "LOCKSWAP_ARMS: arm N ('text'): what". */
static bool arm_error(char *err, size_t errlen, unsigned number, const struct ls_arm *a,
                      const char *what)
{
	int shown = a->len > 60 ? 60 : (int)a->len;
	snprintf(err, errlen, "LOCKSWAP_ARMS: arm %u ('%.*s%s'): %s", number, shown, a->text,
	         a->len > 60 ? "..." : "", what);
	return false;
}

/* One OPTION=VALUE of an arm, checked like the environment variable. */
static bool check_setting(const struct field *f, size_t keylen, bool *seen, char *why, size_t len)
{
	char name[48], value[LS_TEXT_MAX];
	if (keylen >= sizeof name) {
		snprintf(why, len, "unknown option '%.*s'", 40, f->s);
		return false;
	}
	memcpy(name, f->s, keylen);
	name[keylen] = 0;
	const struct ls_option *o = ls_option_find(name);
	if (!o) {
		snprintf(why, len, "unknown option '%s' (an arm sets options as in `lockswap list` "
		         "without the LOCKSWAP_ prefix, e.g. BYPASS=8)", name);
		return false;
	}
	if (o->kind == LS_OPT_ARMS || strcmp(o->name, "ARM_KEY") == 0) {
		snprintf(why, len, "%s cannot be set by an arm", name);
		return false;
	}
	if (o->kind == LS_OPT_BACKEND) {
		snprintf(why, len, "give the backend as a plain name, not BACKEND=");
		return false;
	}
	size_t idx = ls_option_index(o);
	if (idx >= LS_OPTIONS_MAX) {
		snprintf(why, len, "%s is option %zu of the table, past the %d an arm can set "
		         "(raise LS_OPTIONS_MAX in interpose/options/arms.c)", name, idx + 1,
		         LS_OPTIONS_MAX);
		return false;
	}
	if (seen[idx]) {
		snprintf(why, len, "sets %s twice", name);
		return false;
	}
	seen[idx] = true;
	size_t vn = f->n - keylen - 1;
	if (vn >= sizeof value) {
		snprintf(why, len, "the value of %s is longer than %d characters", name, LS_TEXT_MAX - 1);
		return false;
	}
	memcpy(value, f->s + keylen + 1, vn);
	value[vn] = 0;
	return ls_option_check_value(o, value, why, len);
}

/* The fields of one arm: a backend, settings, weight= and name=. */
static bool parse_arm(struct ls_arm *a, unsigned number, bool *named, char *err, size_t errlen)
{
	char why[LS_ERR_MAX - 128];
	bool seen[LS_OPTIONS_MAX] = { false }, weighted = false;
	const char *p = a->text, *end = a->text + a->len;
	struct field f;
	a->backend = NULL;
	a->weight = 1;
	a->name[0] = 0;
	*named = false;
	if (a->len == 0)
		return arm_error(err, errlen, number, a, "empty arm (arms are separated by ';')");
	while (next_field(&p, end, &f)) {
		const char *eq = memchr(f.s, '=', f.n);
		size_t keylen = eq ? (size_t)(eq - f.s) : f.n;
		if (!eq) {
			char name[LS_ARM_BACKEND_MAX];
			if (a->backend) {
				snprintf(why, sizeof why, "two backends ('%.*s' and '%.*s'); an arm runs one",
				         (int)(a->backend_len > 40 ? 40 : a->backend_len), a->backend,
				         (int)(f.n > 40 ? 40 : f.n), f.s);
				return arm_error(err, errlen, number, a, why);
			}
			if (f.n >= sizeof name) {
				snprintf(why, sizeof why, "backend name longer than %zu characters",
				         sizeof name - 1);
				return arm_error(err, errlen, number, a, why);
			}
			memcpy(name, f.s, f.n);
			name[f.n] = 0;
			if (!ls_backend_check(name, why, sizeof why))
				return arm_error(err, errlen, number, a, why);
			a->backend = f.s;
			a->backend_len = f.n;
		} else if (field_is(&f, keylen, "weight")) {
			if (weighted || !parse_weight(eq + 1, f.n - keylen - 1, &a->weight)) {
				snprintf(why, sizeof why, weighted ? "weight given twice"
				         : "weight='%.*s': not a whole number in 1..%d",
				         (int)(f.n - keylen - 1 > 20 ? 20 : f.n - keylen - 1), eq + 1,
				         LS_ARM_WEIGHT_MAX);
				return arm_error(err, errlen, number, a, why);
			}
			weighted = true;
		} else if (field_is(&f, keylen, "name")) {
			size_t n = f.n - keylen - 1;
			bool good = !*named && n > 0 && n < LS_ARM_NAME_MAX;
			for (size_t i = 0; good && i < n; i++)
				good = name_char(eq[1 + i]);
			if (!good) {
				snprintf(why, sizeof why, *named ? "name given twice"
				         : "name='%.*s': not 1..%d characters of A-Z a-z 0-9 _ . -",
				         (int)(n > 40 ? 40 : n), eq + 1, LS_ARM_NAME_MAX - 1);
				return arm_error(err, errlen, number, a, why);
			}
			memcpy(a->name, eq + 1, n);
			a->name[n] = 0;
			*named = true;
		} else if (!check_setting(&f, keylen, seen, why, sizeof why)) {
			return arm_error(err, errlen, number, a, why);
		}
	}
	if (!a->backend)
		return arm_error(err, errlen, number, a, "no backend (an arm starts from a backend "
		                 "name as LOCKSWAP_BACKEND accepts, e.g. 'futex')");
	return true;
}

static bool name_taken(const struct ls_arm_list *l, unsigned self)
{
	for (unsigned i = 0; i < l->n; i++)
		if (i != self && strcmp(l->arm[i].name, l->arm[self].name) == 0)
			return true;
	return false;
}

/* Arms without name= are called after the backend that runs, a wrapper
 * with its inner lock ("capacitor" -> "capacitor:tts", as every other
 * output names it), "-2", "-3", ... added where that name is already used
 * by an earlier arm or an explicit name. */
static void default_names(struct ls_arm_list *l, const bool *named)
{
	for (unsigned i = 0; i < l->n; i++) {
		struct ls_arm *a = &l->arm[i];
		if (named[i])
			continue;
		char given[LS_ARM_BACKEND_MAX], base[LS_ARM_NAME_MAX - 8];
		snprintf(given, sizeof given, "%.*s", (int)a->backend_len, a->backend);
		ls_backend_full_name(given, base, sizeof base);
		snprintf(a->name, sizeof a->name, "%s", base);
		/* Explicit names of later arms count too: they are kept as given. */
		for (unsigned k = 2; name_taken(l, i) && k < 1000; k++)
			snprintf(a->name, sizeof a->name, "%s-%u", base, k);
	}
}

bool ls_arms_parse(const char *list, struct ls_arm_list *out, char *err, size_t errlen)
{
	bool named[LS_ARMS_MAX];
	memset(out, 0, sizeof *out);
	size_t len = strlen(list);
	if (len >= LS_ARMS_TEXT_MAX) {
		snprintf(err, errlen, "LOCKSWAP_ARMS: longer than %d characters", LS_ARMS_TEXT_MAX - 1);
		return false;
	}
	const char *p = list, *end = list + len;
	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;
		if (out->n == LS_ARMS_MAX) {
			snprintf(err, errlen, "LOCKSWAP_ARMS: more than %d arms", LS_ARMS_MAX);
			return false;
		}
		struct ls_arm *a = &out->arm[out->n];
		while (p < stop && blank(*p))
			p++;
		while (stop > p && blank(stop[-1]))
			stop--;
		a->text = p;
		a->len = (size_t)(stop - p);
		if (!parse_arm(a, out->n + 1, &named[out->n], err, errlen))
			return false;
		/* Explicit names must be unique; a clash is a typo, not a wish. */
		for (unsigned i = 0; named[out->n] && i < out->n; i++) {
			if (named[i] && strcmp(out->arm[i].name, a->name) == 0) {
				char why[96];
				snprintf(why, sizeof why, "name '%s' is also arm %u's", a->name, i + 1);
				return arm_error(err, errlen, out->n + 1, a, why);
			}
		}
		out->total_weight += a->weight;
		out->n++;
		if (!semi)
			break;
		p = semi + 1;
	}
	default_names(out, named);
	return true;
}

uint64_t ls_arm_hash(const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 offset basis */
	for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull; /* FNV-1a 64 prime */
	}
	/* splitmix64's finaliser: FNV's low bits are weak for short keys
	 * that differ in their last character ("web-1", "web-2"). */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

unsigned ls_arms_pick(const struct ls_arm_list *l, const char *key)
{
	/* The hash as a fraction of 2^64, scaled to the total weight: no
	 * modulo bias (the total is at most 32 * 10^6). */
	unsigned __int128 x = (unsigned __int128)ls_arm_hash(key) * l->total_weight;
	uint64_t point = (uint64_t)(x >> 64);
	unsigned long below = 0;
	for (unsigned i = 0; i < l->n; i++) {
		below += l->arm[i].weight;
		if (point < below)
			return i;
	}
	return l->n - 1;
}

/* ---- the choice at start-up ---- */

/* Written only where LOCKSWAP_ARMS is set (cold.h: out of start-up's pages). */
static struct ls_arm_choice chosen LS_COLD_BSS;
static const char *chosen_values[LS_OPTIONS_MAX] LS_COLD_BSS;
static char value_text[LS_ARMS_TEXT_MAX + LS_ARM_BACKEND_MAX] LS_COLD_BSS;
/* 1 once `chosen` is filled in: release store after the fill, acquire
 * loads by the readers.  Racing initialisers fill it with the same bytes
 * (same environment, same pid, same agreed seed), as ls_active_name is. */
static _Atomic int chosen_state;
static _Atomic uint64_t random_seed;

/* One seed per process: the first initialiser's, agreed on by CAS, so two
 * threads racing through start-up cannot choose different arms. */
static uint64_t agreed_seed(void)
{
	uint64_t s = atomic_load_explicit(&random_seed, memory_order_acquire);
	if (s)
		return s;
	uint64_t fresh = 0;
	if (getrandom(&fresh, sizeof fresh, GRND_NONBLOCK) != (ssize_t)sizeof fresh) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		fresh = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
		        ((uint64_t)getpid() << 32);
	}
	/* 53 bits: the seed is printed in JSON, where readers keep doubles. */
	fresh &= (1ull << 53) - 1;
	if (!fresh)
		fresh = 1;
	if (atomic_compare_exchange_strong_explicit(&random_seed, &s, fresh, memory_order_acq_rel,
	                                            memory_order_acquire))
		return fresh;
	return s;
}

static bool read_key(const char *key, char *value, size_t len, char *err, size_t errlen)
{
	char why[160];
	if (!ls_arm_key_check(key, why, sizeof why)) {
		snprintf(err, errlen, "LOCKSWAP_ARM_KEY='%.60s': %s", key, why);
		return false;
	}
	if (strcmp(key, "pid") == 0) {
		snprintf(value, len, "%d", (int)getpid());
	} else if (strcmp(key, "random") == 0) {
		chosen.seeded = true;
		chosen.seed = agreed_seed();
		snprintf(value, len, "%llu", (unsigned long long)chosen.seed);
	} else {
		const char *v = getenv(key);
		if (!v || !*v) {
			snprintf(err, errlen, "LOCKSWAP_ARM_KEY=%s: the variable %s is %s, so no arm "
			         "can be chosen", key, key, v ? "empty" : "not set");
			return false;
		}
		if (strlen(v) >= len) {
			snprintf(err, errlen, "LOCKSWAP_ARM_KEY=%s: its value is longer than %zu characters",
			         key, len - 1);
			return false;
		}
		snprintf(value, len, "%s", v);
	}
	return true;
}

static size_t append(char *buf, size_t size, size_t used, const char *s, size_t n)
{
	if (used + n + 1 > size)
		return used;
	memcpy(buf + used, s, n);
	buf[used + n] = 0;
	return used + n;
}

/* Note a setting that replaces a variable set in the environment. */
static void note_override(const struct ls_option *o, const char *value, size_t *used)
{
	char var[64], line[LS_TEXT_MAX + 96];
	snprintf(var, sizeof var, "LOCKSWAP_%s", o->name);
	const char *env = getenv(var);
	if (!env)
		return;
	int n = snprintf(line, sizeof line, "%s%s=%.60s (environment: %.60s)",
	                 *used ? ", " : "", o->name, value, env);
	if (n > 0)
		*used = append(chosen.overrides, sizeof chosen.overrides, *used, line, (size_t)n);
}

/* The chosen arm's settings become the options' values. */
static void apply(const struct ls_arm *a)
{
	const char *p = a->text, *end = a->text + a->len;
	struct field f;
	size_t text_used = 0, settings_used = 0, over_used = 0;
	memset(chosen_values, 0, sizeof chosen_values);
	chosen.settings[0] = chosen.overrides[0] = 0;
	while (next_field(&p, end, &f)) {
		const char *eq = memchr(f.s, '=', f.n);
		size_t keylen = eq ? (size_t)(eq - f.s) : f.n;
		if (eq && (field_is(&f, keylen, "weight") || field_is(&f, keylen, "name")))
			continue;
		if (settings_used)
			settings_used = append(chosen.settings, sizeof chosen.settings, settings_used, " ", 1);
		settings_used = append(chosen.settings, sizeof chosen.settings, settings_used, f.s, f.n);
		char name[48];
		const char *value = eq ? eq + 1 : f.s;
		size_t vn = eq ? f.n - keylen - 1 : f.n;
		snprintf(name, sizeof name, "%.*s", (int)(eq ? keylen : 7), eq ? f.s : "BACKEND");
		const struct ls_option *o = ls_option_find(name);
		if (!o || text_used + vn + 1 > sizeof value_text) /* checked by the parse */
			continue;
		char *copy = value_text + text_used;
		memcpy(copy, value, vn);
		copy[vn] = 0;
		text_used += vn + 1;
		chosen_values[ls_option_index(o)] = copy;
		note_override(o, copy, &over_used);
	}
}

bool ls_arms_select(char *err, size_t errlen)
{
	const char *list = getenv("LOCKSWAP_ARMS");
	if (!list || !*list) {
		ls_arms_clear();
		return true;
	}
	/* Start-up is idempotent: a second initialiser keeps the first's. */
	if (atomic_load_explicit(&chosen_state, memory_order_acquire))
		return true;
	struct ls_arm_list l; /* ~2.5 KiB: start-up runs on the program's stack */
	if (!ls_arms_parse(list, &l, err, errlen))
		return false;
	const char *key = getenv("LOCKSWAP_ARM_KEY");
	if (!key)
		key = "pid";
	chosen.seeded = false;
	chosen.seed = 0;
	if (!read_key(key, chosen.key_value, sizeof chosen.key_value, err, errlen))
		return false;
	unsigned i = ls_arms_pick(&l, chosen.key_value);
	chosen.index = i;
	chosen.count = l.n;
	snprintf(chosen.name, sizeof chosen.name, "%s", l.arm[i].name);
	snprintf(chosen.key, sizeof chosen.key, "%s", key);
	apply(&l.arm[i]);
	atomic_store_explicit(&chosen_state, 1, memory_order_release);
	return true;
}

void ls_arms_clear(void)
{
	atomic_store_explicit(&chosen_state, 0, memory_order_release);
}

const struct ls_arm_choice *ls_arm_chosen(void)
{
	return atomic_load_explicit(&chosen_state, memory_order_acquire) ? &chosen : NULL;
}

const char *ls_arm_value(const struct ls_option *o)
{
	/* No arm (the usual case) before the option's index, which walks. */
	if (!atomic_load_explicit(&chosen_state, memory_order_acquire))
		return NULL;
	size_t idx = ls_option_index(o);
	return idx < LS_OPTIONS_MAX ? chosen_values[idx] : NULL;
}
