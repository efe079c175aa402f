#!/usr/bin/env bash
# Unit group: every directly linked cmocka binary (optionally sanitized).
set -u
. "$(dirname "$0")/../lib.sh"
SANDIR=${SANDIR:-build}
case "$SANDIR" in /*) ;; *) SANDIR=$ROOT/$SANDIR ;; esac
shopt -s nullglob
bins=("$SANDIR"/unit/test_*)
[ ${#bins[@]} -gt 0 ] || fail "no unit test binaries in $SANDIR/unit (run make)"
# TSan needs a fixed, low-entropy address space on some kernels.
run=()
[ -n "${SAN:-}" ] && command -v setarch >/dev/null && run=(setarch "$(uname -m)" -R)
# The fork tests start threads in the child, which TSan refuses by default;
# the child is single-threaded until then, so its reports stay meaningful.
export TSAN_OPTIONS="die_after_fork=0 ${TSAN_OPTIONS:-}"
for bin in "${bins[@]}"; do
	name=$(basename "$bin")
	log=$LOGS/unit-${SAN:-plain}-$name.log
	timeout 300 "${run[@]}" "$bin" >"$log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below.*/\1/p' "$log" | tail -1)
	p=${p:-0} f=${f:-0}
	passed=$((passed + p))
	failed=$((failed + f))
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1))
		echo "FAIL - $name exited $rc (see $log)"
		tail -5 "$log" | sed 's/^/    /'
	elif [ "$f" -ne 0 ]; then
		echo "FAIL - $name: $f case(s) failed (see $log)"
		grep -E '^\[  (FAILED|ERROR)|^\[   LINE' "$log" | head -10 | sed 's/^/    /'
	elif grep -q 'WARNING: ThreadSanitizer\|ERROR: AddressSanitizer\|runtime error:' "$log"; then
		failed=$((failed + 1))
		echo "FAIL - $name: sanitizer report (see $log)"
		grep -m3 'WARNING: ThreadSanitizer\|ERROR: AddressSanitizer\|runtime error:' "$log" | sed 's/^/    /'
	else
		echo "ok - $name ($p cases)"
	fi
done
finish unit
