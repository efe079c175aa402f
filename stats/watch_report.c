/*
 * watch_report.c - the reports of the lock-order check and the hang
 * watchdog: on stderr as they are found, and in the statistics' outputs
 * (the JSON's "lock_order" section, docs/stats-schema.json; Prometheus
 * counters; the summary's lines, with the current holders and waiters).
 *
 * Sites are named as the summary names them (symbols.c: demangled,
 * parameters elided), but the user's: the first frame of a request's
 * stack that is neither lockswap's own, nor the C or C++ runtime's, nor
 * one of the standard library's lock wrappers (std::mutex, std::lock_guard,
 * __gthread_* ..., the list of scripts/lockswap_cli/callsite.py).  A site
 * kept as one return address (where a held lock was taken, where a thread
 * waits) that lies in a wrapper (a C++ program built without
 * optimisation, C11's mtx_lock) is named by the request's stack where
 * there is one, else as it is.  `lockswap report` adds file:line and
 * inlined frames from the JSON.
 *
 * Reports run under the statistics' dump lock (writing.h), since the
 * symbol tables are shared, and never on a lock path but for
 * LOCKSWAP_DEADLOCK=abort's last report.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "state.h"
#include "watch_int.h"
#include "writing.h"

bool ls_watch_report_enter(void)
{
	for (int tries = 0; tries < 5000; tries++) {
		if (ls_stats_dump_enter(false))
			return true;
		struct timespec ms = { 0, 1000000 };
		syscall(SYS_nanosleep, &ms, NULL);
	}
	return false;
}

void ls_watch_report_leave(void)
{
	ls_stats_dump_leave();
}

/* ---- the user's frames ---- */

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
static uintptr_t user_caller(const uintptr_t *f, uint32_t n)
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
static uintptr_t user_site(uintptr_t site, const uintptr_t *f, uint32_t n)
{
	if (site && !not_users(site))
		return site;
	uintptr_t u = user_frame(f, n);
	return u ? u : site;
}

static void site_text(uintptr_t pc, char *buf, size_t len)
{
	if (!pc)
		snprintf(buf, len, "?");
	else
		ls_symbol_short(pc, buf, len);
}

/* "mutex lock_a", "rwlock 0x55d0c8a0 (first used at f(...))". */
static void lock_text(uintptr_t lock, uintptr_t first_site, char *buf, size_t len)
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
		site_text(first_site, site, sizeof site);
		snprintf(buf, len, "%s %#lx (first used at %s)", type, (unsigned long)addr, site);
		return;
	}
	snprintf(buf, len, "%s %#lx", type, (unsigned long)addr);
}

static void thread_text(int32_t tid, const char *name, char *buf, size_t len)
{
	if (tid < 0)
		snprintf(buf, len, "a thread of the parent process (before fork)");
	else if (name && name[0])
		snprintf(buf, len, "thread %d \"%s\"", (int)tid, name);
	else
		snprintf(buf, len, "thread %d", (int)tid);
}

/* ---- stderr ---- */

static struct ls_out err; /* under the dump lock */

static void print_cycle(struct ls_out *o, const struct ls_order_cycle *c)
{
	ls_out_printf(o, "lockswap: potential deadlock: a cycle of %u locks in the lock order "
	              "(pid %d): each thread below can hold its lock while it waits for the next\n",
	              c->len, (int)getpid());
	uint32_t kept = c->len < LS_ORDER_CYCLE_EDGES ? c->len : LS_ORDER_CYCLE_EDGES;
	for (uint32_t i = 0; i < kept; i++) {
		const struct ls_order_step *s = &c->step[i];
		char who[64], from[512], to[512], held[256], req[256];
		thread_text(s->tid, s->thread, who, sizeof who);
		lock_text(s->from.addr, s->from.first_site, from, sizeof from);
		lock_text(s->to.addr, s->to.first_site, to, sizeof to);
		site_text(user_site(s->held_site, s->frames, s->nframes), held, sizeof held);
		site_text(user_site(s->request_site, s->frames, s->nframes), req, sizeof req);
		uintptr_t caller = user_caller(s->frames, s->nframes);
		if (caller) {
			size_t k = strlen(req);
			if (k + 4 < sizeof req) {
				memcpy(req + k, " < ", 4);
				site_text(caller, req + k + 3, sizeof req - k - 3);
			}
		}
		ls_out_printf(o, "  %s held %s%s, taken at %s, and requested %s%s at %s%s\n", who, from,
		              (s->from.addr & LS_WATCH_READ) ? " for reading" : "", held, to,
		              (s->to.addr & LS_WATCH_READ) ? " for reading" : "", req,
		              s->timed ? " (a timed lock)" : "");
	}
	if (c->len > kept)
		ls_out_printf(o, "  ... and %u more steps\n", c->len - kept);
}

