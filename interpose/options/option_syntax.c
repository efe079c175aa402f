#include "option_syntax.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../stats/hooks.h"

/* A character of an environment variable's name after the first. */
static bool variable_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool ls_arm_key_check(const char *v, char *why, size_t len)
{
	if (strcmp(v, "pid") == 0 || strcmp(v, "random") == 0)
		return true;
	bool good = (*v >= 'A' && *v <= 'Z') || (*v >= 'a' && *v <= 'z') || *v == '_';
	for (const char *p = v; good && *p; p++)
		good = variable_char(*p);
	if (good && strlen(v) < 128)
		return true;
	snprintf(why, len, "not pid, random or the name of an environment variable");
	return false;
}

bool ls_output_path_check(const char *v, const char *suffix, char *why, size_t len)
{
	size_t n = strlen(v);
	if (n == 0)
		return true;
	if (v[n - 1] == '/') {
		snprintf(why, len, "names a directory; give a file name such as "
		         "DIR/lockswap-%%p%s", suffix);
		return false;
	}
	char dir[LS_TEXT_MAX];
	const char *slash = strrchr(v, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", slash == v ? 1 : (int)(slash - v), v);
	/* A directory named with %p is made per process: nothing to check. */
	if (strchr(dir, '%') || access(dir, W_OK | X_OK) == 0)
		return true;
	snprintf(why, len, "cannot write into directory %.200s (%s)", dir, strerror(errno));
	return false;
}

bool ls_signal_option_check(const char *v, char *why, size_t len)
{
	if (!*v)
		return true;
	/* The statistics' own parser, plus the two signals it does not know
	 * because they cannot be caught: named here to say so. */
	const char *name = strncmp(v, "SIG", 3) == 0 ? v + 3 : v;
	int sig = strcmp(name, "KILL") == 0 ? SIGKILL
	        : strcmp(name, "STOP") == 0 ? SIGSTOP : ls_stats_parse_signal(v);
	if (sig == SIGKILL || sig == SIGSTOP) {
		snprintf(why, len, "signal %d (%s) cannot be caught, so it cannot trigger a dump; "
		         "choose another, e.g. USR2", sig, sig == SIGKILL ? "KILL" : "STOP");
		return false;
	}
	if (sig < 0) {
		snprintf(why, len, "not a signal name or number (accepted: a name such as USR2 or "
		         "SIGUSR2, or a number in 1..%d)", SIGRTMAX);
		return false;
	}
	return true;
}
