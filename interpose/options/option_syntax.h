/*
 * option_syntax.h - the syntax of the free-text options, checked alone:
 * none of these needs the option table, so the table's checker
 * (options.c) and the arms' parser (arms.c) both call them without
 * depending on each other.  No malloc, no stdio streams (options.h).
 * Each returns true if v is valid, else false with the reason in why.
 */
#ifndef LS_INTERPOSE_OPTION_SYNTAX_H
#define LS_INTERPOSE_OPTION_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>

/* The longest value of a free-text option, NUL included. */
#define LS_TEXT_MAX 256

/* LOCKSWAP_ARM_KEY: pid, random, or the name of an environment variable. */
bool ls_arm_key_check(const char *v, char *why, size_t len);

/* LOCKSWAP_STATS_FILE, _FOLDED and _PROM: "" (none), or a file name in a
 * directory this process can write, checked at start-up so that a typo is
 * reported at once rather than at the first write (or at exit, after the
 * summary has pointed at the file).  suffix completes the example file
 * name of the message (".json"). */
bool ls_output_path_check(const char *v, const char *suffix, char *why, size_t len);

/* LOCKSWAP_STATS_SIGNAL: "" (none), a name with or without SIG, or a
 * number.  Rejects the signals a program cannot catch (KILL, STOP). */
bool ls_signal_option_check(const char *v, char *why, size_t len);

#endif
