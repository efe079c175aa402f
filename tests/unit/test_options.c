/* test_options.c - the option table's parser (interpose/options/options.c), the
 * arms read first (interpose/options/arms.c) and the effective configuration
 * (interpose/options/config.c); included here because unit tests link core/ and
 * backends/ only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/wrap/capacitor.h" /* ls_capacitor_bypass, an arm's setting */
#include "../../interpose/options/option_syntax.c"
#include "../../interpose/options/options.c"
#include "../../interpose/options/arms.c"
#include "../../interpose/options/config.c"
#include "../../interpose/options/closest.c"
#include "../../interpose/options/option_hints.c"
#include "../../interpose/options/backend_hints.c"
#include "../../stats/signal_name.c"

static char err[LS_ERR_MAX];

static bool check(const char *name, const char *value)
{
	err[0] = 0;
	return ls_option_check(ls_option_find(name), value, err, sizeof err);
}

static void uint_values(void **state)
{
	assert_true(check("SPIN", "0"));
	assert_true(check("SPIN", "1000000"));
	assert_false(check("SPIN", "1000001"));
	assert_string_equal(err, "LOCKSWAP_SPIN='1000001': must be a whole number between 0 and 1000000, or adaptive");
	/* 0 is a whole number: the message names the range, not the kind. */
	assert_false(check("BYPASS", "0"));
	assert_string_equal(err, "LOCKSWAP_BYPASS='0': must be a whole number between 1 and 16384");
	assert_false(check("SPIN", ""));
	assert_false(check("SPIN", "-1"));
	assert_false(check("SPIN", "12x"));
	assert_false(check("SPIN", "99999999999999999999"));
}

static void bool_values(void **state)
{
	static const char *const good[] = { "on", "OFF", "yes", "no", "1", "0", "true", "False" };
	for (size_t i = 0; i < 8; i++)
		assert_true(check("VERBOSE", good[i]));
	assert_false(check("VERBOSE", "maybe"));
	assert_non_null(strstr(err, "not a boolean"));
}

static void backend_values(void **state)
{
	assert_true(check("BACKEND", "glibc"));
	assert_true(check("BACKEND", "futex"));
	assert_false(check("BACKEND", "nosuch"));
	assert_non_null(strstr(err, "unknown backend (accepted: glibc, futex"));
	assert_false(check("BACKEND", "futex:tts"));
	assert_non_null(strstr(err, "does not wrap another lock"));
}

/* A misspelt backend or inner lock gets the closest name, ahead of the
 * list; an inner lock that exists but cannot be wrapped is not "unknown",
 * and the accepted inner locks are the ones that compose. */
static void backend_hints(void **state)
{
	assert_false(check("BACKEND", "futx"));
	assert_non_null(strstr(err, "unknown backend; did you mean futex? (accepted: glibc, futex"));
	assert_false(check("BACKEND", "slice:futx"));
	assert_non_null(strstr(err, "unknown inner lock 'futx'; did you mean slice:futex? "
	                            "(accepted after 'slice:': futex, tts, ticket, mcs, queued)"));
	assert_false(check("BACKEND", "slcie"));
	assert_non_null(strstr(err, "did you mean slice?"));
	assert_false(check("BACKEND", "capacitor:glibc"));
	assert_null(strstr(err, "did you mean"));
	assert_non_null(strstr(err, "'capacitor' cannot wrap 'glibc': glibc is the pass-through"));
	assert_null(strstr(strstr(err, "accepted"), "glibc"));
	assert_false(check("BACKEND", "slice:capacitor"));
	assert_non_null(strstr(err, "not another wrapper"));
	assert_false(check("BACKEND", "slice:bcs"));
	assert_non_null(strstr(err, "does not fit"));
	assert_false(check("BACKEND", "zzzzzz"));
	assert_null(strstr(err, "did you mean"));
}

/* Every output file's directory is checked at start-up, as the export's. */
static void output_paths_checked(void **state)
{
	static const char *const files[] = { "STATS_FILE", "STATS_FOLDED", "STATS_PROM" };
	for (size_t i = 0; i < 3; i++) {
		assert_true(check(files[i], ""));
		assert_true(check(files[i], "/tmp/lockswap-test-%p.out"));
		assert_false(check(files[i], "/nonexistent/dir/p.json"));
		assert_non_null(strstr(err, "cannot write into directory /nonexistent/dir"));
		assert_false(check(files[i], "/tmp/"));
		assert_non_null(strstr(err, "names a directory"));
	}
}

