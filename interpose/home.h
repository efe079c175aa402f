/* home.h - the interposer's side of delegated critical sections (home.c). */
#ifndef LS_INTERPOSE_HOME_H
#define LS_INTERPOSE_HOME_H

/* Install the hooks core/runtime/home.h calls (once, at start-up). */
void ls_home_install(void);

/* Look up glibc's definitions of the calls that send a delegated section
 * home (home.c, blocking.c, thread_state.c), once, from the constructor. */
void ls_home_resolve(void);
void ls_blocking_resolve(void);
void ls_thread_state_resolve(void);

#endif
