/*
 * uncontended_ops.c - instructions per uncontended lock+unlock, for
 * callgrind.  Directly linked with core/ and backends/ (no preload): one
 * thread, one lock, N lock/unlock pairs through the backend's ops table
 * (as the interposer calls them), or through glibc's pthread_mutex_*.
 *
 * Build and measure (see docs/algorithms-locks.md, "Uncontended cost"):
 *   gcc -std=c11 -D_GNU_SOURCE -O2 -I. -o /tmp/uncontended_ops \
 *       docs/tools/uncontended_ops.c core/*/*.c backends/*.c -lpthread
 *   valgrind --tool=callgrind --toggle-collect=run_loop \
 *       --callgrind-out-file=/tmp/uncontended.cg /tmp/uncontended_ops mcs 100000
 *   grep ^summary /tmp/uncontended.cg      # Ir; divide by N
 * Arguments: BACKEND [N [MODE]]; BACKEND is a table name ("capacitor:mcs")
 * or "glibc"; MODE "contended" selects the capacitor's contended mode.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "core/wrap/capacitor.h"

static const struct ls_lock_ops *ops;
static _Alignas(16) unsigned char state[LS_LOCK_STATE_BYTES];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void run_loop(long n)
{
	if (ops) {
		for (long i = 0; i < n; i++) {
			ops->lock(state);
			ops->unlock(state);
		}
	} else {
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
	}
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "futex";
	long n = argc > 2 ? atol(argv[2]) : 100000;
	char err[512];
	if (argc > 3 && strcmp(argv[3], "contended") == 0)
		atomic_store(&ls_capacitor_mode, LS_CAP_MODE_CONTENDED);
	if (strcmp(name, "glibc") != 0 && !(ops = ls_backend_select(name, err, sizeof err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	run_loop(1); /* first use: thread records, lazy set-up */
	run_loop(n);
	printf("%s: %ld lock+unlock pairs\n", name, n);
	return 0;
}