unsigned ls_watch_print_cycles(void)
{
	uint32_t n = ls_order_cycle_count();
	unsigned printed = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct ls_order_cycle *c = ls_order_cycle_at(i);
		if (atomic_load_explicit(&c->printed, memory_order_acquire))
			continue;
		if (atomic_exchange(&c->printed, true))
			continue;
		if (!printed++) {
			ls_symbols_begin();
			ls_out_init(&err, STDERR_FILENO);
		}
		print_cycle(&err, c);
	}
	if (printed) {
		ls_out_flush(&err);
		ls_symbols_end();
	}
	return printed;
}

static void fmt_wait(char *buf, size_t len, uint64_t ns)
{
	ls_fmt_ns(buf, len, (double)ns);
}

/* "since 04:31:02.123 UTC": the wall-clock time a wait began. */
static void since_text(uint64_t waited_ns, char *buf, size_t len)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	uint64_t t = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec - waited_ns;
	time_t secs = (time_t)(t / 1000000000u);
	struct tm tm;
	gmtime_r(&secs, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%03u UTC", tm.tm_hour, tm.tm_min, tm.tm_sec,
	         (unsigned)(t % 1000000000u / 1000000u));
}

static void holder_text(const struct ls_hang_thread *x, char *buf, size_t len)
{
	if (!x->holder_tid) {
		snprintf(buf, len, "held by no thread lockswap can name (free by now, or taken "
		         "deeper than %d locks or where lockswap does not see)", LS_WATCH_HELD);
		return;
	}
	char who[96], site[256];
	char name[16] = "";
	if (x->holder_tid > 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)x->holder_tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t r = read(fd, name, sizeof name - 1);
			close(fd);
			name[r > 0 ? r : 0] = 0;
			char *nl = strchr(name, '\n');
			if (nl)
				*nl = 0;
		}
	}
	thread_text(x->holder_tid, name, who, sizeof who);
	site_text(x->holder_site, site, sizeof site);
	snprintf(buf, len, "held by %s%s, which took it at %s", who,
	         x->holder_state == LS_WATCH_T_EXITED ? " (exited since)" : "", site);
}

void ls_watch_print_hang(const struct ls_hang *h)
{
	ls_symbols_begin();
	ls_out_init(&err, STDERR_FILENO);
	char who[96], lock[512], site[256], waited[32], held[512], since[32];
	if (h->deadlock && h->n == 1)
		ls_out_printf(&err, "lockswap: deadlock: a thread waits for a lock it holds itself "
		              "(pid %d; LOCKSWAP_HANG_MS=%u)\n", (int)getpid(), ls_watch_cfg.hang_ms);
	else if (h->deadlock)
		ls_out_printf(&err, "lockswap: deadlock: %u threads wait for each other (pid %d; "
		              "LOCKSWAP_HANG_MS=%u)\n", h->n, (int)getpid(), ls_watch_cfg.hang_ms);
	for (uint32_t i = 0; i < h->n; i++) {
		const struct ls_hang_thread *x = &h->t[i];
		thread_text(x->tid, x->name, who, sizeof who);
		lock_text(x->lock, 0, lock, sizeof lock);
		site_text(x->site, site, sizeof site);
		fmt_wait(waited, sizeof waited, x->waited_ns);
		holder_text(x, held, sizeof held);
		const char *mode = (x->lock & LS_WATCH_READ) ? " for reading" : "";
		if (h->deadlock) {
			ls_out_printf(&err, "  %s waits for %s%s at %s, for %s; %s\n", who, lock, mode,
			              site, waited, held);
		} else if (i == 0) {
			since_text(x->waited_ns, since, sizeof since);
			ls_out_printf(&err, "lockswap: long wait: %s has waited %s (since %s) for %s%s at "
			              "%s (pid %d; LOCKSWAP_HANG_MS=%u); %s%s\n", who, waited, since, lock,
			              mode, site, (int)getpid(), ls_watch_cfg.hang_ms, held,
			              h->n > 1 ? ", and waits itself:" : "");
		} else {
			ls_out_printf(&err, "  %s waits for %s%s at %s, for %s; %s%s\n", who, lock, mode,
			              site, waited, held, i + 1 < h->n ? ", and waits itself:" : "");
		}
	}
	ls_out_flush(&err);
	ls_symbols_end();
}

