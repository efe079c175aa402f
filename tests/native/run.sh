#!/usr/bin/env bash
# tests/native/run.sh - the native API as a user gets it: build
# docs/examples/native_counter.c against include/ and liblockswap-native.a
# only (no interposer), run it, and check that the archive does not define
# pthread functions.  Behaviour only, never timing.
set -u
. "$(dirname "$0")/../lib.sh"
CC=${CC:-cc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ARCHIVE=$ROOT/liblockswap-native.a
if ! make -C "$ROOT" liblockswap-native.a >"$TMP/make" 2>&1; then
	fail "build liblockswap-native.a: $(tail -3 "$TMP/make" | tr '\n' ' ')"
	finish native
	exit 1
fi

if nm -g --defined-only "$ARCHIVE" 2>/dev/null | grep -Eq ' T pthread_(mutex|cond)_'; then
	fail "liblockswap-native.a defines pthread_mutex_*/pthread_cond_*"
else
	ok "liblockswap-native.a defines no pthread functions"
fi

EX=$TMP/native_counter
if $CC -std=c11 -O2 -Wall -Wextra -Werror -pthread -I"$ROOT/include" \
	-o "$EX" "$ROOT/docs/examples/native_counter.c" "$ARCHIVE" >"$TMP/cc" 2>&1; then
	ok "native_counter builds against include/ and liblockswap-native.a"
else
	fail "native_counter builds against include/ and liblockswap-native.a: $(head -5 "$TMP/cc" | tr '\n' ' ')"
	finish native
	exit 1
fi

for args in "8 20000" "1 1000" "3 50000"; do
	# shellcheck disable=SC2086
	timeout 120 "$EX" $args >"$TMP/out" 2>&1
	rc=$?
	n=$(grep -c ' ok$' "$TMP/out")
	if [ $rc -eq 0 ] && [ "$n" -eq 3 ]; then
		ok "native_counter $args: exact total for bcs, bcs-wf, combining"
	else
		fail "native_counter $args: exit $rc: $(tr '\n' ';' <"$TMP/out")"
	fi
done

if timeout 10 "$EX" 0 >/dev/null 2>&1; then
	fail "native_counter accepted 0 threads"
else
	ok "native_counter rejects 0 threads"
fi

finish native
