/*
 * arms.h - the arms of an experiment (LOCKSWAP_ARMS) and which one this
 * process runs (LOCKSWAP_ARM_KEY).  docs/arms.md describes the syntax.
 *
 *   LOCKSWAP_ARMS="glibc; capacitor:futex BYPASS=8 weight=2; name=r restrict:futex"
 *
 * An arm is one backend name plus OPTION=VALUE settings of the option
 * table (without the LOCKSWAP_ prefix), an optional weight=N and name=LABEL.
 * At start-up the key (the pid, a random seed, or the value of a named
 * environment variable) is hashed and mapped onto the cumulative weights;
 * the chosen arm's settings then take the place of the environment's
 * (ls_option_value).
 *
 * Like the rest of start-up (init.h) this runs before the constructor,
 * possibly in several threads at once: no malloc, no stdio streams, stack
 * buffers only; racing initialisers compute the same choice (a random
 * seed is agreed on through one compare-and-swap).
 */
#ifndef LS_INTERPOSE_ARMS_H
#define LS_INTERPOSE_ARMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

#define LS_ARMS_MAX 32          /* arms in one list */
#define LS_ARMS_TEXT_MAX 1024   /* characters of LOCKSWAP_ARMS, NUL included */
#define LS_ARM_NAME_MAX 32      /* characters of an arm's name, NUL included */
#define LS_ARM_WEIGHT_MAX 1000000
#define LS_ARM_BACKEND_MAX 64      /* characters of a backend name, NUL included */

/* One arm of a parsed list; text points into the list. */
struct ls_arm {
	const char *text;    /* the arm's fields, surrounding blanks trimmed */
	size_t len;
	const char *backend; /* the backend field */
	size_t backend_len;
	unsigned weight;
	char name[LS_ARM_NAME_MAX];
};

struct ls_arm_list {
	unsigned n;
	unsigned long total_weight;
	struct ls_arm arm[LS_ARMS_MAX];
};

/* Parse and validate a list (every setting checked exactly as its
 * environment variable would be).  False: err holds one line. */
bool ls_arms_parse(const char *list, struct ls_arm_list *out, char *err, size_t errlen);

/* The stable hash of a key string: FNV-1a 64 followed by the splitmix64
 * finaliser.  Never change it: the same key must get the same arm in
 * every version. */
uint64_t ls_arm_hash(const char *key);

/* The arm for a key: floor(hash * total_weight / 2^64) located among the
 * cumulative weights. */
unsigned ls_arms_pick(const struct ls_arm_list *l, const char *key);

/* The arm this process runs (valid after ls_arms_select succeeded). */
struct ls_arm_choice {
	unsigned index, count;
	char name[LS_ARM_NAME_MAX];
	char key[LS_TEXT_MAX];       /* "pid", "random" or the variable's name */
	char key_value[LS_TEXT_MAX]; /* the string that was hashed */
	bool seeded;                 /* key "random": key_value is the seed */
	uint64_t seed;
	char settings[LS_ARMS_TEXT_MAX]; /* backend and OPTION=VALUE fields */
	/* "BYPASS=8 (environment: 4)" for each setting that replaced a
	 * variable also set in the environment; "" if none. */
	char overrides[LS_ARMS_TEXT_MAX];
};

/* Start-up: with LOCKSWAP_ARMS set, parse it, read the key, choose an
 * arm and make its settings the options' values.  Without it, nothing
 * (true).  False: err holds one line and no arm is in effect. */
bool ls_arms_select(char *err, size_t errlen);
/* Forget the choice (start-up failed elsewhere: the program runs on glibc). */
void ls_arms_clear(void);
/* The chosen arm, or NULL when LOCKSWAP_ARMS is not in effect. */
const struct ls_arm_choice *ls_arm_chosen(void);
/* The chosen arm's value for an option, or NULL if it sets none. */
const char *ls_arm_value(const struct ls_option *o);

#endif
