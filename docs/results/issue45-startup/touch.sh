#!/usr/bin/env bash
# What a first touch of a page costs a process on this machine: a library whose
# constructor writes N pages of its .bss (touch.c), N = 20 and 60, against an empty
# one (empty.c), in bench/startup.py's interleaved rounds.
set -eu
cd "$(dirname "$0")"
d=$(mktemp -d)
gcc -shared -fPIC -O2 -o "$d/empty.so" empty.c
gcc -shared -fPIC -O2 -o "$d/touch20.so" touch.c
sed 's/i < 20/i < 60/' touch.c >"$d/touch60.c" && gcc -shared -fPIC -O2 -o "$d/touch60.so" "$d/touch60.c"
/usr/bin/python3 ../../../bench/startup.py --rounds 15 --count 200 --lib empty="$d/empty.so" \
	--lib touch20="$d/touch20.so" --lib touch60="$d/touch60.so"
rm -rf "$d"
