#include "rwlock.h"

#include <string.h>

const struct ls_rwlock_ops ls_rwlock_backend_glibc = {
	.name = "glibc",
	.about = "pass-through to glibc's own pthread_rwlock functions (the A/B baseline)",
};

#define LS_RWLOCK_BACKEND(name) extern const struct ls_rwlock_ops ls_rwlock_backend_##name;
#include "rwlock_list.h"
#undef LS_RWLOCK_BACKEND

const struct ls_rwlock_ops *const ls_rwlock_backends[] = {
#define LS_RWLOCK_BACKEND(name) &ls_rwlock_backend_##name,
#include "rwlock_list.h"
#undef LS_RWLOCK_BACKEND
	NULL,
};

/* "|futex|bravo|slice|glibc": LS_RWLOCK_CHOICES skips the first bar. */
const char ls_rwlock_names_barred[] =
#define LS_RWLOCK_BACKEND(name) "|" #name
#include "rwlock_list.h"
#undef LS_RWLOCK_BACKEND
	;

const struct ls_rwlock_ops *ls_rwlock_backend_find(const char *name)
{
	for (const struct ls_rwlock_ops *const *p = ls_rwlock_backends; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}
