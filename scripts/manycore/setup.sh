# scripts/manycore/setup.sh - sourced by the MutexBench parts of the
# many-core run (bcs.sh, wake.sh), from the repository root:
#   manycore_setup NAME OUTDIR THREADS SECS RUNS
# makes OUTDIR and sets `py` (a python3 with numpy: scripts/lockswap needs
# it; /usr/bin/python3 here, the one on PATH on the 16-core machine), `lib`
# (liblockswap.so) and `bench` (build/bench/mutexbench), or exits 2 naming
# what is missing; and `threads`, `secs`, `runs` to the part's own, or with
# LS_MANYCORE_QUICK=1 to 2 threads, 0.1 s, 2 rounds (to check that it runs).
manycore_setup() {
	mkdir -p "$2"
	py=
	for p in /usr/bin/python3 python3; do
		if "$p" -c 'import numpy' 2>/dev/null; then py=$p; break; fi
	done
	[ -n "$py" ] || { echo "$1: no python3 with numpy" >&2; exit 2; }
	lib=$PWD/liblockswap.so
	bench=build/bench/mutexbench
	for f in "$lib" "$bench" scripts/lockswap; do
		[ -e "$f" ] || { echo "$1: $f is missing (build first, run from the repo root)" >&2; exit 2; }
	done
	if [ "${LS_MANYCORE_QUICK:-0}" = 1 ]; then
		threads="2" secs=0.1 runs=2
	else
		threads=$3 secs=$4 runs=$5
	fi
}
