#include "option_hints.h"

#include <string.h>

#include "closest.h"
#include "options.h"

const char *ls_option_closest(const char *name, size_t n)
{
	if (n > LS_HINT_NAME_MAX)
		return NULL;
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	for (size_t i = 0; i < ls_option_count(); i++) {
		size_t len = strlen(ls_option_at(i)->name);
		if (len > LS_HINT_NAME_MAX)
			continue;
		size_t d = ls_edit_distance(name, n, ls_option_at(i)->name, len);
		if (d < best_d)
			best_d = d, best = ls_option_at(i)->name;
	}
	return best && ls_close_enough(best_d, n) ? best : NULL;
}

