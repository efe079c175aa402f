/* test_options.c - the option table's parser (interpose/options.c, included
 * here because unit tests link core/ and backends/ only). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../interpose/options.c"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uint_values),
		cmocka_unit_test(bool_values),
		cmocka_unit_test(backend_values),
		cmocka_unit_test(load_is_all_or_nothing),
		cmocka_unit_test(every_option_default_is_valid),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
