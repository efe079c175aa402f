/*
 * options.h - the LOCKSWAP_* option table (options.def) and its parser.
 *
 * Options are read once, from the environment, by ls_options_load()
 * (config.h), which may run before the library's constructor (another
 * library's start-up can lock a mutex first): it uses getenv and stack
 * buffers only, no malloc and no stdio.  A bad value is reported by
 * ls_options_load's return value; the caller then runs the program on
 * glibc's own locks.
 */
#ifndef LS_INTERPOSE_OPTIONS_H
#define LS_INTERPOSE_OPTIONS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../backends/setting.h" /* struct ls_option, the kinds */
#include "option_syntax.h" /* LS_TEXT_MAX */

/* Targets of options that do not belong to a core/ module. */
extern _Atomic unsigned ls_opt_verbose;
/* LOCKSWAP_STATS (0 off, 1 summary, 2 full), _TOP, _SAMPLE: handed to the
 * statistics at start-up (init.c), never read by them directly. */
extern _Atomic unsigned ls_opt_stats, ls_opt_stats_top, ls_opt_stats_sample;
/* LOCKSWAP_STATS_INTERVAL, _PROM_SITES: the Prometheus export's. */
extern _Atomic unsigned ls_opt_stats_interval, ls_opt_stats_prom_sites;
/* LOCKSWAP_DEADLOCK (0 off, 1 report, 2 abort) and LOCKSWAP_HANG_MS
 * (LS_OPT_UINT_WORD: auto): handed to stats/watch.h at start-up (init.c). */
extern _Atomic unsigned ls_opt_deadlock, ls_opt_hang_ms;

/* Every option: the shim's own rows (options.def), with the algorithms'
 * settings (each backend's `.settings`, in the backend list's order) after
 * LOCKSWAP_SPIN.  Indices are stable: the lists are constant. */
size_t ls_option_count(void);
const struct ls_option *ls_option_at(size_t i);
size_t ls_option_index(const struct ls_option *o);

#define LS_ERR_MAX 640

/* Check one value against option o, for every kind but a list of arms
 * (LS_OPT_ARMS: arms.h parses it, and config.h's ls_option_check checks
 * every kind).  Returns true if valid; otherwise writes
 * "LOCKSWAP_X='v': reason (accepted: ...)". */
bool ls_option_check_value(const struct ls_option *o, const char *value, char *err, size_t errlen);

const struct ls_option *ls_option_find(const char *name);

/* The value an option's target receives for a valid value v. */
unsigned long ls_option_number(const struct ls_option *o, const char *v);

#endif