static void load_is_all_or_nothing(void **state)
{
	setenv("LOCKSWAP_SPIN", "7", 1);
	assert_true(ls_options_load(err, sizeof err));
	assert_int_equal(atomic_load(&ls_spin_limit), 7);
	setenv("LOCKSWAP_VERBOSE", "sometimes", 1);
	assert_false(ls_options_load(err, sizeof err));
	assert_non_null(strstr(err, "LOCKSWAP_VERBOSE='sometimes'"));
	assert_int_equal(atomic_load(&ls_spin_limit), LS_SPIN_ADAPTIVE); /* back to the default */
	unsetenv("LOCKSWAP_VERBOSE");
	setenv("LOCKSWAP_SPNI", "5", 1);
	assert_false(ls_options_load(err, sizeof err));
	assert_string_equal(err, "LOCKSWAP_SPNI: unknown variable; did you mean LOCKSWAP_SPIN? "
	                         "(`lockswap list` shows them all)");
	unsetenv("LOCKSWAP_SPNI");
	unsetenv("LOCKSWAP_SPIN");
	assert_true(ls_options_load(err, sizeof err));
}

static void unknown_names_get_the_closest(void **state)
{
	static const struct { const char *typo, *want; } cases[] = {
		{ "BYPAS", "BYPASS" }, { "BYPASSS", "BYPASS" }, { "BAKCEND", "BACKEND" },
		{ "STATS_FIEL", "STATS_FILE" }, { "STAT", "STATS" }, { "RWLOK", "RWLOCK" },
		{ "XYZZY", NULL }, { "X", NULL }, { "STATS_EVERYTHING", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *got = ls_option_closest(cases[i].typo, strlen(cases[i].typo));
		if (cases[i].want == NULL ? got != NULL : (got == NULL || strcmp(got, cases[i].want)))
			fail_msg("%s: closest %s, want %s", cases[i].typo, got ? got : "(none)",
			         cases[i].want ? cases[i].want : "(none)");
	}
	/* Far from every name: the whole list, as before. */
	setenv("LOCKSWAP_XYZZY", "1", 1);
	assert_false(ls_options_load(err, sizeof err));
	assert_non_null(strstr(err, "LOCKSWAP_XYZZY: unknown variable (known: LOCKSWAP_BACKEND"));
	unsetenv("LOCKSWAP_XYZZY");
	/* A typo discards every setting: the other values keep their defaults. */
	setenv("LOCKSWAP_BYPAS", "8", 1);
	setenv("LOCKSWAP_SPIN", "7", 1);
	assert_false(ls_options_load(err, sizeof err));
	assert_non_null(strstr(err, "did you mean LOCKSWAP_BYPASS?"));
	assert_int_equal(atomic_load(&ls_spin_limit), LS_SPIN_ADAPTIVE);
	unsetenv("LOCKSWAP_BYPAS");
	unsetenv("LOCKSWAP_SPIN");
}

static void stats_signal_values(void **state)
{
	static const char *const good[] = { "", "USR2", "SIGUSR2", "12", "HUP", "34" };
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		if (!check("STATS_SIGNAL", good[i]))
			fail_msg("STATS_SIGNAL='%s' refused: %s", good[i], err);
	assert_false(check("STATS_SIGNAL", "FOO"));
	assert_non_null(strstr(err, "LOCKSWAP_STATS_SIGNAL='FOO': not a signal name or number"));
	static const char *const uncatchable[] = { "KILL", "SIGKILL", "9", "STOP", "SIGSTOP", "19" };
	for (size_t i = 0; i < sizeof uncatchable / sizeof uncatchable[0]; i++) {
		assert_false(check("STATS_SIGNAL", uncatchable[i]));
		assert_non_null(strstr(err, "cannot be caught"));
		assert_non_null(strstr(err, uncatchable[i]));
	}
	assert_false(check("STATS_SIGNAL", "0"));
	assert_false(check("STATS_SIGNAL", "100000"));
	assert_false(check("STATS_SIGNAL", "12x"));
}

static void every_option_default_is_valid(void **state)
{
	for (size_t i = 0; i < ls_option_count(); i++) {
		err[0] = 0;
		bool ok = ls_option_check(ls_option_at(i), ls_option_at(i)->def, err, sizeof err);
		if (!ok)
			fail_msg("default of LOCKSWAP_%s rejected: %s", ls_option_at(i)->name, err);
	}
}

/* ls_option_index is the inverse of ls_option_at (it finds a shim option
 * by its place in its array and a setting by one walk, not by calling
 * ls_option_at for each index), and a pointer from elsewhere has none. */
static void index_is_the_position(void **state)
{
	(void)state;
	size_t n = ls_option_count();
	for (size_t i = 0; i < n; i++)
		if (ls_option_index(ls_option_at(i)) != i)
			fail_msg("LOCKSWAP_%s: at %zu, index %zu", ls_option_at(i)->name, i,
			         ls_option_index(ls_option_at(i)));
	static const struct ls_option stranger = { .name = "STRANGER" };
	assert_int_equal(ls_option_index(&stranger), n);
	assert_null(ls_option_at(n));
}

/* The backend's full name, written without snprintf: a wrapper gets its
 * default inner lock, anything else is copied, and both are cut to fit
 * with their terminator. */
static void full_names_fit(void **state)
{
	(void)state;
	char out[64];
	assert_string_equal(ls_backend_full_name("slice", out, sizeof out), "slice:futex");
	assert_string_equal(ls_backend_full_name("futex", out, sizeof out), "futex");
	assert_string_equal(ls_backend_full_name("capacitor:mcs", out, sizeof out), "capacitor:mcs");
	char small[8];
	assert_string_equal(ls_backend_full_name("slice", small, sizeof small), "slice:f");
	assert_string_equal(ls_backend_full_name("capacitor:mcs", small, sizeof small), "capacit");
	char one[1] = { 'x' };
	assert_string_equal(ls_backend_full_name("futex", one, sizeof one), "");
}

/* The algorithms' settings (each backend's `.settings`) and the waiting
 * policy's SPIN start, before any start-up, at the value their default text
 * means: the core/ modules run with them as they are when no shim sets them
 * (the native API, the unit tests).  Each is an option, found by name. */
static void check_starts_at_default(const struct ls_option *s)
{
	const struct ls_option *o = ls_option_find(s->name);
	assert_ptr_equal(o, s);
	unsigned want = (unsigned)ls_option_number(o, o->def);
	unsigned got = atomic_load(o->target);
	if (got != want)
		fail_msg("LOCKSWAP_%s: the target starts at %u, the default '%s' means %u",
		         o->name, got, o->def, want);
}

static void tunables_start_at_their_defaults(void **state)
{
	(void)state;
	size_t seen = 0;
	for (const struct ls_lock_ops *const *b = ls_backends; *b; b++)
		for (const struct ls_option *s = (*b)->settings; s && s->name; s++, seen++)
			check_starts_at_default(s);
	assert_true(seen >= 12); /* capacitor, restrict, slice, queued */
	check_starts_at_default(ls_option_find("SPIN"));
}

/* The chosen arm's settings are the options' values, over the environment. */
static void arm_settings_win(void **state)
{
	setenv("LOCKSWAP_BYPASS", "4", 1);
	setenv("LOCKSWAP_ARMS", "capacitor:futex BYPASS=8", 1);
	assert_true(ls_options_load(err, sizeof err));
	assert_int_equal(atomic_load(&ls_capacitor_bypass), 8);
	assert_string_equal(ls_option_value(ls_option_find("BACKEND")), "capacitor:futex");
	assert_non_null(strstr(ls_arm_chosen()->overrides, "BYPASS=8 (environment: 4)"));
	unsetenv("LOCKSWAP_BYPASS");
	ls_arms_clear();
	setenv("LOCKSWAP_ARMS", "futex RESTRICT_ACTIVE=0", 1);
	assert_false(ls_options_load(err, sizeof err));
	assert_non_null(strstr(err, "LOCKSWAP_ARMS: arm 1 ('futex RESTRICT_ACTIVE=0'): "
	                            "LOCKSWAP_RESTRICT_ACTIVE='0'"));
	assert_null(ls_arm_chosen());
	assert_int_equal(atomic_load(&ls_capacitor_bypass), 4); /* defaults again */
	unsetenv("LOCKSWAP_ARMS");
}

/* STATS_PROM turns an unset STATS to summary; an explicit off is an error. */
static void prom_needs_stats(void **state)
{
	setenv("LOCKSWAP_STATS_PROM", "lockswap-test.prom", 1);
	assert_true(ls_options_load(err, sizeof err));
	assert_int_equal(atomic_load(&ls_opt_stats), 1);
	setenv("LOCKSWAP_STATS", "off", 1);
	assert_false(ls_options_load(err, sizeof err));
	assert_non_null(strstr(err, "LOCKSWAP_STATS=off"));
	setenv("LOCKSWAP_STATS_PROM", "/nonexistent-dir/x.prom", 1);
	unsetenv("LOCKSWAP_STATS");
	assert_false(ls_options_load(err, sizeof err));
	assert_non_null(strstr(err, "cannot write into directory /nonexistent-dir"));
	unsetenv("LOCKSWAP_STATS_PROM");
	assert_true(ls_options_load(err, sizeof err));
	assert_int_equal(atomic_load(&ls_opt_stats), 0);
}

/* Lists of well-formed arms, a third of them spoilt by one stray token,
 * from a fixed seed: every one is either accepted (each arm named, the
 * pick in range) or refused with one line naming LOCKSWAP_ARMS. */
static uint64_t next_random(uint64_t *rng)
{
	*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
	return *rng >> 33;
}

static void arm_lists_never_crash(void **state)
{
	static const char *const backends[] = { "futex", "glibc", "capacitor:futex", "restrict:tts" };
	static const char *const fields[] = { "weight=3", "BYPASS=8", "SPIN=0", "SPIN=adaptive",
	                                      "FAIR_US=5", "name=x", "weight=1000000" };
	static const char *const noise[] = { "nosuch", "weight=0", "=", "name=", ":", "ARMS=x",
	                                     "BYPASS=", "futex", ";", "name=a/b", "bypass=8", "" };
	uint64_t rng = 42;
	char list[700];
	struct ls_arm_list l;
	unsigned accepted = 0, refused = 0;
	for (int round = 0; round < 5000; round++) {
		size_t n = 0;
		for (uint64_t a = 0, arms = 1 + next_random(&rng) % 4; a < arms; a++) {
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", a ? " ; " : "",
			                      backends[next_random(&rng) % 4]);
			for (uint64_t f = next_random(&rng) % 4; f > 0; f--)
				n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
				                      next_random(&rng) % 2 ? " " : "\t",
				                      fields[next_random(&rng) % 7]);
		}
		if (next_random(&rng) % 3 == 0)
			snprintf(list + n, sizeof list - n, " %s", noise[next_random(&rng) % 12]);
		err[0] = 0;
		if (ls_arms_parse(list, &l, err, sizeof err)) {
			accepted++;
			assert_true(l.n >= 1 && l.total_weight >= l.n);
			for (unsigned i = 0; i < l.n; i++)
				assert_true(l.arm[i].name[0] != 0);
			assert_true(ls_arms_pick(&l, list) < l.n);
		} else {
			refused++;
			assert_int_equal(strncmp(err, "LOCKSWAP_ARMS: ", 15), 0);
			assert_null(strchr(err, '\n'));
		}
	}
	/* Both outcomes must have been exercised for the test to mean anything. */
	assert_true(accepted > 500 && refused > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: the targets as no load has touched them. */
		cmocka_unit_test(tunables_start_at_their_defaults),
		cmocka_unit_test(uint_values),
		cmocka_unit_test(bool_values),
		cmocka_unit_test(backend_values),
		cmocka_unit_test(backend_hints),
		cmocka_unit_test(output_paths_checked),
		cmocka_unit_test(load_is_all_or_nothing),
		cmocka_unit_test(unknown_names_get_the_closest),
		cmocka_unit_test(stats_signal_values),
		cmocka_unit_test(every_option_default_is_valid),
		cmocka_unit_test(index_is_the_position),
		cmocka_unit_test(full_names_fit),
		cmocka_unit_test(arm_settings_win),
		cmocka_unit_test(prom_needs_stats),
		cmocka_unit_test(arm_lists_never_crash),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
