/* home.h - the interposer's side of delegated critical sections (home.c). */
#ifndef LS_INTERPOSE_HOME_H
#define LS_INTERPOSE_HOME_H

/* Install the hooks core/runtime/home.h calls (once, at start-up). */
void ls_home_install(void);

#endif
