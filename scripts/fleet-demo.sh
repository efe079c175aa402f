#!/bin/bash
# fleet-demo.sh - a fleet experiment on one machine, in well under a minute:
# N processes of a real workload (LevelDB's fillrandom with concurrent
# writers, or MutexBench) run with the same LOCKSWAP_ARMS; each
# picks its arm from a stable hash of its shard number (LOCKSWAP_ARM_KEY=
# SHARD), writes its lock statistics as JSON and Prometheus text, and saves
# its own throughput next to them.  Then `lockswap report --by-arm`
# compares the arms.  docs/fleet.md is the same recipe for a real fleet.
#
#   bash scripts/fleet-demo.sh          (after `make`)
#
# Settings (plain variables; a LOCKSWAP_* name would be read by the
# library as one of its options):
#   FLEET_PROCESSES=24                  processes (fewer may leave an arm of
#                                       the default four with one process or
#                                       none: the arm is a hash of SHARD)
#   FLEET_JOBS=CPUs/4 (at least 1)      how many run at once: each of the
#                                       workload's 4 threads gets a CPU, as
#                                       it would on a host of its own; more
#                                       crowd the CPUs, and a process whose
#                                       threads take turns hardly contends
#   FLEET_ARMS="glibc; futex; ..."      the LOCKSWAP_ARMS of every process
#                                       (default below; the first is the baseline)
#   FLEET_WORKLOAD=leveldb|mutexbench   the program each process runs
#   FLEET_OUT=out/fleet                 where everything goes
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

PROCESSES=${FLEET_PROCESSES:-24}
JOBS=${FLEET_JOBS:-$(($(nproc) / 4))}
((JOBS >= 1)) || JOBS=1
ARMS=${FLEET_ARMS:-"glibc; futex; name=restricted restrict:futex RESTRICT_ACTIVE=2; name=sliced slice:futex"}
WORKLOAD=${FLEET_WORKLOAD:-leveldb}
OUT=${FLEET_OUT:-out/fleet}
LOCKSWAP=(/usr/bin/python3 scripts/lockswap)
LIB=$PWD/liblockswap.so

say() { printf '\n== %s\n' "$*"; }
die() { printf 'fleet-demo: %s\n' "$*" >&2; exit 1; }

case $WORKLOAD in
leveldb)
	PROGRAM=(build/bench/leveldb_bench --benchmarks fillrandom --threads 4 --num 100000 --json)
	METRIC=ops_per_sec ;;
mutexbench)
	PROGRAM=(build/bench/mutexbench --threads 4 --seconds 2 --cs-work 200 --json)
	METRIC=throughput ;;
*) die "FLEET_WORKLOAD=$WORKLOAD: expected leveldb or mutexbench" ;;
esac
[[ $PROCESSES =~ ^[0-9]+$ ]] && ((PROCESSES >= 2)) || die "FLEET_PROCESSES=$PROCESSES: expected a number >= 2"
[[ $JOBS =~ ^[0-9]+$ ]] || die "FLEET_JOBS=$JOBS: expected a number >= 1"
if [ ! -f "$LIB" ] || [ ! -x "${PROGRAM[0]}" ]; then
	say "building (make)"
	make -s all || die "make failed; on a fresh Debian machine run bash scripts/install-deps.sh first"
fi

# The check the library makes at start-up, once here rather than in every
# process: a bad list, or a library without arms support, stops the demo.
if ! err=$(SHARD=0 "${LOCKSWAP[@]}" run --arms "$ARMS" --arm-key SHARD -- true 2>&1 >/dev/null); then
	die "${err#lockswap: }"
fi

rm -rf "$OUT/stats" "$OUT/prom" "$OUT/logs"
mkdir -p "$OUT/stats" "$OUT/prom" "$OUT/logs" || die "cannot create $OUT"

say "which arm each shard will run (lockswap run asks the library, before the program starts)"
for ((i = 0; i < PROCESSES; i++)); do
	SHARD=$i "${LOCKSWAP[@]}" run --arms "$ARMS" --arm-key SHARD -- true 2>&1 >/dev/null |
		sed "s/^/  shard $i: /"
done

say "$PROCESSES processes of ${PROGRAM[*]}, $JOBS at a time"
# The fleet's configuration: the same for every process but SHARD.  Each
# process writes its statistics to a file of its own (at exit), and its
# stdout - the workload's JSON - becomes the application metric file
# shard-N.app.json next to shard-N.json (docs/fleet.md).  Its exit status
# goes to a file: `wait -n` below reaps processes in any order.
for ((i = 0; i < PROCESSES; i++)); do
	while (($(jobs -rp | wc -l) >= JOBS)); do wait -n; done
	(
		SHARD=$i LD_PRELOAD=$LIB \
			LOCKSWAP_ARMS="$ARMS" LOCKSWAP_ARM_KEY=SHARD \
			LOCKSWAP_STATS=summary LOCKSWAP_STATS_TOP=0 \
			LOCKSWAP_STATS_FILE="$OUT/stats/shard-$i.json" \
			LOCKSWAP_STATS_PROM="$OUT/prom/shard-$i.prom" \
			"${PROGRAM[@]}" >"$OUT/stats/shard-$i.app.json" 2>"$OUT/logs/shard-$i.err"
		echo $? >"$OUT/logs/shard-$i.status"
	) &
done
wait
failed=0
for ((i = 0; i < PROCESSES; i++)); do
	if [ "$(cat "$OUT/logs/shard-$i.status")" != 0 ] || [ ! -s "$OUT/stats/shard-$i.json" ]; then
		echo "  shard $i failed: $(head -c 300 "$OUT/logs/shard-$i.err")"
		rm -f "$OUT/stats/shard-$i.json" "$OUT/stats/shard-$i.app.json"
		failed=$((failed + 1))
	elif [ -s "$OUT/logs/shard-$i.err" ]; then
		# the library's start-up lines (a refused setting) would say the
		# process did not run its arm: show them
		sed "s/^/  shard $i: /" "$OUT/logs/shard-$i.err"
	fi
done
echo "  $((PROCESSES - failed)) of $PROCESSES processes finished"
((PROCESSES - failed >= 2)) || die "too few processes finished to compare anything"

say "lockswap report --by-arm $OUT/stats/*.json --metric $METRIC --out $OUT/fleet"
"${LOCKSWAP[@]}" report --by-arm "$OUT"/stats/*.json --metric "$METRIC" --out "$OUT/fleet" ||
	die "the comparison failed (above)"

say "done"
echo "  per-arm verdicts: $OUT/fleet.md (and .csv, .json); plot: $OUT/fleet.png"
echo "  Prometheus text files: $OUT/prom/*.prom, for node_exporter"
echo "    --collector.textfile.directory=$PWD/$OUT/prom"
[ "$failed" = 0 ]
