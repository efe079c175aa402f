/*
 * watch_names.c - how the lock-order and hang reports name things
 * (watch_int.h): a site as the summary names it (symbols.c: demangled,
 * parameters elided), but the user's: the first frame of a request's
 * stack that is neither lockswap's own, nor the C or C++ runtime's, nor
 * one of the standard library's lock wrappers (std::mutex,
 * std::lock_guard, __gthread_* ..., the list of scripts/lockswap_cli/
 * callsite.py).  A site kept as one return address (where a held lock
 * was taken, where a thread waits) that lies in a wrapper (a C++ program
 * built without optimisation, C11's mtx_lock) is named by the request's
 * stack where there is one, else as it is.  A lock is named by its
 * variable, else by its address and first-use site, as the statistics
 * name it.  Inside a report or a dump only (symbols begun).
 */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "watch_int.h"

/* "void std::lock<std::mutex, std::mutex>(std::mutex&, std::mutex&)" ->
 * "std::lock": no return type, template arguments or parameters. */
static void qualified(const char *name, char *out, size_t len)
{
	size_t n = 0;
	int depth = 0;
	for (const char *p = name; *p && n + 1 < len; p++) {
		if (strncmp(p, "operator", 8) == 0 && depth == 0) {
			/* operator() / operator< ...: copied, not taken for brackets */
			size_t k = 8;
			while (p[k] && strchr("()<>=!+-*/%^&|~[],", p[k]) && k < 11)
				k++;
			for (size_t i = 0; i < k && n + 1 < len; i++)
				out[n++] = p[i];
			p += k - 1;
			continue;
		}
		if (*p == '<' || *p == '(') {
			if (*p == '(' && depth == 0)
				break;
			depth++;
		} else if (*p == '>' || *p == ')') {
			depth--;
		} else if (depth == 0) {
			out[n++] = *p;
		}
	}
	out[n] = 0;
	char *space = strrchr(out, ' ');
	if (space)
		memmove(out, space + 1, strlen(space + 1) + 1);
}

static const char *const wrapper_classes[] = {
	"std::mutex", "std::recursive_mutex", "std::timed_mutex", "std::recursive_timed_mutex",
	"std::shared_mutex", "std::shared_timed_mutex", "std::__shared_mutex_pthread",
	"std::__shared_mutex_cv", "std::__mutex_base", "std::__recursive_mutex_base",
	"std::__timed_mutex_impl", "std::lock_guard", "std::unique_lock", "std::scoped_lock",
	"std::shared_lock", "std::condition_variable", "std::_V2::condition_variable_any",
	"std::condition_variable_any", "std::__condvar",
};
static const char *const wrapper_functions[] = {
	"std::lock", "std::try_lock", "std::__try_lock_impl", "std::__detail::__lock_impl",
	"std::__detail::__try_lock_impl",
};
static const char *const wrapper_prefixes[] = { "__gthread_", "std::__gthread_",
	                                        "std::__glibcxx_rwlock_" };
static const char *const runtime_objects[] = { "libc.so", "libpthread.so", "libstdc++.so",
	                                       "libc++.so", "libc++abi.so", "libgcc_s.so" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool wrapper_name(const char *name)
{
	char q[512];
	qualified(name, q, sizeof q);
	for (size_t i = 0; i < COUNT(wrapper_prefixes); i++)
		if (strncmp(q, wrapper_prefixes[i], strlen(wrapper_prefixes[i])) == 0)
			return true;
	for (size_t i = 0; i < COUNT(wrapper_functions); i++)
		if (strcmp(q, wrapper_functions[i]) == 0)
			return true;
	/* A member of a wrapper class (its constructor: the class itself). */
	char *last = NULL;
	for (char *p = strstr(q, "::"); p; p = strstr(p + 2, "::"))
		last = p;
	if (last) {
		*last = 0;
		for (size_t i = 0; i < COUNT(wrapper_classes); i++)
			if (strcmp(q, wrapper_classes[i]) == 0)
				return true;
	}
	return false;
}

/* lockswap itself, the C or C++ runtime, or a lock wrapper. */
static bool not_users(uintptr_t pc)
{
	if (ls_stats_own_frame(pc))
		return true;
	struct ls_sym s;
	bool named = ls_symbolize(pc, &s);
	const char *base = strrchr(s.obj, '/');
	base = base ? base + 1 : s.obj;
	for (size_t i = 0; i < COUNT(runtime_objects); i++)
		if (strncmp(base, runtime_objects[i], strlen(runtime_objects[i])) == 0)
			return true;
	return named && wrapper_name(s.name);
}

/* The user's frame of a stack: 0 if it has none; its index in *at. */
static uintptr_t user_frame_at(const uintptr_t *f, uint32_t n, uint32_t *at)
{
	for (uint32_t i = 0; i < n; i++)
		if (!not_users(f[i])) {
			*at = i;
			return f[i];
		}
	return 0;
}

static uintptr_t user_frame(const uintptr_t *f, uint32_t n)
{
	uint32_t at;
	return user_frame_at(f, n, &at);
}

/* The frame that called the user's frame, if it is the program's own too
 * (not the runtime's, nor the standard library's thread machinery): a
 * request made in a helper is then named with its caller. */
uintptr_t ls_watch_user_caller(const uintptr_t *f, uint32_t n)
{
	uint32_t at;
	if (!user_frame_at(f, n, &at) || at + 1 >= n || not_users(f[at + 1]))
		return 0;
	struct ls_sym s;
	if (ls_symbolize(f[at + 1], &s)) {
		char q[512];
		qualified(s.name, q, sizeof q);
		if (strncmp(q, "std::", 5) == 0 || strncmp(q, "__", 2) == 0)
			return 0;
	}
	return f[at + 1];
}

/* A site kept as one return address, or the stack's user frame where
 * that address is not the user's. */
uintptr_t ls_watch_user_site(uintptr_t site, const uintptr_t *f, uint32_t n)
{
	if (site && !not_users(site))
		return site;
	uintptr_t u = user_frame(f, n);
	return u ? u : site;
}

void ls_watch_site_text(uintptr_t pc, char *buf, size_t len)
{
	if (!pc)
		snprintf(buf, len, "?");
	else
		ls_symbol_short(pc, buf, len);
}

/* "mutex lock_a", "rwlock 0x55d0c8a0 (first used at f(...))". */
void ls_watch_lock_text(uintptr_t lock, uintptr_t first_site, char *buf, size_t len)
{
	uintptr_t addr = lock & ~(uintptr_t)LS_WATCH_BITS;
	const char *type = (lock & LS_WATCH_RWLOCK) ? "rwlock" : "mutex";
	struct ls_sym var;
	if (ls_symbolize_data(addr, &var)) {
		snprintf(buf, len, "%s %.400s", type, var.name);
		return;
	}
	if (first_site) {
		char site[256];
		ls_watch_site_text(first_site, site, sizeof site);
		snprintf(buf, len, "%s %#lx (first used at %s)", type, (unsigned long)addr, site);
		return;
	}
	snprintf(buf, len, "%s %#lx", type, (unsigned long)addr);
}

void ls_watch_thread_text(int32_t tid, const char *name, char *buf, size_t len)
{
	if (tid < 0)
		snprintf(buf, len, "a thread of the parent process (before fork)");
	else if (name && name[0])
		snprintf(buf, len, "thread %d \"%s\"", (int)tid, name);
	else
		snprintf(buf, len, "thread %d", (int)tid);
}

void ls_watch_fmt_wait(char *buf, size_t len, uint64_t ns)
{
	ls_fmt_ns(buf, len, (double)ns);
}

