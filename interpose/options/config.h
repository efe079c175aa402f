/*
 * config.h - the effective configuration: each option's value is the
 * chosen arm's setting (LOCKSWAP_ARMS, arms.h), else the environment's,
 * else the table's default (options.h).
 *
 * The layers, each using only those below it, so that no two of them
 * need each other:
 *   option_syntax.h  the syntax of free-text values (no table)
 *   options.h        the table and the check of one plain value
 *   arms.h           a list of arms, each setting checked by options.h
 *   config.h         (this) arms over environment over defaults; start-up
 * Like the rest of start-up (init.h): no malloc, no stdio streams.
 */
#ifndef LS_INTERPOSE_CONFIG_H
#define LS_INTERPOSE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"

/* Check one value against option o: every kind, a list of arms included
 * (parsed as at start-up).  True if valid; otherwise err holds one line,
 * "LOCKSWAP_X='v': reason (accepted: ...)". */
bool ls_option_check(const struct ls_option *o, const char *value, char *err, size_t errlen);

/* Read every option into its target: the arm first (its settings are the
 * values checked), then each value.  True if all were valid; otherwise
 * err holds the first problem (one line), no arm is in effect and the
 * targets keep their defaults.  Also rejects unknown LOCKSWAP_* variables
 * (a misspelt name must not silently do nothing). */
bool ls_options_load(char *err, size_t errlen);

/* The effective value of an option as text: the chosen arm's setting
 * (LOCKSWAP_ARMS), else the environment's, else the default (STATS's
 * default is summary while STATS_PROM is set). */
const char *ls_option_value(const struct ls_option *o);

#endif
