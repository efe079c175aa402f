/*
 * demangle.c - C++ names made readable at dump time, by the process's own
 * demangler.
 *
 * lockswap is C and links no C++ runtime, but every C++ program has one
 * loaded, and its __cxa_demangle (the Itanium C++ ABI's entry point, in
 * libstdc++ and in libc++abi) is found with dlsym.  A C program has none:
 * its names stay as they are (C names are never mangled).  The lookup is
 * made once per dump, and only when a name starting with "_Z" is met, so
 * a C program never pays for it.
 *
 * __cxa_demangle allocates with malloc.  It runs only where dumps run
 * (dump.c, export.c): the exit dump, the signal helper thread and the
 * Prometheus writer thread, never a signal handler.  Those threads hold
 * no lock a program thread waits for, except the dumps' own flag, which
 * only the exit dump waits for, and the exit path holds no malloc lock
 * when it calls it; their lock calls are not recorded (ls_stats_q.busy).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static demangle_fn fn;
static bool looked;
static void *runtime; /* a C++ runtime opened with RTLD_NOLOAD, held for the dump */

void ls_demangle_begin(void)
{
	fn = NULL;
	looked = false;
	runtime = NULL;
}

void ls_demangle_end(void)
{
	if (runtime)
		dlclose(runtime);
	runtime = NULL;
	fn = NULL;
	looked = false;
}

static void look_up(void)
{
	looked = true;
	fn = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (fn)
		return;
	/* A C program with a C++ plugin opened RTLD_LOCAL: its runtime is
	 * loaded but not in the global scope.  NOLOAD never loads one. */
	runtime = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (runtime)
		fn = (demangle_fn)dlsym(runtime, "__cxa_demangle");
}

bool ls_demangle(const char *name, char *out, size_t len)
{
	if (strncmp(name, "_Z", 2) != 0 || !len)
		return false;
	if (!looked)
		look_up();
	if (!fn)
		return false;
	int status = -1;
	char *text = fn(name, NULL, NULL, &status);
	if (status != 0 || !text) {
		free(text);
		return false;
	}
	size_t n = strlen(text);
	if (n < len) {
		memcpy(out, text, n + 1);
	} else {
		/* Too long for the buffer: without its parameters, else its
		 * head, marked as cut ("..." at the end). */
		ls_name_short(text, out, len);
		if (strlen(out) + 1 >= len)
			snprintf(out, len, "%.*s...", (int)(len > 4 ? len - 4 : 0), text);
	}
	free(text);
	return true;
}

/* "ns::f(int, char const*) const" -> "ns::f(...) const": the parameter
 * list of the last top-level call parentheses is elided, what follows
 * (cv-qualifiers, "[clone .cold]") is kept.  Names without one, and C
 * names, and names cut short ("..."), are copied as they are. */
void ls_name_short(const char *name, char *out, size_t len)
{
	const char *close = strrchr(name, ')');
	const char *open = NULL;
	size_t n = strlen(name);
	bool cut = n >= 3 && strcmp(name + n - 3, "...") == 0;
	if (close && !cut && strncmp(name, "_Z", 2) != 0) {
		int depth = 0;
		for (const char *p = close; p >= name; p--) {
			if (*p == ')')
				depth++;
			else if (*p == '(' && --depth == 0) {
				open = p;
				break;
			}
		}
	}
	if (!open || close == open + 1 || open == name) {
		snprintf(out, len, "%s", name);
		return;
	}
	snprintf(out, len, "%.*s(...)%s", (int)(open - name), name, close + 1);
}
