/*
 * report.c - the run's results on stdout: one JSON object (--json) or one
 * human line.  docs/bench.md lists every key.
 */
#include <stdio.h>

#include "report.h"

static void print_u64_array(const char *key, const uint64_t *v, int n)
{
	printf(",\"%s\":[", key);
	for (int i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
	printf("]");
}

static void print_share_array(const char *key, const uint64_t *v, int n, uint64_t total)
{
	printf(",\"%s\":[", key);
	for (int i = 0; i < n; i++)
		printf("%s%.6f", i ? "," : "", total ? (double)v[i] / (double)total : 0.0);
	printf("]");
}

static void print_us_array(const char *key, const uint64_t *ns, int n)
{
	printf(",\"%s\":[", key);
	for (int i = 0; i < n; i++)
		printf("%s%.1f", i ? "," : "", (double)ns[i] / 1e3);
	printf("]");
}

/* A share, or null where no window had one (the window was shorter than
 * the length, or nobody acquired the lock in any). */
static void print_share_or_null(const char *key, double v)
{
	if (v < 0)
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%.4f", key, v);
}

static void json_short_windows(const char *len, const struct mb_window_shares *ws)
{
	char key[64];
	snprintf(key, sizeof key, "fair_%s_windows", len);
	printf(",\"%s\":%u", key, ws->windows);
	snprintf(key, sizeof key, "fair_%s_idle_windows", len);
	printf(",\"%s\":%u", key, ws->idle);
	snprintf(key, sizeof key, "fair_%s_min_share", len);
	print_share_or_null(key, ws->min_share);
	snprintf(key, sizeof key, "fair_%s_median_min_share", len);
	print_share_or_null(key, ws->median_min_share);
}

static const char *hold_measure(void)
{
	if (!mb_opt.time_holds)
		return "work_units";
#if defined(__x86_64__) || defined(__i386__)
	return "tsc_ticks";
#else
	return "ns";
#endif
}

void mb_report_json(const struct mb_results *r)
{
	int T = mb_opt.threads;
	const struct mb_window *w = r->w;
	printf("{\"bench\":\"mutexbench\",\"mode\":\"%s\",\"threads\":%d,\"locks\":%d,"
	       "\"seconds\":%.3f,\"ops\":%llu,\"throughput\":%.1f,\"min_share\":%.4f,"
	       "\"max_share\":%.4f,\"jain\":%.4f",
	       mb_mode_names[mb_opt.mode], T, mb_opt.locks, r->secs, (unsigned long long)r->so.total,
	       r->tput, r->so.min_share, r->so.max_share, r->so.jain);
	if (mb_opt.mode != M_REQUEST)
		printf(",\"wait_p50_ns\":%llu,\"wait_p99_ns\":%llu,\"wait_p999_ns\":%llu",
		       (unsigned long long)r->p50, (unsigned long long)r->p99,
		       (unsigned long long)r->p999);
	print_u64_array("per_thread_ops", r->wops, T);
	printf(",\"exclusion_ok\":%s", r->excl_ok ? "true" : "false");
	if (mb_opt.mode == M_CONDVAR)
		printf(",\"produced\":%llu,\"consumed\":%llu",
		       (unsigned long long)r->produced, (unsigned long long)r->consumed);
	if (mb_opt.mode == M_RWLOCK)
		printf(",\"read_pct\":%ld", mb_opt.read_pct);
	printf(",\"warmup_s\":%.3f,\"window_start_s\":%.4f,\"window_end_s\":%.4f,"
	       "\"window_rule\":\"%s\",\"all_acquired_s\":",
	       mb_opt.warmup, mb_since_start(w->start), mb_since_start(w->end), mb_rule_names[w->rule]);
	if (r->all_acquired)
		printf("%.4f", mb_since_start(r->all_acquired));
	else
		printf("null");
	printf(",\"run_seconds\":%.3f,\"total_ops\":%llu,\"min_max\":%.4f",
	       (double)(r->run_end - mb_start_ns) / 1e9, (unsigned long long)r->total_ops,
	       r->so.min_max);
	print_share_array("per_thread_ops_share", r->wops, T, r->so.total);
	printf(",\"hold_measure\":\"%s\"", hold_measure());
	print_u64_array("per_thread_hold", r->whold, T);
	print_share_array("per_thread_hold_share", r->whold, T, r->sh.total);
	printf(",\"hold_min_share\":%.4f,\"hold_max_share\":%.4f,\"hold_min_max\":%.4f,"
	       "\"hold_jain\":%.4f", r->sh.min_share, r->sh.max_share, r->sh.min_max, r->sh.jain);
	if (mb_opt.nnice) {
		printf(",\"per_thread_nice\":[");
		for (int i = 0; i < T; i++)
			printf("%s%d", i ? "," : "", mb_thr[i].nice);
		printf("]");
	}
	print_u64_array("per_thread_cpu_ns", r->wcpu, T);
	print_share_array("per_thread_cpu_share", r->wcpu, T, r->sc.total);
	printf(",\"cpu_min_share\":%.4f,\"cpu_max_share\":%.4f,\"voluntary_switches\":%llu,"
	       "\"involuntary_switches\":%llu", r->sc.min_share, r->sc.max_share,
	       (unsigned long long)r->vcsw, (unsigned long long)r->ivcsw);
	json_short_windows("1ms", &r->ms1);
	json_short_windows("10ms", &r->ms10);
	printf(",\"longest_stretch_max_us\":%.1f,\"longest_stretch_median_us\":%.1f",
	       (double)r->longest_max_ns / 1e3, (double)r->longest_median_ns / 1e3);
	print_us_array("per_thread_longest_stretch_us", r->longest_ns, T);
	if (mb_opt.mode == M_REQUEST) {
		printf(",\"requests\":%llu,\"request_p50_ns\":%llu,\"request_p99_ns\":%llu,"
		       "\"request_p999_ns\":%llu,\"request_max_ns\":%llu,"
		       "\"request_worst_thread_p99_ns\":%llu", (unsigned long long)r->requests,
		       (unsigned long long)r->req_p50, (unsigned long long)r->req_p99,
		       (unsigned long long)r->req_p999, (unsigned long long)r->req_max,
		       (unsigned long long)r->req_worst_p99);
		print_u64_array("per_thread_request_p99_ns", r->req_thread_p99, T);
	}
	if (mb_opt.limit)
		printf(",\"limit_throughput\":%.1f,\"limit_ratio\":%.4f", r->limit, r->limit_ratio);
	if (mb_opt.nclasses) {
		printf(",\"classes\":[");
		for (int k = 0; k < mb_opt.nclasses; k++)
			printf("%s{\"cs_work\":%ld,\"threads\":%d,\"ops\":%llu,\"hold\":%llu,"
			       "\"ops_vs_equal\":%.4f,\"hold_vs_equal\":%.4f}", k ? "," : "",
			       mb_opt.class_cs[k], r->cls[k].threads, (unsigned long long)r->cls[k].ops,
			       (unsigned long long)r->cls[k].hold, r->cls[k].ops_vs_equal,
			       r->cls[k].hold_vs_equal);
		printf("],\"class_hold_min_vs_equal\":%.4f,\"class_hold_max_vs_equal\":%.4f",
		       r->cls_min, r->cls_max);
	}
	printf("}\n");
}

/* A short-window share on the human line: "-" where there was none. */
static void human_share(const char *key, double v)
{
	if (v < 0)
		printf(" %s=-", key);
	else
		printf(" %s=%.2f", key, v);
}

void mb_report_human(const struct mb_results *r)
{
	const struct mb_window *w = r->w;
	printf("mutexbench mode=%s threads=%d locks=%d secs=%.2f ops=%llu throughput=%.0f ops/s "
	       "min_share=%.2f max_share=%.2f jain=%.3f",
	       mb_mode_names[mb_opt.mode], mb_opt.threads, mb_opt.locks, r->secs,
	       (unsigned long long)r->so.total, r->tput, r->so.min_share, r->so.max_share,
	       r->so.jain);
	if (mb_opt.mode != M_REQUEST)
		printf(" wait_p50_ns=%llu wait_p99_ns=%llu wait_p999_ns=%llu",
		       (unsigned long long)r->p50, (unsigned long long)r->p99,
		       (unsigned long long)r->p999);
	if (mb_opt.mode == M_CONDVAR)
		printf(" produced=%llu consumed=%llu",
		       (unsigned long long)r->produced, (unsigned long long)r->consumed);
	if (mb_opt.mode == M_RWLOCK)
		printf(" read_pct=%ld", mb_opt.read_pct);
	printf(" hold_min_share=%.2f hold_jain=%.3f cpu_min_share=%.2f switches=%llu+%llu"
	       " window=%.2f-%.2fs(%s)", r->sh.min_share, r->sh.jain, r->sc.min_share,
	       (unsigned long long)r->vcsw, (unsigned long long)r->ivcsw, mb_since_start(w->start),
	       mb_since_start(w->end), mb_rule_names[w->rule]);
	human_share("fair_1ms_min_share", r->ms1.min_share);
	human_share("fair_10ms_min_share", r->ms10.min_share);
	printf(" longest_stretch_us=%.1f", (double)r->longest_max_ns / 1e3);
	if (mb_opt.limit)
		printf(" limit=%.0f ops/s limit_ratio=%.3f", r->limit, r->limit_ratio);
	if (mb_opt.mode == M_REQUEST)
		printf(" request_p50_ns=%llu request_p99_ns=%llu request_p999_ns=%llu"
		       " request_max_ns=%llu request_worst_thread_p99_ns=%llu",
		       (unsigned long long)r->req_p50, (unsigned long long)r->req_p99,
		       (unsigned long long)r->req_p999, (unsigned long long)r->req_max,
		       (unsigned long long)r->req_worst_p99);
	if (mb_opt.nclasses) {
		printf(" class_hold_vs_equal=");
		for (int k = 0; k < mb_opt.nclasses; k++)
			printf("%s%.2f", k ? "/" : "", r->cls[k].hold_vs_equal);
	}
	printf("\n");
}
