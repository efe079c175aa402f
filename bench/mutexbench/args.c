/*
 * args.c - mutexbench's command line: every flag, its range, and the
 * one-line errors (exit 2) for anything else.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutexbench.h"

static long parse_long(const char *name, const char *s, long min, long max)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		mb_usage_error("--%s: not a whole number: '%s'", name, s);
	if (v < min || v > max)
		mb_usage_error("--%s must be between %ld and %ld, got %ld", name, min, max, v);
	return v;
}

static double parse_seconds(const char *name, const char *s, bool zero_ok)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		mb_usage_error("--%s: not a number: '%s'", name, s);
	if ((zero_ok ? v < 0 : v <= 0) || v > 1e6)
		mb_usage_error("--%s must be %s and <= 1e6, got %s", name, zero_ok ? ">= 0" : "> 0", s);
	return v;
}

/* --FLAG 10,100,...: a comma list of at most MAX_CLASSES whole numbers in
 * 0..max into out; returns how many.  `items` and `example` word the
 * error, `unit` follows the bound in it. */
static int parse_list(const char *flag, const char *text, long max, const char *items,
                      const char *example, const char *unit, long *out)
{
	int n = 0;
	const char *p = text;
	for (;;) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || *p == '-' || *p == '+' || *p == ' ')
			mb_usage_error("--%s: expected %s like %s, got '%s'", flag, items, example, text);
		if (v > max)
			mb_usage_error("--%s: %ld is over %ld%s", flag, v, max, unit);
		if (n == MAX_CLASSES)
			mb_usage_error("--%s: at most %d %s", flag, MAX_CLASSES, items);
		out[n++] = v;
		if (!*end)
			return n;
		p = end + 1;
	}
}

/* --classes 10,100,...: one critical-section work per class. */
static void parse_classes(const char *text)
{
	mb_opt.classes_text = text;
	mb_opt.nclasses = parse_list("classes", text, 1L << 30, "critical-section works", "10,100",
	                          " steps", mb_opt.class_cs);
}

/* --nice 0,3,...: nice increments, thread i takes the (i % n)th. */
static void parse_nice(const char *text)
{
	mb_opt.nnice = parse_list("nice", text, 19, "nice increments", "0,3",
	                       ", the largest nice value", mb_opt.nice_inc);
}

static void usage(void)
{
	printf("usage: mutexbench [options]   (run under LD_PRELOAD=liblockswap.so)\n"
	       "  --threads N     worker threads (default 4)\n"
	       "  --seconds S     measured interval, may be fractional (default 1.0)\n"
	       "  --cs-work N     shared PRNG steps inside the critical section (default 10)\n"
	       "  --cs-lines N    shared cache lines written inside it (default 0)\n"
	       "  --ncs-work N    private PRNG steps outside it (default 10)\n"
	       "  --locks K       locks; each op picks one at random (default 1)\n"
	       "  --mode M        mutex | trylock | condvar | mixed | rwlock | request\n"
	       "                  (default mutex); request: time each request, its\n"
	       "                  --ncs-work then the lock and its --cs-work, as a whole\n"
	       "  --read-pct P    rwlock mode: percentage of ops that read-lock (default 90)\n"
	       "  --seed N        PRNG seed (default 1)\n"
	       "  --warmup S      seconds before the measured window may open (default 0.2);\n"
	       "                  it also waits for every thread's first op\n"
	       "  --classes LIST  thread classes by critical-section work, e.g. 10,100:\n"
	       "                  thread i is in class i %% (number of classes)\n"
	       "  --mixed F       two classes: --cs-work and F times it (half the threads each)\n"
	       "  --nice LIST     nice increments, e.g. 0,3: thread i raises its nice value by\n"
	       "                  LIST[i %% n] (raising needs no privilege)\n"
	       "  --limit         first run the same work with one thread alone (a child\n"
	       "                  process) and report this run's throughput over it: how close\n"
	       "                  a lock that serves one owner at a time comes to its limit\n"
	       "  --time-holds    hold shares from a clock read around each critical section\n"
	       "                  (TSC on x86) instead of counted work units\n"
	       "  --json          one JSON object instead of the human line\n"
	       "  --help          this text\n");
}

