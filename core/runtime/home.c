#include "home.h"

#include <sys/mman.h>

#include "thread.h"

__thread struct ls_home *ls_home_current __attribute__((tls_model("initial-exec")));
const struct ls_home_hooks *ls_home_hooks;

/*
 * One block per thread record (kept in it): the struct on the first page, a guard
 * page, then the parking stack.  The parking stack only runs the queue
 * push and the futex wait of a delegable waiter (core/delegation/ces.c):
 * a few hundred bytes; the size leaves room for sanitizer builds and
 * signal frames of SIGSETXID, the one signal left unblocked there.
 */
#define HOME_PAGE 4096u
#define HOME_BYTES (64u * 1024u)

static struct ls_home *make_home(void)
{
	char *p = mmap(NULL, HOME_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	               -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	mprotect(p + HOME_PAGE, HOME_PAGE, PROT_NONE);
	struct ls_home *h = (struct ls_home *)p;
	h->stack_top = p + HOME_BYTES;
	return h;
}

struct ls_home *ls_home_self(void)
{
	struct ls_home *h = ls_home_current;
	if (h)
		return h;
	struct ls_thread *t = ls_thread_self();
	if (!t)
		return NULL;
	/* A record belongs to one live thread at a time, and only its thread
	 * reads or writes this field: no race, plain accesses. */
	if (!t->home && !(t->home = make_home()))
		return NULL;
	ls_home_current = t->home;
	return t->home;
}

void ls_home_arrived(struct ls_home *h)
{
	/* Only a context that was away ran leave_home: one granted the lock
	 * at home has no state of the embedder's to get back (back_home would
	 * restore another wait's). */
	bool was_away = h->away;
	h->away = false;
	const struct ls_home_hooks *k = ls_home_hooks;
	if (was_away && k && k->back_home)
		k->back_home(h);
	ls_raw_set_sigmask(&h->mask);
}

void ls_go_home_slow(enum ls_home_reason why)
{
	struct ls_home *h = ls_home_current;
	h->result = LS_AWAY_BACK;
	h->reason = why;
	/* Back to the delegate (core/delegation/ces.c, run_away), which stops
	 * its batch and wakes our own thread; that thread resumes us here. */
	ls_fiber_switch(&h->ctx, h->delegate);
	ls_home_arrived(h);
}

void ls_home_before_fork(void)
{
	ls_go_home(LS_BACK_FORK);
}

/* ---- counts ----------------------------------------------------------- */

static _Atomic uint64_t n_sections, n_batches, n_granted;
static _Atomic uint64_t n_hist[LS_BATCH_BUCKETS];
static _Atomic uint64_t n_back[LS_BACK_REASONS];

static unsigned bucket(uint32_t n)
{
	unsigned b = 0;
	while (n > 1 && b + 1 < LS_BATCH_BUCKETS) {
		n >>= 1;
		b++;
	}
	return b;
}

/* relaxed: counters, read at exit or by a dump that tolerates skew. */
void ls_delegation_count_batch(uint32_t sections, bool back, enum ls_home_reason why,
                               bool granted)
{
	if (sections) {
		atomic_fetch_add_explicit(&n_sections, sections, memory_order_relaxed);
		atomic_fetch_add_explicit(&n_batches, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&n_hist[bucket(sections)], 1, memory_order_relaxed);
	}
	if (back)
		atomic_fetch_add_explicit(&n_back[why], 1, memory_order_relaxed);
	if (granted)
		atomic_fetch_add_explicit(&n_granted, 1, memory_order_relaxed);
}

uint32_t ls_delegation_batch_bound;

void ls_delegation_counts(struct ls_delegation_counts *out)
{
	out->batch_bound = ls_delegation_batch_bound;
	out->sections = atomic_load_explicit(&n_sections, memory_order_relaxed);
	out->batches = atomic_load_explicit(&n_batches, memory_order_relaxed);
	out->granted = atomic_load_explicit(&n_granted, memory_order_relaxed);
	for (unsigned i = 0; i < LS_BATCH_BUCKETS; i++)
		out->batch_hist[i] = atomic_load_explicit(&n_hist[i], memory_order_relaxed);
	for (unsigned i = 0; i < LS_BACK_REASONS; i++)
		out->handbacks[i] = atomic_load_explicit(&n_back[i], memory_order_relaxed);
}

const char *ls_home_reason_name(enum ls_home_reason why)
{
	static const char *const names[LS_BACK_REASONS] = {
		[LS_BACK_LOCK] = "lock",       [LS_BACK_TIMEDLOCK] = "timedlock",
		[LS_BACK_CONDVAR] = "condvar", [LS_BACK_PARK] = "park",
		[LS_BACK_EXIT] = "exit",       [LS_BACK_FORK] = "fork",
		[LS_BACK_BLOCKING] = "blocking", [LS_BACK_THREAD_STATE] = "thread_state",
	};
	return (unsigned)why < LS_BACK_REASONS ? names[why] : "?";
}