/* ---- the statistics' outputs (inside their dump: symbols are begun) ---- */

static void json_frame(struct ls_out *o, uintptr_t pc)
{
	struct ls_sym s;
	bool named = ls_symbolize(pc, &s);
	ls_out_printf(o, "{\"addr\":\"0x%lx\",\"symbol\":", (unsigned long)pc);
	if (named)
		ls_out_json_str(o, s.name);
	else
		ls_out_put(o, "null");
	ls_out_put(o, ",\"object\":");
	if (s.obj[0])
		ls_out_json_str(o, s.obj);
	else
		ls_out_put(o, "null");
	ls_out_printf(o, ",\"offset\":\"0x%lx\"}", (unsigned long)s.off);
}

static void json_site(struct ls_out *o, const char *key, uintptr_t pc)
{
	ls_out_printf(o, ",\"%s\":", key);
	if (pc)
		json_frame(o, pc);
	else
		ls_out_put(o, "null");
}

static void json_lock(struct ls_out *o, const char *key, uintptr_t lock, uintptr_t first_site)
{
	uintptr_t addr = lock & ~(uintptr_t)LS_WATCH_BITS;
	struct ls_sym var;
	ls_out_printf(o, ",\"%s\":{\"addr\":\"0x%lx\",\"type\":\"%s\",\"name\":", key,
	              (unsigned long)addr, (lock & LS_WATCH_RWLOCK) ? "rwlock" : "mutex");
	if (ls_symbolize_data(addr, &var))
		ls_out_json_str(o, var.name);
	else
		ls_out_put(o, "null");
	ls_out_printf(o, ",\"read\":%s", (lock & LS_WATCH_READ) ? "true" : "false");
	json_site(o, "site", first_site);
	ls_out_put(o, "}");
}

static void json_thread(struct ls_out *o, int32_t tid, const char *name)
{
	ls_out_printf(o, ",\"thread\":{\"tid\":%d,\"name\":", (int)tid);
	ls_out_json_str(o, name);
	ls_out_put(o, "}");
}

static void json_cycle(struct ls_out *o, const struct ls_order_cycle *c)
{
	ls_out_printf(o, "{\"length\":%u,\"gated\":%s", c->len, c->gated ? "true" : "false");
	if (c->gated)
		json_lock(o, "gate", c->gate.addr, c->gate.first_site);
	ls_out_put(o, ",\"edges\":[");
	uint32_t kept = c->len < LS_ORDER_CYCLE_EDGES ? c->len : LS_ORDER_CYCLE_EDGES;
	for (uint32_t i = 0; i < kept; i++) {
		const struct ls_order_step *s = &c->step[i];
		ls_out_printf(o, "%s\n{\"timed\":%s", i ? "," : "", s->timed ? "true" : "false");
		json_lock(o, "from", s->from.addr, s->from.first_site);
		json_lock(o, "to", s->to.addr, s->to.first_site);
		json_site(o, "held_site", s->held_site);
		json_site(o, "request_site", s->request_site);
		ls_out_put(o, ",\"request_stack\":[");
		for (uint32_t k = 0; k < s->nframes; k++) {
			if (k)
				ls_out_put(o, ",");
			json_frame(o, s->frames[k]);
		}
		ls_out_put(o, "]");
		json_thread(o, s->tid, s->thread);
		ls_out_put(o, "}");
	}
	ls_out_put(o, "]}");
}

static void json_hang(struct ls_out *o, const struct ls_hang *h)
{
	ls_out_printf(o, "{\"kind\":\"%s\",\"threads\":[", h->deadlock ? "deadlock" : "long_wait");
	for (uint32_t i = 0; i < h->n; i++) {
		const struct ls_hang_thread *x = &h->t[i];
		ls_out_printf(o, "%s\n{\"tid\":%d,\"name\":", i ? "," : "", (int)x->tid);
		ls_out_json_str(o, x->name);
		json_lock(o, "waits_for", x->lock, 0);
		json_site(o, "site", x->site);
		ls_out_printf(o, ",\"waited_ns\":%llu,\"holder_tid\":", (unsigned long long)x->waited_ns);
		if (x->holder_tid)
			ls_out_printf(o, "%d", (int)x->holder_tid);
		else
			ls_out_put(o, "null");
		json_site(o, "holder_site", x->holder_site);
		ls_out_put(o, "}");
	}
	ls_out_put(o, "]}");
}

