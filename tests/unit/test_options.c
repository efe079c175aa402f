/* test_options.c - the option table's parser (interpose/options.c, and the
 * arms it reads first, interpose/arms.c; included here because unit tests
 * link core/ and backends/ only). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../interpose/options.c"
#include "../../interpose/arms.c"

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
	assert_string_equal(err, "LOCKSWAP_SPIN='1000001': not a whole number in 0..1000000 or adaptive");
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
	assert_non_null(strstr(err, "LOCKSWAP_SPNI: unknown variable (known: LOCKSWAP_BACKEND"));
	unsetenv("LOCKSWAP_SPNI");
	unsetenv("LOCKSWAP_SPIN");
	assert_true(ls_options_load(err, sizeof err));
}

static void every_option_default_is_valid(void **state)
{
	for (size_t i = 0; i < ls_options_count; i++) {
		err[0] = 0;
		bool ok = ls_option_check(&ls_options[i], ls_options[i].def, err, sizeof err);
		if (!ok)
			fail_msg("default of LOCKSWAP_%s rejected: %s", ls_options[i].name, err);
	}
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uint_values),
		cmocka_unit_test(bool_values),
		cmocka_unit_test(backend_values),
		cmocka_unit_test(load_is_all_or_nothing),
		cmocka_unit_test(every_option_default_is_valid),
		cmocka_unit_test(arm_settings_win),
		cmocka_unit_test(prom_needs_stats),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
