#!/usr/bin/env bash
# Docs group: what the README promises matches what the library says.
#   - it starts with exactly the two commands (demo, tests);
#   - its variables table lists every option of the library's table, with
#     the library's default, and nothing the library does not know;
#   - every backend the library lists (mutex and rwlock; a wrapper as
#     NAME:INNER) has a row of its own in the README's backend tables
#     (tests/docs/backend_rows.py);
#   - every docs/ file the README links to exists;
#   - the command blocks of the README and docs/cli.md marked runnable run,
#     the transcripts print what they show, every lockswap flag they name
#     exists (tests/docs/runnable.py);
#   - scripts/results.sh's slice and manycore parts ask for the sweeps of
#     the raw files docs/results.md cites them for, and every number of
#     README.md and docs/results.md that has a raw file recomputes from it
#     (tests/docs/results_sh.py, tests/docs/published.py);
#   - docs/seeds.md has a table for each reference text, a verdict in every
#     row and a file behind every relative link (tests/docs/seeds.py).
set -u
. "$(dirname "$0")/../lib.sh"
readme=$ROOT/README.md

# relay NAME [--show]: counts a checker's ok/FAIL lines (its output on
# stdin); any other line fails NAME (the checker crashed, say), or with
# --show is printed as it is (runnable.py's commands' own output).
relay() {
	local name=$1 show=${2:-}
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"FAIL - "*) fail "${line#FAIL - }" ;;
		*) if [ -n "$show" ]; then echo "$line"; else fail "$name: $line"; fi ;;
		esac
	done
}

first=$(grep -m2 -E '^make (demo|check)' "$readme" | awk '{print $1, $2}' | tr '\n' ',')
[ "$first" = "make demo,make check," ] && ok "README starts with 'make demo' and 'make check'" ||
	fail "README's first commands are '$first'"

desc=$(describe_json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
for o in d["options"]:
    rng = "%d..%d" % (o["min"], o["max"]) if o["kind"] == "uint" else "-"
    if o["kind"] == "uint" and o.get("choices"):
        rng = "%s_or_%s" % (o["choices"], rng)
    print("option", o["name"], o["default"] or "(none)", rng)
')
table=$(sed -n '/options-table:begin/,/options-table:end/p' "$readme")
while read -r kind name def rng; do
	[ "$kind" = option ] || continue
	row=$(echo "$table" | grep -F "| \`$name\` |")
	if [ -z "$row" ]; then
		fail "README variables table lacks $name"
	elif ! echo "$row" | grep -qF -e "| \`$def\` |" -e "| $def |"; then
		fail "README gives $name a default other than the library's '$def': $row"
	elif [ "$rng" != - ] && ! echo "$row" | grep -qF "| ${rng//_/ } |"; then
		fail "README gives $name a range other than the library's $rng: $row"
	else
		ok "README documents $name (default $def)"
	fi
done <<<"$desc"
for name in $(echo "$table" | grep -oE '^\| `LOCKSWAP_[A-Z_]+`' | tr -d '|` '); do
	echo "$desc" | grep -q "^option $name " || fail "README documents $name, which the library does not know"
done
relay backend_rows.py < <(describe_json | /usr/bin/python3 "$ROOT/tests/docs/backend_rows.py" "$readme" 2>&1)
for doc in $(grep -oE '\(docs/[^)]+\)' "$readme" | tr -d '()' | sort -u); do
	[ -f "$ROOT/$doc" ] && ok "README link $doc exists" || fail "README links to missing $doc"
done
relay runnable.py --show < <(/usr/bin/python3 "$ROOT/tests/docs/runnable.py" "$ROOT" 2>&1)
relay results_sh.py < <(/usr/bin/python3 "$ROOT/tests/docs/results_sh.py" "$ROOT" 2>&1)
relay seeds.py < <(/usr/bin/python3 "$ROOT/tests/docs/seeds.py" "$ROOT" 2>&1)
relay batch_bound.py < <(/usr/bin/python3 "$ROOT/tests/docs/batch_bound.py" "$ROOT" 2>&1)
finish docs
