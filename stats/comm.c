#include "comm.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "../core/runtime/own_io.h"

void ls_stats_thread_name(int tid, char *name, size_t len)
{
	name[0] = 0;
	if (tid <= 0 || len == 0)
		return;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
	int fd = ls_own_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = ls_own_read(fd, name, len - 1);
	ls_own_close(fd);
	name[n > 0 ? n : 0] = 0;
	char *nl = strchr(name, '\n');
	if (nl)
		*nl = 0;
}
