#include "closest.h"

/* Edit distance counting a swap of two neighbours as one edit ("optimal
 * string alignment", Damerau's variant of Levenshtein's), with three rows
 * on the stack; names are short (the longest option has 16 characters, a
 * typo longer than 40 gets no hint). */
static size_t min2(size_t a, size_t b)
{
	return a < b ? a : b;
}

size_t ls_edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t rows[3][LS_HINT_NAME_MAX + 1];
	size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= nb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= na; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t d = min2(prev[j - 1] + (a[i - 1] != b[j - 1]),
			                min2(prev[j] + 1, cur[j - 1] + 1));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				d = min2(d, before[j - 2] + 1);
			cur[j] = d;
		}
		size_t *t = before;
		before = prev, prev = cur, cur = t;
	}
	return prev[nb];
}

/* A typo: at most 2 edits, and fewer than a third of the name, so that
 * "LOCKSWAP_X" is not "corrected" to an unrelated short name. */
bool ls_close_enough(size_t d, size_t n)
{
	return d <= 2 && d * 3 < n;
}

