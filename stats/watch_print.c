/*
 * watch_print.c - the lock-order and hang reports on stderr (watch_int.h),
 * as they are found: by the watchdog, which holds none of the program's
 * locks while it reads symbols, or, for LOCKSWAP_DEADLOCK=abort's last
 * report and where no watchdog runs, by the thread that found the cycle.
 * Reports run under the statistics' dump lock (writing.h), since the
 * symbol tables are shared; `lockswap report` adds file:line and inlined
 * frames from the JSON (watch_out.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"
#include "report.h"
#include "state.h"
#include "watch_int.h"
#include "writing.h"
#include "../core/runtime/cold.h"

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

/* ---- stderr ---- */

static struct ls_out err LS_COLD_BSS; /* under the dump lock */

static void print_cycle(struct ls_out *o, const struct ls_order_cycle *c)
{
	ls_out_printf(o, "lockswap: potential deadlock: a cycle of %u locks in the lock order "
	              "(pid %d): each thread below can hold its lock while it waits for the next\n",
	              c->len, (int)getpid());
	uint32_t kept = c->len < LS_ORDER_CYCLE_EDGES ? c->len : LS_ORDER_CYCLE_EDGES;
	for (uint32_t i = 0; i < kept; i++) {
		const struct ls_order_step *s = &c->step[i];
		char who[64], from[512], to[512], held[256], req[256];
		ls_watch_thread_text(s->tid, s->thread, who, sizeof who);
		ls_watch_lock_text(s->from.addr, s->from.first_site, from, sizeof from);
		ls_watch_lock_text(s->to.addr, s->to.first_site, to, sizeof to);
		/* Where the held lock's one return address is not the user's,
		 * the function that requested the next lock is named: "in". */
		uintptr_t taken = ls_watch_user_site(s->held_site, s->frames, s->nframes);
		ls_watch_site_text(taken, held, sizeof held);
		ls_watch_site_text(ls_watch_user_site(s->request_site, s->frames, s->nframes), req, sizeof req);
		uintptr_t caller = ls_watch_user_caller(s->frames, s->nframes);
		if (caller) {
			size_t k = strlen(req);
			if (k + 4 < sizeof req) {
				memcpy(req + k, " < ", 4);
				ls_watch_site_text(caller, req + k + 3, sizeof req - k - 3);
			}
		}
		ls_out_printf(o, "  %s held %s%s, taken %s %s, and requested %s%s at %s%s\n", who, from,
		              (s->from.addr & LS_WATCH_READ) ? " for reading" : "",
		              taken == s->held_site ? "at" : "in", held, to,
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
	char name[16];
	ls_stats_thread_name(x->holder_tid, name, sizeof name);
	ls_watch_thread_text(x->holder_tid, name, who, sizeof who);
	ls_watch_site_text(x->holder_site, site, sizeof site);
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
		ls_watch_thread_text(x->tid, x->name, who, sizeof who);
		ls_watch_lock_text(x->lock, 0, lock, sizeof lock);
		ls_watch_site_text(x->site, site, sizeof site);
		ls_watch_fmt_wait(waited, sizeof waited, x->waited_ns);
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

