/*
 * order.c - the lock-order graph (LOCKSWAP_DEADLOCK, docs/deadlock.md).
 *
 * Nodes are locks, by address; an edge A -> B says that some thread
 * requested B with a blocking call (lock, timed lock, rdlock, wrlock, a
 * condvar's re-acquisition) while A was the newest lock it held.  Edges
 * from the older locks it held follow from the chain (A0 -> A1 -> ... ->
 * B), as in the kernel's lockdep, so one edge per request is enough to see
 * every cycle.  A try adds none: it cannot wait.  A new edge that closes
 * a cycle is a potential deadlock: each thread of the cycle can hold its
 * edge's lock while it waits for the next one.
 *
 * Gates.  An edge also keeps the locks that the thread held exclusively
 * (a mutex, an rwlock written) besides A, intersected over every time the
 * edge was seen: its gates.  A cycle all of whose edges share a gate
 * cannot deadlock, since only one thread at a time can be inside it: it
 * is kept, marked gated, and not reported on stderr.  The search for a
 * cycle through a new edge (breadth first, so the shortest) follows each
 * path with the set of the new edge's gates that some edge of the path
 * lacks, and only a path that lacks each of them closes an ungated cycle
 * (at most 4 gates are kept per edge: 16 sets).  An edge seen again with
 * fewer gates is searched again.
 *
 * Destroyed locks.  init and destroy make the address a new lock: its
 * node's generation is bumped, and the edges that name the old
 * generation are dead (skipped by the search, renewed when seen again),
 * so a heap mutex whose memory is reused is a lock without a past.
 *
 * Concurrency.  The graph is written under one lock; the common question,
 * "is this edge already known, with these gates?", is answered without
 * it: both tables are open-addressing, insert-only (a node is never
 * removed, an edge never moves), their slots published with a release
 * store after the entry is filled.  A forget bumps a global epoch, so an
 * edge checked in the current epoch needs no look at its nodes.
 *
 * Bounds: NODE_CAP locks and EDGE_CAP edges in the graph, CYCLE_CAP
 * cycles kept; reaching one says so once on stderr, and lock orders seen
 * after that are not checked.  The memory is reserved at start-up
 * (MAP_NORESERVE) and only the pages written are used.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "comm.h"
#include "../core/mutex/futexlock.h"
#include "../core/runtime/say.h"
#include "unwind.h"
#include "watch_int.h"

#define NODE_CAP (1u << 16)
#define EDGE_CAP (1u << 17)
#define NODE_SLOTS (NODE_CAP * 2)
#define EDGE_SLOTS (EDGE_CAP * 2)
#define GATES 4
#define CYCLE_CAP 1024u
#define SIGS 4096u
#define SEARCH_STATES (1u << 18)
#define READ_PROBES 64
#define ORDER_BUDGET (1u << 16) /* nodes an ordering search may visit */
#define PATH_MAX_EDGES 64 /* edges of a cycle that its signature covers */

struct node {
	uintptr_t addr;
	_Atomic uint32_t gen;
	uint32_t out;           /* first outgoing edge + 1; 0: none */
	uint32_t in;            /* first incoming edge + 1; 0: none */
	uint64_t ord;           /* its place in the order (below); starts as its address */
	uint32_t pk_stamp;      /* the ordering search that last visited it */
	uintptr_t first_site;   /* with the lock's LS_WATCH_* bits in `bits` */
	uint32_t stamp;         /* the search that last visited it */
	uint16_t masks;         /* the gate sets it was reached with in that search */
	uint8_t bits;
};

struct edge {
	uintptr_t from, to;
	uint32_t from_node, to_node;
	_Atomic uint32_t from_gen, to_gen;
	_Atomic uint32_t epoch; /* the forget epoch its generations were last checked in */
	uint32_t next_out, next_in;
	bool ordered;           /* part of the order's graph (not an edge that closed a cycle) */
	_Atomic uintptr_t gate[GATES]; /* 0: none */
	struct ls_order_step info;     /* the occurrence that made (or renewed) it */
};

