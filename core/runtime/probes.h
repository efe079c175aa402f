/*
 * probes.h - lockswap's USDT probes (<sys/sdt.h>, systemtap-sdt-dev), for
 * perf, bpftrace and bcc; the one list of them, with their arguments
 * (docs/tracing.md shows them in use).
 *
 * An untraced probe is one nop: a tracer replaces it with a breakpoint
 * while it is attached.  Its arguments are described in the ELF note
 * (readelf -n liblockswap.so) as the registers or constants they are in
 * at that point, so a probe costs no argument set-up where they already
 * are in registers.
 *
 * The glibc names, under the provider "lockswap" with glibc's arguments
 * (nptl's LIBC_PROBE calls), so that a script written for Ubuntu's or
 * Fedora's libc:mutex_entry works under lockswap once the provider and
 * binary are changed.  They sit in the exported entry points
 * (interpose/), and fire whichever backend serves the object, glibc's
 * pass-through included:
 *
 *   mutex_entry(mutex)              pthread_mutex_lock called
 *   mutex_acquired(mutex)           ... and it returned 0
 *   mutex_timedlock_entry(mutex, abstime)   timedlock or clocklock called
 *   mutex_timedlock_acquired(mutex) ... and it returned 0
 *   mutex_release(mutex)            pthread_mutex_unlock called: fires
 *                                   before the release (glibc's just
 *                                   after), so that a release always comes
 *                                   before the next owner's mutex_acquired
 *   mutex_init(mutex), mutex_destroy(mutex)
 *   cond_init(cond, attr), cond_destroy(cond)
 *   cond_wait(cond, mutex)          a wait, timed or not, begins (its
 *                                   release and reacquisition of the mutex
 *                                   fire mutex_release, mutex_entry and
 *                                   mutex_acquired, as glibc's do)
 *   cond_signal(cond), cond_broadcast(cond)
 *   rdlock_entry(rwlock), rdlock_acquire_read(rwlock)   rdlock, and the
 *   wrlock_entry(rwlock), wrlock_acquire_write(rwlock)  timed and clock
 *                                   variants; the second only on success
 *   rwlock_unlock(rwlock)           pthread_rwlock_unlock called
 *   rwlock_destroy(rwlock)
 *
 * As in glibc, trylocks fire nothing.
 *
 * lockswap's own events, in core/:
 *
 *   park(word, expected)            a thread is about to sleep on the
 *                                   32-bit futex word while it holds
 *                                   `expected` (runtime/futex.h
 *                                   ls_futex_wait: every park in lockswap
 *                                   but a ces waiter's on its parking
 *                                   stack, runtime/fiber.h's raw wait)
 *   park_done(word, err)            ... and woke up: err 0, EAGAIN (the
 *                                   word had changed), ETIMEDOUT or EINTR
 *   unpark(word, n, woken)          up to n sleepers on word are woken;
 *                                   `woken` were (runtime/futex.h
 *                                   ls_futex_wake: every wake)
 *   requeue(from, to, moved)        a signalled condvar waiter asleep on
 *                                   `from` is moved, not woken, to its
 *                                   mutex's word `to`, whose unlock wakes
 *                                   it; `moved` 0 when it was not asleep
 *                                   there (runtime/futex.h, condvar/morph.h)
 *   slice_handover(lock, ticket, members)   a lock slice is handed to the
 *                                   waiter holding `ticket` (members > 1:
 *                                   to a group of that many tickets from
 *                                   `ticket` on; wrap/slice.c end_slice)
 *   capacitor_platoon(lock, base, platoons) a departure completed a
 *                                   platoon: `platoons` new ones open, the
 *                                   first admitting tickets from `base`
 *                                   (wrap/capacitor.c)
 *
 * `lock` is the wrapper's state inside the mutex: the pthread_mutex_t's
 * own address for slice:INNER and capacitor:INNER as lockswap lays them
 * out (the wrapper's word comes first).
 *
 * The semaphore.  mutex_acquired has to fire after the lock, which the
 * fast path reaches by a tail jump into the backend's table: a probe
 * there would cost a call frame, not a nop.  So every probe names one
 * USDT semaphore, ls_probe_semaphore, which a tracer increments while
 * any of lockswap's probes is attached (the kernel does it for every
 * process that maps the library), and pthread_mutex_lock,
 * pthread_rwlock_rdlock and pthread_rwlock_wrlock test it first:
 * untraced they pay that test (a compare with memory and a branch) and
 * no probe; traced they take a path out of line that fires the probes
 * around the same bodies.  Every other probe is a plain nop that fires
 * whether or not the semaphore is set: the unlocks' (at their start, the
 * object still in its argument register), signal's and broadcast's, and
 * those off the fast paths.  An uncontended lock+unlock pair pays three
 * instructions, as glibc's three nops (docs/tracing.md, "Cost").
 */
#ifndef LS_CORE_RUNTIME_PROBES_H
#define LS_CORE_RUNTIME_PROBES_H

#include <stdbool.h>

/* X(name, number of arguments): every probe above. */
#define LS_PROBE_LIST(X)                                                                  \
	X(mutex_entry, 1)                                                                  \
	X(mutex_acquired, 1)                                                               \
	X(mutex_timedlock_entry, 2)                                                        \
	X(mutex_timedlock_acquired, 1)                                                     \
	X(mutex_release, 1)                                                                \
	X(mutex_init, 1)                                                                   \
	X(mutex_destroy, 1)                                                                \
	X(cond_init, 2)                                                                    \
	X(cond_destroy, 1)                                                                 \
	X(cond_wait, 2)                                                                    \
	X(cond_signal, 1)                                                                  \
	X(cond_broadcast, 1)                                                               \
	X(rdlock_entry, 1)                                                                 \
	X(rdlock_acquire_read, 1)                                                          \
	X(wrlock_entry, 1)                                                                 \
	X(wrlock_acquire_write, 1)                                                         \
	X(rwlock_unlock, 1)                                                                \
	X(rwlock_destroy, 1)                                                               \
	X(park, 2)                                                                         \
	X(park_done, 2)                                                                    \
	X(unpark, 3)                                                                       \
	X(requeue, 3)                                                                      \
	X(slice_handover, 3)                                                               \
	X(capacitor_platoon, 3)

/* sdt.h names each probe's semaphore lockswap_<name>_semaphore: all are
 * aliases of the one word (probes.c). */
#define LS_PROBE_SEMAPHORE_DECL(name, n)                                                   \
	extern volatile unsigned short lockswap_##name##_semaphore                         \
	        __attribute__((visibility("hidden")));
LS_PROBE_LIST(LS_PROBE_SEMAPHORE_DECL)

extern volatile unsigned short ls_probe_semaphore __attribute__((visibility("hidden")));

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

/* A tracer is attached to one of lockswap's probes.  On x86-64 one
 * compare with memory, whose flag the caller's branch tests: a C load of
 * the volatile word costs a load, a test and the branch (one instruction
 * more on every lock and unlock). */
static inline bool ls_probes_armed(void)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	bool armed;
	__asm__("cmpw $0, %1" : "=@ccnz"(armed) : "m"(ls_probe_semaphore));
	return __builtin_expect(armed, 0);
#else
	return __builtin_expect(ls_probe_semaphore != 0, 0);
#endif
}

#define LS_PROBE1(name, a) STAP_PROBE1(lockswap, name, a)
#define LS_PROBE2(name, a, b) STAP_PROBE2(lockswap, name, a, b)
#define LS_PROBE3(name, a, b, c) STAP_PROBE3(lockswap, name, a, b, c)

#endif
