/*
 * away.h - the interposer's side of delegated critical sections (the ces
 * backend, core/runtime/home.h): the calls that send a section home first
 * (calls.def), the signal routing that runs every handler in the context
 * it is for (signals.c), and the hooks core/runtime/home.h calls.
 *
 * glibc's definition of each name in calls.def is in a slot
 * `ls_glibc_<name>`, looked up once at start-up (ls_away_resolve) and
 * lazily before that; GLIBC(name) reads it with the right type.
 */
#ifndef LS_INTERPOSE_AWAY_H
#define LS_INTERPOSE_AWAY_H

#include <signal.h>
#include <stdatomic.h>

#include "../../core/runtime/home.h"
#include "next_symbol.h"

#define LS_AWAY(REASON, RET, NAME, PARAMS, ARGS) extern void *_Atomic ls_glibc_##NAME;
#define LS_AWAY_VOID(REASON, NAME, PARAMS, ARGS) extern void *_Atomic ls_glibc_##NAME;
#define LS_AWAY_NORETURN(REASON, NAME, PARAMS, ARGS) extern void *_Atomic ls_glibc_##NAME;
#define LS_AWAY_VA(REASON, RET, NAME, PARAMS, ARGS, LAST, NEXTRA) extern void *_Atomic ls_glibc_##NAME;
#define LS_AWAY_CUSTOM(REASON, NAME) extern void *_Atomic ls_glibc_##NAME;
#include "calls.def"
#undef LS_AWAY
#undef LS_AWAY_VOID
#undef LS_AWAY_NORETURN
#undef LS_AWAY_VA
#undef LS_AWAY_CUSTOM

#define GLIBC(name) ((__typeof__(&name))ls_next_symbol(#name, &ls_glibc_##name))

/* Look up every glibc definition (interpose/start/init.c's constructor): several
 * of these calls are async-signal-safe and may first be called from a
 * signal handler, where dlsym must not run. */
void ls_away_resolve(void);
/* The same for the signal calls (signals.c), which are not in calls.def. */
void ls_away_signals_resolve(void);

/* Install the hooks of core/runtime/home.h (once, at start-up). */
void ls_away_install(void);

/* The backend delegates (ls_home_delegating may be turned on): route
 * every handled signal through the trampoline, then turn delegation on.
 * From the constructor, after ls_away_resolve. */
void ls_away_start_delegation(void);

#endif