/* The threads that hold or wait for a lock now. */
static void json_now(struct ls_out *o)
{
	uint64_t now = ls_watch_now_ns();
	ls_out_put(o, ",\"now\":[");
	int n = 0;
	for (struct ls_watch_thread *t = ls_watch_records(); t; t = t->all_next) {
		uint32_t state = atomic_load_explicit(&t->state, memory_order_acquire);
		if (state != LS_WATCH_T_LIVE && state != LS_WATCH_T_EXITED && state != LS_WATCH_T_PARENT)
			continue;
		uint32_t k = atomic_load_explicit(&t->n, memory_order_acquire);
		k = k < LS_WATCH_HELD ? k : LS_WATCH_HELD;
		uintptr_t wl = atomic_load_explicit(&t->wait_lock, memory_order_acquire);
		if (!k && !wl)
			continue;
		ls_out_printf(o, "%s\n{\"tid\":%d,\"state\":\"%s\",\"holds\":[", n++ ? "," : "",
		              state == LS_WATCH_T_PARENT ? -1 : (int)atomic_load(&t->tid),
		              state == LS_WATCH_T_LIVE ? "live" : state == LS_WATCH_T_EXITED ? "exited" : "parent");
		for (uint32_t i = 0; i < k; i++) {
			ls_out_printf(o, "%s{\"lock\":\"0x%lx\",\"type\":\"%s\",\"read\":%s", i ? "," : "",
			              (unsigned long)(atomic_load(&t->held[i].lock) & ~(uintptr_t)LS_WATCH_BITS),
			              (atomic_load(&t->held[i].lock) & LS_WATCH_RWLOCK) ? "rwlock" : "mutex",
			              (atomic_load(&t->held[i].lock) & LS_WATCH_READ) ? "true" : "false");
			json_site(o, "site", atomic_load(&t->held[i].site));
			ls_out_put(o, "}");
		}
		ls_out_put(o, "],\"waits_for\":");
		if (wl) {
			uint64_t since = atomic_load(&t->wait_ns);
			ls_out_printf(o, "{\"lock\":\"0x%lx\",\"type\":\"%s\",\"read\":%s,\"waited_ns\":%llu",
			              (unsigned long)(wl & ~(uintptr_t)LS_WATCH_BITS),
			              (wl & LS_WATCH_RWLOCK) ? "rwlock" : "mutex",
			              (wl & LS_WATCH_READ) ? "true" : "false",
			              (unsigned long long)(now > since ? now - since : 0));
			json_site(o, "site", atomic_load(&t->wait_site));
			ls_out_put(o, "}");
		} else {
			ls_out_put(o, "null");
		}
		ls_out_put(o, "}");
	}
	ls_out_put(o, "]");
}

static const char *const order_modes[] = { "off", "report", "abort" };

void ls_watch_write_json(struct ls_out *o)
{
	if (!ls_watch_active())
		return;
	struct ls_order_counts c;
	struct ls_watch_counts w;
	ls_order_counts(&c);
	ls_watchdog_counts(&w);
	ls_out_printf(o, ",\"lock_order\":{\"mode\":\"%s\",\"hang_ms\":%u,\"locks\":%llu,"
	              "\"edges\":%llu,\"locks_max\":%llu,\"edges_max\":%llu,\"full\":%s,"
	              "\"cycles_found\":%llu,\"gated_cycles\":%llu,\"cycles_dropped\":%llu,"
	              "\"searches_cut\":%llu,\"deadlocks\":%llu,\"long_waits\":%llu",
	              order_modes[ls_watch_cfg.order < 3 ? ls_watch_cfg.order : 0], ls_watch_cfg.hang_ms,
	              (unsigned long long)c.locks, (unsigned long long)c.edges,
	              (unsigned long long)c.locks_max, (unsigned long long)c.edges_max,
	              c.full ? "true" : "false", (unsigned long long)c.cycles,
	              (unsigned long long)c.gated, (unsigned long long)c.cycles_dropped,
	              (unsigned long long)c.searches_cut, (unsigned long long)w.deadlocks,
	              (unsigned long long)w.long_waits);
	ls_out_put(o, ",\"cycles\":[");
	uint32_t n = ls_order_cycle_count();
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			ls_out_put(o, ",");
		json_cycle(o, ls_order_cycle_at(i));
	}
	ls_out_put(o, "],\"hangs\":[");
	n = ls_watchdog_hang_count();
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			ls_out_put(o, ",");
		json_hang(o, ls_watchdog_hang_at(i));
	}
	ls_out_put(o, "]");
	json_now(o);
	ls_out_put(o, "}");
}

