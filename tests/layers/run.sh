#!/usr/bin/env bash
# Group "layers": the sources' dependencies point one way
# (tests/layers/include_graph.py): no include circle among the C modules,
# core/runtime includes only itself, core/ only core/, backends/ neither
# interpose/ nor stats/; no import circle among the CLI's Python modules.
# The checker first proves on synthetic trees that it finds each kind of
# problem.
set -u
. "$(dirname "$0")/../lib.sh"
check=$ROOT/tests/layers/include_graph.py

while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	*) fail "${line#FAIL - }" ;;
	esac
done < <(/usr/bin/python3 "$check" --self-test 2>&1)

out=$(/usr/bin/python3 "$check" "$ROOT" 2>&1) && ok "the C includes and the CLI's imports have no circle and respect the layers" ||
	while IFS= read -r line; do fail "$line"; done <<<"$out"
finish layers
