/* cancel.h - install core/runtime/wait.h's cancellation hooks (cancel.c). */
#ifndef LS_INTERPOSE_CANCEL_H
#define LS_INTERPOSE_CANCEL_H

/* Idempotent; called from ls_init (before any lock can wait). */
void ls_cancel_install(void);

#endif