struct state {
	uint32_t node;
	uint32_t edge;   /* the edge that reached it (index) */
	int32_t parent;  /* the state it was reached from; -1: the first */
	uint16_t mask;
};

struct graph {
	_Atomic uint32_t node_slot[NODE_SLOTS];
	_Atomic uint64_t edge_slot[EDGE_SLOTS]; /* the key's hash << 32 | edge + 1 */
	struct node node[NODE_CAP];
	struct edge edge[EDGE_CAP];
	struct state queue[SEARCH_STATES];
	uint32_t fwd[NODE_CAP], bwd[NODE_CAP], stack[NODE_CAP];
	uint64_t keys[NODE_CAP];
	struct ls_order_cycle cycle[CYCLE_CAP];
	uint64_t sig[SIGS];
};

static struct graph *g;
static struct ls_futexlock graph_lock;
static uint32_t nodes, edges, stamp, pk_stamp, back_edges;
static _Atomic uint32_t epoch = 1;
static _Atomic uint32_t ncycles;
static _Atomic uint64_t found, gated, dropped, cut;
static _Atomic bool full;

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static inline uint32_t node_hash(uintptr_t a) { return (uint32_t)mix(a) & (NODE_SLOTS - 1); }
static inline uint64_t edge_key_hash(uintptr_t a, uintptr_t b)
{
	return mix(a ^ mix(b));
}

/* A slot keeps the key's hash beside the edge's index, so that a probe
 * past another key does not read that edge (a cache miss each). */
static inline uint32_t edge_hash(uintptr_t a, uintptr_t b)
{
	return (uint32_t)edge_key_hash(a, b) & (EDGE_SLOTS - 1);
}

static inline uint64_t edge_slot_value(uintptr_t a, uintptr_t b, uint32_t index)
{
	return (edge_key_hash(a, b) & 0xffffffff00000000ull) | (index + 1);
}

static _Atomic(struct graph *) mapped;

