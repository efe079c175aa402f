#include "proc_self.h"

#include <fcntl.h>
#include <unistd.h>

#include "../core/runtime/own_io.h"

void ls_stats_program_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
}

void ls_stats_each_map_line(void (*fn)(void *arg, const char *line), void *arg)
{
	int fd = ls_own_open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[4096], line[1024];
	size_t ln = 0;
	ssize_t got;
	while ((got = ls_own_read(fd, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (ln < sizeof line - 1)
					line[ln++] = buf[i];
				continue;
			}
			line[ln] = 0;
			fn(arg, line);
			ln = 0;
		}
	}
	ls_own_close(fd);
}
