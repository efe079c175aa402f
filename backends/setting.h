/*
 * setting.h - one LOCKSWAP_* variable: the row type of the shim's option
 * table (interpose/options/options.def) and of each algorithm's settings, which
 * its backend declares beside its table (`.settings`, backend.h) and the
 * backend list (list.h) brings to the shim.
 */
#ifndef LS_BACKENDS_SETTING_H
#define LS_BACKENDS_SETTING_H

#include <stdatomic.h>

/* LS_OPT_UINT may also accept one word, its CHOICES (LOCKSWAP_SPIN's
 * "adaptive"): the target then receives LS_OPT_UINT_WORD.  An algorithm's
 * setting is a UINT, BOOL or CHOICE; the other kinds are the shim's. */
enum ls_opt_kind { LS_OPT_UINT, LS_OPT_BOOL, LS_OPT_CHOICE, LS_OPT_BACKEND, LS_OPT_TEXT,
                   LS_OPT_ARMS };
#define LS_OPT_UINT_WORD 0xffffffffu

struct ls_option {
	const char *name;      /* without the LOCKSWAP_ prefix; NULL ends a list */
	enum ls_opt_kind kind;
	const char *def;       /* as `lockswap list` and the README show it */
	unsigned long min, max;
	const char *choices;   /* '|'-separated */
	_Atomic unsigned *target; /* receives the value at start-up */
	const char *help;      /* one line: `lockswap list`, the README */
};

/* A row of an algorithm's settings:
 *   NAME     the variable is LOCKSWAP_<NAME>
 *   KIND     UINT (a whole number in MIN..MAX, or the one word in CHOICES
 *            if any), BOOL (on/off/yes/no/1/0/true/false) or CHOICE (one of
 *            the '|'-separated CHOICES; TARGET receives its index)
 *   DEFAULT  the value as text; the TARGET's own initial value must mean
 *            the same (tests/unit/test_options.c checks it)
 *   TARGET   the `_Atomic unsigned` the algorithm reads (its core/ header)
 *   HELP     one line; the README's variables table repeats it (tests/docs)
 * A list of them ends with LS_SETTINGS_END. */
#define LS_SETTING(NAME, KIND, DEFAULT, MIN, MAX, CHOICES, TARGET, HELP) \
	{ #NAME, LS_OPT_##KIND, DEFAULT, MIN, MAX, CHOICES, TARGET, HELP },
#define LS_SETTINGS_END { 0 }

#endif