/* Once, even with several threads starting up together. */
bool ls_order_setup(void)
{
	if (g)
		return true;
	struct graph *have = atomic_load(&mapped);
	if (!have) {
		void *p = mmap(NULL, sizeof *g, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return false;
		if (!atomic_compare_exchange_strong(&mapped, &have, (struct graph *)p))
			munmap(p, sizeof *g);
		else
			have = p;
	}
	g = have;
	return true;
}

static inline bool order_on(void)
{
	return g && ls_watch_cfg.order != LS_ORDER_OFF;
}

/* ---- lock-free look-ups ---- */

static struct node *node_find(uintptr_t addr)
{
	uint32_t h = node_hash(addr);
	for (uint32_t i = 0; i < NODE_SLOTS; i++) {
		uint32_t v = atomic_load_explicit(&g->node_slot[(h + i) & (NODE_SLOTS - 1)],
		                                  memory_order_acquire);
		if (!v)
			return NULL;
		if (g->node[v - 1].addr == addr)
			return &g->node[v - 1];
	}
	return NULL;
}

static struct edge *edge_find(uintptr_t from, uintptr_t to, uint32_t probes)
{
	uint64_t k = edge_key_hash(from, to);
	uint32_t h = (uint32_t)k & (EDGE_SLOTS - 1);
	for (uint32_t i = 0; i < probes; i++) {
		uint64_t v = atomic_load_explicit(&g->edge_slot[(h + i) & (EDGE_SLOTS - 1)],
		                                  memory_order_acquire);
		if (!v)
			return NULL;
		if ((v ^ k) >> 32)
			continue;
		struct edge *e = &g->edge[(uint32_t)v - 1];
		if (e->from == from && e->to == to)
			return e;
	}
	return NULL;
}

static bool in(uintptr_t x, const uintptr_t *set, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (set[i] == x)
			return true;
	return false;
}

/* Is the edge known, alive, and with no gate that `gates` lacks?  Then
 * this request tells the graph nothing new. */
static bool edge_known(uintptr_t from, uintptr_t to, const uintptr_t *gates, unsigned ng)
{
	struct edge *e = edge_find(from, to, READ_PROBES);
	if (!e)
		return false;
	uint32_t now = atomic_load_explicit(&epoch, memory_order_acquire);
	if (atomic_load_explicit(&e->epoch, memory_order_relaxed) != now) {
		struct node *a = &g->node[e->from_node], *b = &g->node[e->to_node];
		if (atomic_load_explicit(&a->gen, memory_order_acquire) !=
		            atomic_load_explicit(&e->from_gen, memory_order_relaxed) ||
		    atomic_load_explicit(&b->gen, memory_order_acquire) !=
		            atomic_load_explicit(&e->to_gen, memory_order_relaxed))
			return false;
		atomic_store_explicit(&e->epoch, now, memory_order_relaxed);
	}
	for (unsigned i = 0; i < GATES; i++) {
		uintptr_t x = atomic_load_explicit(&e->gate[i], memory_order_relaxed);
		if (x && !in(x, gates, ng))
			return false;
	}
	return true;
}

/* ---- writing (under graph_lock) ---- */

static void say_full(const char *what)
{
	if (!atomic_exchange(&full, true)) {
		char line[256];
		snprintf(line, sizeof line, "lockswap: the lock-order graph is full (%s): lock orders "
		         "seen from now on are not checked (at most %u locks, %u lock pairs)\n",
		         what, NODE_CAP, EDGE_CAP);
		ls_say(line);
	}
}

static struct node *node_get(uintptr_t lock, uintptr_t site)
{
	uintptr_t addr = lock & ~(uintptr_t)LS_WATCH_BITS;
	struct node *n = node_find(addr);
	if (!n) {
		if (nodes == NODE_CAP) {
			say_full("locks");
			return NULL;
		}
		n = &g->node[nodes];
		n->addr = addr;
		n->out = 0;
		n->in = 0;
		/* Unique, and already right for a program that orders its locks
		 * by address (the common rule for locking two of a kind). */
		n->ord = addr;
		n->pk_stamp = 0;
		n->first_site = 0;
		uint32_t h = node_hash(addr);
		while (atomic_load_explicit(&g->node_slot[h], memory_order_relaxed))
			h = (h + 1) & (NODE_SLOTS - 1);
		atomic_store_explicit(&g->node_slot[h], ++nodes, memory_order_release);
	}
	if (!n->first_site) {
		n->first_site = site;
		n->bits = (uint8_t)(lock & LS_WATCH_RWLOCK);
	}
	return n;
}

static bool alive(const struct edge *e)
{
	return atomic_load_explicit(&e->from_gen, memory_order_relaxed) ==
	               atomic_load_explicit(&g->node[e->from_node].gen, memory_order_relaxed) &&
	       atomic_load_explicit(&e->to_gen, memory_order_relaxed) ==
	               atomic_load_explicit(&g->node[e->to_node].gen, memory_order_relaxed);
}

/* The gates (among the `ng` of set) that e lacks, as bits. */
static uint16_t lacks(const struct edge *e, const uintptr_t *set, unsigned ng)
{
	uint16_t m = 0;
	for (unsigned j = 0; j < ng; j++) {
		bool has = false;
		for (unsigned i = 0; i < GATES && !has; i++)
			has = atomic_load_explicit(&e->gate[i], memory_order_relaxed) == set[j];
		if (!has)
			m |= (uint16_t)(1u << j);
	}
	return m;
}

static bool visited(struct node *n, uint16_t mask)
{
	if (n->stamp != stamp) {
		n->stamp = stamp;
		n->masks = 0;
	}
	if (n->masks & (1u << mask))
		return true;
	n->masks |= (uint16_t)(1u << mask);
	return false;
}

/* A cycle is kept once: its signature is the sum of its edges' hashes,
 * whatever edge it was found from.  Bit 0 of an entry: found gated; bit 1:
 * found ungated (and reported). */
static bool first_time(uint64_t sig, bool is_gated)
{
	sig |= 3; /* never 0; the low bits are the flags */
	uint64_t flag = is_gated ? 1 : 2;
	uint32_t h = (uint32_t)mix(sig) & (SIGS - 1);
	for (uint32_t i = 0; i < SIGS; i++) {
		uint64_t *s = &g->sig[(h + i) & (SIGS - 1)];
		if (!*s) {
			*s = (sig & ~(uint64_t)3) | flag;
			return true;
		}
		if ((*s & ~(uint64_t)3) == (sig & ~(uint64_t)3)) {
			bool seen = *s & (is_gated ? 3 : 2);
			*s |= flag;
			return !seen;
		}
	}
	return true; /* the table is full: cycles are still bounded by CYCLE_CAP */
}

static struct ls_order_lock lock_of(uint32_t node, uintptr_t with_bits)
{
	struct node *n = &g->node[node];
	return (struct ls_order_lock){ .addr = n->addr | (with_bits & LS_WATCH_BITS & ~LS_WATCH_TIMED),
	                               .first_site = n->first_site };
}

/* Keep the cycle made of the `len` edges path[] (path[0] the new one). */
static struct ls_order_cycle *keep(const uint32_t *path, uint32_t len, bool is_gated,
                                   uintptr_t gate)
{
	uint64_t sig = 0;
	for (uint32_t i = 0; i < len && i < PATH_MAX_EDGES; i++)
		sig += mix(g->edge[path[i]].from ^ mix(g->edge[path[i]].to));
	if (!first_time(sig, is_gated))
		return NULL;
	atomic_fetch_add(is_gated ? &gated : &found, 1);
	uint32_t at = atomic_load_explicit(&ncycles, memory_order_relaxed);
	if (at == CYCLE_CAP) {
		if (atomic_fetch_add(&dropped, 1) == 0)
			ls_say("lockswap: more lock-order cycles than are kept (1024): the next ones "
			       "are counted, not reported\n");
		return NULL;
	}
	struct ls_order_cycle *c = &g->cycle[at];
	memset(c, 0, sizeof *c);
	c->len = len;
	c->gated = is_gated;
	if (gate) {
		struct node *n = node_find(gate);
		c->gate = (struct ls_order_lock){ gate, n ? n->first_site : 0 };
	}
	for (uint32_t i = 0; i < len && i < LS_ORDER_CYCLE_EDGES; i++) {
		const struct edge *e = &g->edge[path[i]];
		c->step[i] = e->info;
		c->step[i].from = lock_of(e->from_node, e->info.from.addr);
		c->step[i].to = lock_of(e->to_node, e->info.to.addr);
	}
	/* Gated cycles are only kept (the JSON); nobody prints them. */
	atomic_store_explicit(&c->printed, is_gated, memory_order_relaxed);
	atomic_store_explicit(&ncycles, at + 1, memory_order_release);
	return is_gated ? NULL : c;
}

/* The cycle that state s closes with edge `last`: the new edge first (the
 * first state's), then each state's edge, then `last`; the first
 * PATH_MAX_EDGES in path[], the length returned. */
static uint32_t path_of(int32_t s, uint32_t last, uint32_t *path)
{
	uint32_t depth = 0;
	for (int32_t x = s; x >= 0; x = g->queue[x].parent)
		depth++;
	uint32_t i = depth;
	for (int32_t x = s; x >= 0; x = g->queue[x].parent)
		if (--i < PATH_MAX_EDGES)
			path[i] = g->queue[x].edge;
	if (depth < PATH_MAX_EDGES)
		path[depth] = last;
	return depth + 1;
}

/* The shortest cycle through the new (or changed) edge e0, ungated if
 * there is one (returned, to report), else gated (kept only). */
static struct ls_order_cycle *search(uint32_t e0)
{
	const struct edge *first = &g->edge[e0];
	uintptr_t set[GATES];
	unsigned ng = 0;
	for (unsigned i = 0; i < GATES; i++) {
		uintptr_t x = atomic_load_explicit(&first->gate[i], memory_order_relaxed);
		if (x)
			set[ng++] = x;
	}
	uint16_t all = (uint16_t)((1u << ng) - 1);
	uint32_t target = first->from_node;
	if (++stamp == 0) {
		for (uint32_t i = 0; i < nodes; i++)
			g->node[i].stamp = 0;
		stamp = 1;
	}
	struct state *q = g->queue;
	q[0] = (struct state){ .node = first->to_node, .edge = e0, .parent = -1, .mask = 0 };
	visited(&g->node[first->to_node], 0);
	uint32_t head = 0, tail = 1;
	int32_t gated_state = -2;
	uint32_t gated_edge = 0;
	uint16_t gated_mask = 0;
	while (head < tail) {
		int32_t s = (int32_t)head++;
		for (uint32_t ei = g->node[q[s].node].out; ei; ei = g->edge[ei - 1].next_out) {
			const struct edge *e = &g->edge[ei - 1];
			if (ei - 1 == e0 || !alive(e))
				continue;
			uint16_t m = q[s].mask | lacks(e, set, ng);
			if (e->to_node == target) {
				if (m == all) {
					uint32_t path[PATH_MAX_EDGES];
					uint32_t len = path_of(s, ei - 1, path);
					return keep(path, len, false, 0);
				}
				if (gated_state == -2) {
					gated_state = s;
					gated_edge = ei - 1;
					gated_mask = m;
				}
				continue;
			}
			if (visited(&g->node[e->to_node], m))
				continue;
			if (tail == SEARCH_STATES) {
				atomic_fetch_add(&cut, 1);
				head = tail;
				break;
			}
			q[tail++] = (struct state){ .node = e->to_node, .edge = ei - 1, .parent = s, .mask = m };
		}
	}
	if (gated_state != -2) {
		uint32_t path[PATH_MAX_EDGES];
		uint32_t len = path_of(gated_state, gated_edge, path);
		uintptr_t gate = 0;
		for (unsigned j = 0; j < ng && !gate; j++)
			if (!(gated_mask & (1u << j)))
				gate = set[j];
		keep(path, len, true, gate);
	}
	return NULL;
}

/* ---- the order: which new edges need a search ----
 *
 * The search above costs up to the whole graph, and a program that nests
 * thousands of locks in a consistent order makes as many edges, none of
 * them in a cycle.  So the graph keeps a topological order of its edges
 * (Pearce and Kelly, "A Dynamic Topological Sort Algorithm for Directed
 * Acyclic Graphs", 2006): each node has a key, every ordered edge goes from
 * a smaller key to a larger one, and a new edge that agrees with the keys
 * cannot close a cycle: no search.  One that does not is followed forward
 * from its head through the nodes whose keys lie below its tail's (a path
 * back to its tail is a cycle: the edge stays out of the order, and the
 * search above names the cycle), and backward from its tail through the
 * keys above its head's; the two sets' keys are then dealt out again,
 * the backward set first, each in its old order.  Keys start as the locks'
 * addresses, so a program that locks by address needs no reordering.
 *
 * An edge that closed a cycle (reported or gated) is not in the order, so
 * a later cycle that needs that edge too is not searched for, unless the
 * later edge is out of order itself or a gate shrinks (below). */

static bool pk_seen(struct node *n)
{
	if (n->pk_stamp == pk_stamp)
		return true;
	n->pk_stamp = pk_stamp;
	return false;
}

static void pk_next_stamp(void)
{
	if (++pk_stamp == 0) {
		for (uint32_t i = 0; i < nodes; i++)
			g->node[i].pk_stamp = 0;
		pk_stamp = 1;
	}
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = g->node[*(const uint32_t *)a].ord, y = g->node[*(const uint32_t *)b].ord;
	return x < y ? -1 : x > y;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

enum { ORDERED, CLOSES_CYCLE, UNKNOWN };

/* Put e into the order; CLOSES_CYCLE: a path of ordered edges leads from
 * its head back to its tail; UNKNOWN: the search met its budget (e stays
 * out, as for a cycle, and the search above decides). */
static int order_insert(struct edge *e)
{
	struct node *x = &g->node[e->from_node], *y = &g->node[e->to_node];
	e->ordered = false;
	if (x->ord < y->ord) {
		e->ordered = true;
		return ORDERED;
	}
	uint64_t lo = y->ord, hi = x->ord;
	uint32_t nf = 0, nb = 0, sp = 0, visits = 0;
	pk_next_stamp();
	pk_seen(y);
	g->fwd[nf++] = g->stack[sp++] = e->to_node;
	while (sp) {
		uint32_t v = g->stack[--sp];
		for (uint32_t ei = g->node[v].out; ei; ei = g->edge[ei - 1].next_out) {
			const struct edge *f = &g->edge[ei - 1];
			if (!f->ordered || !alive(f))
				continue;
			if (f->to_node == e->from_node)
				return CLOSES_CYCLE;
			struct node *w = &g->node[f->to_node];
			if (w->ord < hi && !pk_seen(w)) {
				if (++visits > ORDER_BUDGET)
					return UNKNOWN;
				g->fwd[nf++] = g->stack[sp++] = f->to_node;
			}
		}
	}
	pk_next_stamp();
	pk_seen(x);
	g->bwd[nb++] = g->stack[sp++] = e->from_node;
	while (sp) {
		uint32_t v = g->stack[--sp];
		for (uint32_t ei = g->node[v].in; ei; ei = g->edge[ei - 1].next_in) {
			const struct edge *f = &g->edge[ei - 1];
			if (!f->ordered || !alive(f))
				continue;
			struct node *w = &g->node[f->from_node];
			if (w->ord > lo && !pk_seen(w)) {
				if (++visits > ORDER_BUDGET)
					return UNKNOWN;
				g->bwd[nb++] = g->stack[sp++] = f->from_node;
			}
		}
	}
	/* Deal the keys out again: the nodes that reach the tail first. */
	qsort(g->fwd, nf, sizeof g->fwd[0], by_key);
	qsort(g->bwd, nb, sizeof g->bwd[0], by_key);
	for (uint32_t i = 0; i < nb; i++)
		g->keys[i] = g->node[g->bwd[i]].ord;
	for (uint32_t i = 0; i < nf; i++)
		g->keys[nb + i] = g->node[g->fwd[i]].ord;
	qsort(g->keys, nb + nf, sizeof g->keys[0], by_value);
	for (uint32_t i = 0; i < nb; i++)
		g->node[g->bwd[i]].ord = g->keys[i];
	for (uint32_t i = 0; i < nf; i++)
		g->node[g->fwd[i]].ord = g->keys[nb + i];
	e->ordered = true;
	return ORDERED;
}

/* A new or renewed edge: ordered, or searched. */
static struct ls_order_cycle *place(struct edge *e)
{
	int r = order_insert(e);
	if (r == ORDERED)
		return NULL;
	back_edges++;
	if (r == UNKNOWN)
		atomic_fetch_add(&cut, 1);
	return search((uint32_t)(e - g->edge));
}

static void set_gates(struct edge *e, const uintptr_t *gates, unsigned ng)
{
	for (unsigned i = 0; i < GATES; i++)
		atomic_store_explicit(&e->gate[i], i < ng ? gates[i] : 0, memory_order_relaxed);
}

/* The gates e keeps and `gates` lacks are dropped; true if any was. */
static bool intersect_gates(struct edge *e, const uintptr_t *gates, unsigned ng)
{
	bool changed = false;
	for (unsigned i = 0; i < GATES; i++) {
		uintptr_t x = atomic_load_explicit(&e->gate[i], memory_order_relaxed);
		if (x && !in(x, gates, ng)) {
			atomic_store_explicit(&e->gate[i], 0, memory_order_relaxed);
			changed = true;
		}
	}
	return changed;
}

/* The request's stack, without lockswap's own frames. */
static uint32_t program_frames(uintptr_t *out, uint32_t max)
{
	void *raw[LS_ORDER_FRAMES + 8];
	int n = ls_stats_unwind(raw, LS_ORDER_FRAMES + 8);
	uint32_t k = 0;
	int i = 0;
	while (i < n && ls_stats_own_frame((uintptr_t)raw[i]))
		i++;
	for (; i < n && k < max; i++)
		out[k++] = (uintptr_t)raw[i];
	return k;
}

static struct ls_order_cycle *add_edge(struct ls_watch_thread *t, uintptr_t from_lock,
                                       uintptr_t held_site, uintptr_t to_lock, uintptr_t site,
                                       const uintptr_t *gates, unsigned ng)
{
	if (atomic_load_explicit(&full, memory_order_relaxed))
		return NULL;
	/* Everything slow before the lock: this occurrence as a report
	 * would show it. */
	struct ls_order_step info = {
		.from = { from_lock, 0 },
		.to = { to_lock, 0 },
		.held_site = held_site,
		.request_site = site,
		.tid = atomic_load_explicit(&t->tid, memory_order_relaxed),
		.timed = to_lock & LS_WATCH_TIMED,
	};
	info.nframes = program_frames(info.frames, LS_ORDER_FRAMES);
	/* The name, read at most every 100 ms: a program that nests
	 * thousands of locks makes as many edges. */
	uint64_t now = ls_watch_now_ns();
	if (!t->name_ns || now - t->name_ns > 100000000u) {
		ls_stats_thread_name(info.tid, t->name, sizeof t->name);
		t->name_ns = now;
	}
	memcpy(info.thread, t->name, sizeof info.thread);
	uintptr_t from = from_lock & ~(uintptr_t)LS_WATCH_BITS, to = to_lock & ~(uintptr_t)LS_WATCH_BITS;

	ls_futexlock_lock(&graph_lock);
	struct ls_order_cycle *c = NULL;
	struct node *a = node_get(from_lock, held_site), *b = a ? node_get(to_lock, site) : NULL;
	if (!a || !b)
		goto out;
	uint32_t ag = atomic_load_explicit(&a->gen, memory_order_relaxed);
	uint32_t bg = atomic_load_explicit(&b->gen, memory_order_relaxed);
	struct edge *e = edge_find(from, to, EDGE_SLOTS);
	enum { NEW, SHRUNK, SAME } what = NEW;
	if (!e) {
		if (edges == EDGE_CAP) {
			say_full("lock pairs");
			goto out;
		}
		e = &g->edge[edges];
		e->from = from;
		e->to = to;
		e->from_node = (uint32_t)(a - g->node);
		e->to_node = (uint32_t)(b - g->node);
		e->next_out = a->out;
		a->out = edges + 1;
		e->next_in = b->in;
		b->in = edges + 1;
		uint32_t h = edge_hash(from, to);
		while (atomic_load_explicit(&g->edge_slot[h], memory_order_relaxed))
			h = (h + 1) & (EDGE_SLOTS - 1);
		atomic_store_explicit(&e->from_gen, ag, memory_order_relaxed);
		atomic_store_explicit(&e->to_gen, bg, memory_order_relaxed);
		set_gates(e, gates, ng);
		e->info = info;
		atomic_store_explicit(&g->edge_slot[h], edge_slot_value(from, to, edges), memory_order_release);
		edges++;
	} else if (atomic_load_explicit(&e->from_gen, memory_order_relaxed) != ag ||
	           atomic_load_explicit(&e->to_gen, memory_order_relaxed) != bg) {
		/* Its locks were destroyed since: the same addresses, new locks. */
		set_gates(e, gates, ng);
		e->info = info;
		atomic_store_explicit(&e->from_gen, ag, memory_order_relaxed);
		atomic_store_explicit(&e->to_gen, bg, memory_order_relaxed);
	} else if (intersect_gates(e, gates, ng)) {
		/* The occurrence that took a gate away is the one a report of
		 * the cycle it opens must show. */
		e->info = info;
		what = SHRUNK;
	} else {
		what = SAME;
	}
	atomic_store_explicit(&e->epoch, atomic_load_explicit(&epoch, memory_order_relaxed),
	                      memory_order_relaxed);
	if (what == NEW)
		c = place(e);
	else if (what == SHRUNK && back_edges)
		/* Fewer gates can turn a gated cycle into a real one; without an
		 * edge out of the order there is no cycle at all. */
		c = search((uint32_t)(e - g->edge));
out:
	ls_futexlock_unlock(&graph_lock);
	return c;
}

struct ls_order_cycle *ls_order_request(struct ls_watch_thread *t, uintptr_t lock, uintptr_t site)
{
	if (!order_on() || !t)
		return NULL;
	uint32_t n = atomic_load_explicit(&t->n, memory_order_relaxed);
	if (n == 0 || n > LS_WATCH_HELD)
		return NULL;
	uintptr_t addr = lock & ~(uintptr_t)LS_WATCH_BITS;
	uintptr_t gates[GATES];
	unsigned ng = 0;
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t h = atomic_load_explicit(&t->held[i].lock, memory_order_relaxed);
		/* Held already: a recursive mutex locked again, a read lock
		 * taken twice, or a self-deadlock (the watchdog's to see); in
		 * none does this request wait for another lock. */
		if ((h & ~(uintptr_t)LS_WATCH_BITS) == addr)
			return NULL;
		if (i + 1 < n && !(h & LS_WATCH_READ) && ng < GATES)
			gates[ng++] = h & ~(uintptr_t)LS_WATCH_BITS;
	}
	/* Full: what the graph knows no longer changes. */
	if (atomic_load_explicit(&full, memory_order_relaxed))
		return NULL;
	uintptr_t top = atomic_load_explicit(&t->held[n - 1].lock, memory_order_relaxed);
	uintptr_t from = top & ~(uintptr_t)LS_WATCH_BITS;
	/* An order this thread met lately, with no gate: nothing to ask. */
	uint32_t now = atomic_load_explicit(&epoch, memory_order_acquire);
	struct ls_watch_known *k = &t->known[(uint32_t)mix(from ^ (addr >> 3)) % LS_WATCH_KNOWN];
	if (ng == 0 && k->from == from && k->to == addr && k->epoch == now)
		return NULL;
	if (edge_known(from, addr, gates, ng)) {
		if (ng == 0)
			*k = (struct ls_watch_known){ from, addr, now };
		return NULL;
	}
	return add_edge(t, top, atomic_load_explicit(&t->held[n - 1].site, memory_order_relaxed),
	                lock, site, gates, ng);
}

void ls_order_forget(uintptr_t addr)
{
	if (!order_on())
		return;
	struct node *n = node_find(addr);
	if (!n)
		return;
	ls_futexlock_lock(&graph_lock);
	atomic_fetch_add_explicit(&n->gen, 1, memory_order_release);
	n->first_site = 0;
	atomic_fetch_add_explicit(&epoch, 1, memory_order_release);
	ls_futexlock_unlock(&graph_lock);
}

void ls_order_after_fork(void)
{
	/* The child starts with no knowledge of lock order: what the
	 * parent's threads did is not this process's, and another thread may
	 * have been writing the graph at the fork.  Fresh zero pages. */
	graph_lock = (struct ls_futexlock){ 0 };
	nodes = edges = stamp = pk_stamp = back_edges = 0;
	/* The records' known orders were the parent's graph's. */
	atomic_fetch_add(&epoch, 1);
	atomic_store(&ncycles, 0);
	atomic_store(&found, 0);
	atomic_store(&gated, 0);
	atomic_store(&dropped, 0);
	atomic_store(&cut, 0);
	atomic_store(&full, false);
	if (g && mmap(g, sizeof *g, PROT_READ | PROT_WRITE,
	              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
		g = NULL;
}

uint32_t ls_order_cycle_count(void)
{
	return g ? atomic_load_explicit(&ncycles, memory_order_acquire) : 0;
}

struct ls_order_cycle *ls_order_cycle_at(uint32_t i)
{
	return &g->cycle[i];
}

void ls_order_counts(struct ls_order_counts *c)
{
	*c = (struct ls_order_counts){
		.locks = nodes,
		.edges = edges,
		.locks_max = NODE_CAP,
		.edges_max = EDGE_CAP,
		.cycles = atomic_load(&found),
		.gated = atomic_load(&gated),
		.cycles_dropped = atomic_load(&dropped),
		.searches_cut = atomic_load(&cut),
		.full = atomic_load(&full),
	};
}
