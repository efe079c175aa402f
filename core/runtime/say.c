#include "say.h"

#include <string.h>
#include <unistd.h>

#include "own_io.h"

void ls_say(const char *line)
{
	size_t n = strlen(line);
	while (n) {
		ssize_t w = ls_own_write(STDERR_FILENO, line, n);
		if (w <= 0)
			return;
		line += w;
		n -= (size_t)w;
	}
}
