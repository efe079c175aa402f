/* signal_name.c - LOCKSWAP_STATS_SIGNAL's value to a signal number
 * (stats/hooks.h), for the statistics' configuration and the shim's option
 * check alike: one list of names. */
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "hooks.h"

int ls_stats_parse_signal(const char *s)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "USR1", SIGUSR1 },
		{ "USR2", SIGUSR2 }, { "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
		{ "CHLD", SIGCHLD }, { "CONT", SIGCONT }, { "TSTP", SIGTSTP }, { "TTIN", SIGTTIN },
		{ "TTOU", SIGTTOU }, { "URG", SIGURG }, { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },
		{ "VTALRM", SIGVTALRM }, { "PROF", SIGPROF }, { "WINCH", SIGWINCH }, { "IO", SIGIO },
		{ "PWR", SIGPWR }, { "SYS", SIGSYS },
	};
	if (!*s)
		return 0;
	if (*s >= '0' && *s <= '9') {
		int n = 0;
		for (; *s >= '0' && *s <= '9' && n < 1000; s++)
			n = n * 10 + (*s - '0');
		return (*s == 0 && n > 0 && n <= SIGRTMAX) ? n : -1;
	}
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].sig;
	return -1;
}
