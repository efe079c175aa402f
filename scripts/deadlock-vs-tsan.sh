#!/usr/bin/env bash
# deadlock-vs-tsan.sh - the small programs of tests/deadlock (order.c,
# cxx.cc) under lockswap's lock-order check and hang report, and rebuilt
# with ThreadSanitizer (gcc -fsanitize=thread, its deadlock detector on by
# default), case by case: what each reports (docs/deadlock.md, "Against
# ThreadSanitizer").  A table on stdout; each run's stderr in $OUT.
#
#   scripts/deadlock-vs-tsan.sh            (OUT=out/deadlock-vs-tsan)
#
# lockswap runs with LOCKSWAP_DEADLOCK=report LOCKSWAP_HANG_MS=300 under
# the futex backend; the hanging cases (deadlock, self) end after 1.5 s.
# TSan's binaries run under `setarch -R` (its shadow memory wants the
# address layout without randomisation on recent kernels).
set -u
cd "$(dirname "$0")/.."
make -s all >/dev/null || exit 1
OUT=${OUT:-out/deadlock-vs-tsan}
mkdir -p "$OUT"
LIB=$PWD/liblockswap.so
gcc -std=gnu11 -O1 -g -fsanitize=thread -o "$OUT/order-tsan" tests/deadlock/order.c -lpthread -ldl || exit 1
for o in O0 O2; do
	g++ -std=c++17 -$o -g -fsanitize=thread -o "$OUT/cxx_$o-tsan" tests/deadlock/cxx.cc -lpthread || exit 1
done

# what STDERR-FILE says, in a few words
verdict() {
	local f=$1 out=()
	grep -q "lock-order-inversion" "$f" && out+=("lock-order inversion")
	grep -q "double lock of a mutex" "$f" && out+=("double lock")
	grep -q "data race" "$f" && out+=("data race")
	grep -q "^lockswap: potential deadlock" "$f" && out+=("potential deadlock")
	grep -q "^lockswap: deadlock" "$f" && out+=("deadlock")
	grep -q "^lockswap: long wait" "$f" && out+=("long wait")
	[ ${#out[@]} -eq 0 ] && out=("nothing")
	local text=${out[0]}
	for w in "${out[@]:1}"; do text+=", $w"; done
	echo "$text"
}

row() { # label, program (order|cxx_O0|cxx_O2), case, args...
	local label=$1 prog=$2 c=$3
	shift 3
	local limit=20 bin=build/deadlock/$prog tbin=$OUT/$prog-tsan
	[ "$prog" = order ] && tbin=$OUT/order-tsan
	LOCKSWAP_BACKEND=futex LOCKSWAP_DEADLOCK=report LOCKSWAP_HANG_MS=300 LD_PRELOAD=$LIB \
		timeout $limit "$bin" "$c" "$@" >/dev/null 2>"$OUT/$prog-$c.lockswap"
	setarch -R timeout $limit "$tbin" "$c" "$@" >/dev/null 2>"$OUT/$prog-$c.tsan"
	printf '| %s | `%s %s` | %s | %s |\n' "$label" "$prog" "$c" "$(verdict "$OUT/$prog-$c.tsan")" \
		"$(verdict "$OUT/$prog-$c.lockswap")"
}

echo "| case | program | ThreadSanitizer | lockswap |"
echo "|---|---|---|---|"
row "inversion of 2 locks" order two
row "cycle of 3 locks" order three
row "rwlock/mutex inversion" order rwlock
row "C11 mtx_t inversion" order c11
row "inversion through timed locks" order timed
row "std::lock_guard nesting, -O0" cxx_O0 guard
row "std::lock_guard nesting, -O2" cxx_O2 guard
row "std::shared_mutex/std::mutex, -O2" cxx_O2 shared
row "std::scoped_lock(a, b) against (b, a)" cxx_O2 scoped
row "consistent order, contended" order consistent
row "trylock with back-off" order backoff
row "destroyed mutex, memory reused" order reuse
row "recursive mutex locked again" order recursive
row "lock held across fork" order fork
row "cycle under one gate lock" order gate
row "the gate skipped once" order gate_broken
row "condvar wait" order condwait
row "real deadlock, two threads" order deadlock 1500
row "thread locks its own mutex again" order self 1500
row "holder asleep, waiter waits" order sleeper