void ls_watch_write_prom(struct ls_out *o, const char *common)
{
	if (!ls_watch_active())
		return;
	struct ls_order_counts c;
	struct ls_watch_counts w;
	ls_order_counts(&c);
	ls_watchdog_counts(&w);
	ls_out_put(o, "# HELP lockswap_lock_order_cycles_total Potential deadlocks: cycles in the lock order, by whether a lock held along all their edges (a gate) rules them out.\n"
	              "# TYPE lockswap_lock_order_cycles_total counter\n");
	ls_out_printf(o, "lockswap_lock_order_cycles_total{%s,gated=\"false\"} %llu\n", common,
	              (unsigned long long)c.cycles);
	ls_out_printf(o, "lockswap_lock_order_cycles_total{%s,gated=\"true\"} %llu\n", common,
	              (unsigned long long)c.gated);
	ls_out_put(o, "# HELP lockswap_hangs_total Waits longer than LOCKSWAP_HANG_MS, by kind: a deadlock (a cycle of waiting threads) or a long wait.\n"
	              "# TYPE lockswap_hangs_total counter\n");
	ls_out_printf(o, "lockswap_hangs_total{%s,kind=\"deadlock\"} %llu\n", common,
	              (unsigned long long)w.deadlocks);
	ls_out_printf(o, "lockswap_hangs_total{%s,kind=\"long_wait\"} %llu\n", common,
	              (unsigned long long)w.long_waits);
}

/* The summary's lines: what was found, and who holds and waits now. */
void ls_watch_write_text(struct ls_out *o)
{
	if (!ls_watch_active())
		return;
	struct ls_order_counts c;
	struct ls_watch_counts w;
	ls_order_counts(&c);
	ls_watchdog_counts(&w);
	ls_out_printf(o, "  lock order (LOCKSWAP_DEADLOCK=%s): %llu potential deadlocks, %llu cycles "
	              "ruled out by a gate lock, %llu locks and %llu orders seen; hangs "
	              "(LOCKSWAP_HANG_MS=%u): %llu deadlocks, %llu long waits\n",
	              order_modes[ls_watch_cfg.order < 3 ? ls_watch_cfg.order : 0],
	              (unsigned long long)c.cycles, (unsigned long long)c.gated,
	              (unsigned long long)c.locks, (unsigned long long)c.edges, ls_watch_cfg.hang_ms,
	              (unsigned long long)w.deadlocks, (unsigned long long)w.long_waits);
	uint64_t now = ls_watch_now_ns();
	for (struct ls_watch_thread *t = ls_watch_records(); t; t = t->all_next) {
		uint32_t state = atomic_load_explicit(&t->state, memory_order_acquire);
		if (state != LS_WATCH_T_LIVE && state != LS_WATCH_T_EXITED && state != LS_WATCH_T_PARENT)
			continue;
		uint32_t k = atomic_load_explicit(&t->n, memory_order_acquire);
		k = k < LS_WATCH_HELD ? k : LS_WATCH_HELD;
		uintptr_t wl = atomic_load_explicit(&t->wait_lock, memory_order_acquire);
		if (!k && !wl)
			continue;
		char who[96], lock[512], site[256];
		thread_text(state == LS_WATCH_T_PARENT ? -1 : atomic_load(&t->tid), NULL, who, sizeof who);
		ls_out_printf(o, "  now: %s%s", who, state == LS_WATCH_T_EXITED ? " (exited)" : "");
		for (uint32_t i = 0; i < k; i++) {
			uintptr_t l = atomic_load(&t->held[i].lock);
			lock_text(l, 0, lock, sizeof lock);
			site_text(atomic_load(&t->held[i].site), site, sizeof site);
			ls_out_printf(o, "%s %s%s (taken at %s)", i ? "," : " holds", lock,
			              (l & LS_WATCH_READ) ? " for reading" : "", site);
		}
		if (wl) {
			uint64_t since = atomic_load(&t->wait_ns);
			char waited[32];
			fmt_wait(waited, sizeof waited, now > since ? now - since : 0);
			lock_text(wl, 0, lock, sizeof lock);
			site_text(atomic_load(&t->wait_site), site, sizeof site);
			ls_out_printf(o, "%s waits for %s at %s, for %s", k ? ";" : "", lock, site, waited);
		}
		ls_out_put(o, "\n");
	}
}
