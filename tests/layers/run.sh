#!/usr/bin/env bash
# Group "layers": the sources' dependencies point one way
# (tests/layers/include_graph.py): no circle among the C modules, of
# includes or of calls (matched by name in the sources, and read from the
# build's objects, $B/obj; the circles listed in known_circles.txt are
# debt, printed but not failed), no call from a lower layer up into a
# higher one (known_up_calls.txt: debt, which may only shrink), parking
# only through core/runtime/wait.h,
# core/runtime includes only itself, core/ only core/, backends/ neither
# interpose/ nor stats/; no import circle among the CLI's Python modules.
# The checker first proves on synthetic trees that it finds each kind of
# problem.  The LOCKSWAP_* names have one owner each (settings_names.py).
# Every header of interpose/ must compile alone, or stop at its own #error
# naming what its includer defines.
set -u
. "$(dirname "$0")/../lib.sh"
check=$ROOT/tests/layers/include_graph.py

while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	*) fail "${line#FAIL - }" ;;
	esac
done < <(/usr/bin/python3 "$check" --self-test 2>&1)

if [ ! -d "$B/obj/core" ]; then
	fail "no objects in $B/obj to read the calls from: build first (make all)"
else
	out=$(/usr/bin/python3 "$check" "$ROOT" "$B/obj" 2>"$LOGS/layers-known.txt") &&
		ok "the C includes and calls and the CLI's imports have no new circle and respect the layers" ||
		while IFS= read -r line; do fail "$line"; done <<<"$out"
	sed 's/^/# /' "$LOGS/layers-known.txt"
fi
# The LOCKSWAP_* names: one owner each, by prefix, no two alike, and every
# option the library lists declared by a row the check reads
# (tests/layers/settings_names.py; docs/hacking.md, "Adding a setting").
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	*) fail "${line#FAIL - }" ;;
	esac
done < <(/usr/bin/python3 "$ROOT/tests/layers/settings_names.py" --self-test 2>&1)
if describe_json >"$LOGS/layers-describe.json" 2>"$LOGS/layers-describe.err"; then
	out=$(/usr/bin/python3 "$ROOT/tests/layers/settings_names.py" "$ROOT" "$LOGS/layers-describe.json") &&
		ok "the LOCKSWAP_* settings and options have one owner each and no name twice" ||
		while IFS= read -r line; do fail "$line"; done <<<"$out"
else
	fail "lockswap_describe could not be read from $LIB (build first): $(head -1 "$LOGS/layers-describe.err")"
fi

# Every header of the shim stands alone: it compiles included first and
# alone, or stops at its own #error that says what the includer must
# define (rwlock_bodies.h's ROUTED_SLOW), never at a far-away undeclared
# name.  Prints one line per header that does not.
lonely_headers() { # ROOT
	local h err
	while IFS= read -r h; do
		err=$(printf '#include "%s"\n' "$h" |
			${CC:-cc} -std=c11 -D_GNU_SOURCE -fsyntax-only -I"$1" -x c - 2>&1 | grep -m1 'error')
		case $err in
		"" | *"error: #error \"${h##*/}: define "*) ;;
		*) echo "$h does not compile alone: $err" ;;
		esac
	done < <(cd "$1" && find interpose -name '*.h' | sort)
}
fake=$(mktemp -d)
mkdir -p "$fake/interpose/entry"
printf '#define TWICE(x) ((x) * 2)\n' >"$fake/interpose/entry/alone.h"
printf '#ifndef PICK\n#error "asks.h: define PICK first"\n#endif\nstatic int f(void) { return PICK; }\n' \
	>"$fake/interpose/entry/asks.h"
printf 'static int g(void) { return PICK; }\n' >"$fake/interpose/entry/silent.h"
got=$(lonely_headers "$fake")
case $got in
*silent.h*) case $got in *alone.h* | *asks.h*) fail "self-test: headers that stand alone are flagged: $got" ;;
	*) ok "self-test: a header that needs its includer's macro without saying so is found, one that says so and one that stands alone pass" ;;
	esac ;;
*) fail "self-test: a header that needs an undefined macro is not found ($got)" ;;
esac
rm -rf "$fake"
got=$(lonely_headers "$ROOT")
[ -z "$got" ] && ok "every interpose/ header compiles alone or names what its includer must define" ||
	while IFS= read -r line; do fail "$line"; done <<<"$got"

finish layers
