/*
 * gc.c - a real stop-the-world garbage collector under delegation:
 * Boehm GC (Debian's libgc), threads allocating and linking nodes under
 * one mutex, so that collections start inside critical sections (run
 * delegated under ces) and stop every other thread with signals whose
 * handlers must acknowledge from each thread's own context.  Under ces
 * before docs/delegation.md's signal routing, this aborted with "Signals
 * delivery fails constantly".  The program checks its list at the end and
 * exits 0; tests/ces/run.sh runs it under futex and under ces.
 */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 8
#define ROUNDS 4000
#define KEEP 2000

struct node {
	struct node *next;
	long owner, seq;
	char pad[40];
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct node *head; /* a root: the collector scans this variable */
static long length;

static void *worker(void *arg)
{
	long id = (long)arg;
	for (long i = 0; i < ROUNDS; i++) {
		/* Garbage outside the lock too: collections start anywhere. */
		char *scratch = GC_MALLOC(64 + (size_t)(i % 7) * 32);
		scratch[0] = 1;
		pthread_mutex_lock(&m);
		struct node *n = GC_MALLOC(sizeof *n);
		n->owner = id;
		n->seq = i;
		n->next = head;
		head = n;
		if (++length > KEEP) {
			/* Cut the tail: everything past KEEP nodes is garbage. */
			struct node *p = head;
			for (long k = 1; k < KEEP / 2; k++)
				p = p->next;
			p->next = NULL;
			length = KEEP / 2;
		}
		if (i % 1000 == 999)
			GC_gcollect(); /* inside the section */
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	GC_INIT();
	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
			return 2;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	long n = 0, bad = 0;
	for (struct node *p = head; p; p = p->next, n++)
		bad += p->owner < 0 || p->owner >= THREADS || p->seq < 0 || p->seq >= ROUNDS;
	printf("gc: %ld nodes kept, %ld bad, %lu collections\n", n, bad,
	       (unsigned long)GC_get_gc_no());
	return n == length && bad == 0 ? 0 : 1;
}