void mb_parse_args(int argc, char **argv)
{
	enum { O_THREADS = 256, O_SECONDS, O_CSWORK, O_CSLINES, O_NCSWORK, O_LOCKS,
	       O_MODE, O_JSON, O_SEED, O_BREAK, O_READPCT, O_WARMUP, O_CLASSES, O_MIXED,
	       O_TIMEHOLDS, O_LATE, O_NICE, O_LIMIT };
	long mixed = 0;
	static const struct option lo[] = {
		{ "threads",  required_argument, 0, O_THREADS },
		{ "seconds",  required_argument, 0, O_SECONDS },
		{ "cs-work",  required_argument, 0, O_CSWORK },
		{ "cs-lines", required_argument, 0, O_CSLINES },
		{ "ncs-work", required_argument, 0, O_NCSWORK },
		{ "locks",    required_argument, 0, O_LOCKS },
		{ "mode",     required_argument, 0, O_MODE },
		{ "json",     no_argument,       0, O_JSON },
		{ "seed",     required_argument, 0, O_SEED },
		{ "read-pct", required_argument, 0, O_READPCT },
		{ "warmup",   required_argument, 0, O_WARMUP },
		{ "classes",  required_argument, 0, O_CLASSES },
		{ "mixed",    required_argument, 0, O_MIXED },
		{ "time-holds", no_argument,     0, O_TIMEHOLDS },
		{ "nice",     required_argument, 0, O_NICE },
		{ "limit",    no_argument,       0, O_LIMIT },
		{ "help",     no_argument,       0, 'h' },
		{ "break-exclusion", no_argument, 0, O_BREAK },  /* test-only, hidden */
		{ "late-thread", required_argument, 0, O_LATE }, /* test-only, hidden */
		{ 0, 0, 0, 0 }
	};
	opterr = 0;                  /* we print our own one-line messages */
	int c;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		char *end;
		switch (c) {
		case O_THREADS: mb_opt.threads = (int)parse_long("threads", optarg, 1, MAX_THREADS); break;
		case O_CSWORK:  mb_opt.cs_work = parse_long("cs-work", optarg, 0, 1L << 30); break;
		case O_CSLINES: mb_opt.cs_lines = parse_long("cs-lines", optarg, 0, MAX_LINES_TOTAL); break;
		case O_NCSWORK: mb_opt.ncs_work = parse_long("ncs-work", optarg, 0, 1L << 30); break;
		case O_LOCKS:   mb_opt.locks = (int)parse_long("locks", optarg, 1, 1L << 20); break;
		case O_JSON:    mb_opt.json = true; break;
		case O_BREAK:   mb_opt.break_excl = true; break;
		case O_READPCT: mb_opt.read_pct = parse_long("read-pct", optarg, 0, 100); break;
		case O_MIXED:   mixed = parse_long("mixed", optarg, 1, 1L << 20); break;
		case O_TIMEHOLDS: mb_opt.time_holds = true; break;
		case O_CLASSES: parse_classes(optarg); break;
		case O_NICE:    parse_nice(optarg); break;
		case O_LIMIT:   mb_opt.limit = true; break;
		case O_SECONDS: mb_opt.seconds = parse_seconds("seconds", optarg, false); break;
		case O_WARMUP:  mb_opt.warmup = parse_seconds("warmup", optarg, true); break;
		case O_LATE:    mb_opt.late_thread = parse_seconds("late-thread", optarg, true); break;
		case O_SEED:
			errno = 0;
			mb_opt.seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || optarg[0] == '-')
				mb_usage_error("--seed: not a non-negative whole number: '%s'", optarg);
			break;
		case O_MODE: {
			int m;
			for (m = 0; m < NMODES && strcmp(optarg, mb_mode_names[m]); m++)
				;
			if (m == NMODES)
				mb_usage_error("unknown mode '%s' (mutex, trylock, condvar, mixed, rwlock, request)",
				            optarg);
			mb_opt.mode = (enum mb_mode)m;
			break;
		}
		case 'h':
			usage();
			exit(0);
		case ':':
			mb_usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			/* optopt holds the character of a bad short option; for a bad
			 * long option the whole word is the previous argv element. */
			if (optopt > 0 && optopt < 256)
				mb_usage_error("unknown option '-%c' (try --help)", optopt);
			mb_usage_error("unknown or malformed option '%s' (try --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		mb_usage_error("unexpected argument '%s'", argv[optind]);
	if (mixed && mb_opt.classes_text)
		mb_usage_error("give --mixed or --classes, not both");
	if (mixed) {
		if (mb_opt.cs_work * mixed > 1L << 30)
			mb_usage_error("--mixed %ld x --cs-work %ld is over %ld steps", mixed, mb_opt.cs_work, 1L << 30);
		mb_opt.nclasses = 2;
		mb_opt.class_cs[0] = mb_opt.cs_work;
		mb_opt.class_cs[1] = mb_opt.cs_work * mixed;
	}
	if (mb_opt.nclasses > mb_opt.threads)
		mb_usage_error("%d classes need at least as many threads, got --threads %d",
		            mb_opt.nclasses, mb_opt.threads);
	if ((long)mb_opt.locks * mb_opt.cs_lines > MAX_LINES_TOTAL)
		mb_usage_error("--locks x --cs-lines must be <= %ld", MAX_LINES_TOTAL);
	if (mb_opt.mode == M_CONDVAR && mb_opt.threads < 2)
		mb_usage_error("condvar mode needs --threads >= 2 (half produce, half consume)");
	if (mb_opt.mode == M_CONDVAR && mb_opt.locks > mb_opt.threads / 2)
		mb_usage_error("condvar mode needs --locks <= threads/2 so each queue has a producer and a consumer");
	if (mb_opt.limit && (mb_opt.mode == M_CONDVAR || mb_opt.mode == M_MIXED))
		mb_usage_error("--limit needs a mode one thread can run alone (mutex, trylock, rwlock, "
		            "request), not %s", mb_mode_names[mb_opt.mode]);
	if (mb_opt.limit && (mb_opt.nclasses || mb_opt.nnice))
		mb_usage_error("--limit runs one thread alone: give it without --classes, --mixed or --nice");
	if (mb_opt.break_excl && (mb_opt.threads < 2 || mb_opt.mode == M_CONDVAR))
		mb_usage_error("--break-exclusion needs --threads >= 2 and a mode other than condvar");
}
