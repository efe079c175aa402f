#!/usr/bin/env bash
# everyday.sh - one everyday multithreaded program from Debian, of the kind
# a fleet runs all day and that is not lock-bound, under the caller's
# LD_PRELOAD and LOCKSWAP_* settings; prints "seconds: T", its wall time.
# The default matrix (scripts/default-matrix.sh) runs each as a row: what
# lockswap costs where locks are not the bottleneck.
#
#   bash bench/apps/everyday.sh NAME [THREADS]      (default 8 threads)
#
#   pigz     pigz -p THREADS -6 of the text's first 4 MB (parallel gzip)
#   zstd     zstd -T THREADS -3 of the text
#   xz       xz -T THREADS -0 of the first 4 MB, in blocks of 512 KiB
#   lbzip2   lbzip2 -n THREADS of the first 4 MB
#   sort     sort --parallel=THREADS of the text's lines (GNU coreutils)
#   make     make -j THREADS of 12 small C files with gcc (every compiler,
#            assembler and linker process runs under the preload)
#   node     node: 32 pbkdf2 derivations on libuv's thread pool of THREADS
#   python   python3: 16 sha256 + zlib jobs on THREADS threads (both release
#            the GIL on large buffers)
#   java     java: a parallel stream sum over THREADS fork-join workers
#            (the JVM's own threads and monitors too; EVERYDAY_JAVA_FLAGS adds
#            JVM flags)
#
# The inputs (a 16 MB text of pseudo-words from a fixed seed and its first
# 4 MB, the C files, a compiled Java class) are made once into EVERYDAY_DIR
# (default /tmp/lockswap-everyday) and reused.  Only the program runs under the
# preload: this script and the clock run without it, as bench/apps/
# memcached.sh does.
set -eu
NAME=${1:?usage: everyday.sh NAME [THREADS]}
T=${2:-8}
DIR=${EVERYDAY_DIR:-/tmp/lockswap-everyday}
preload=${LD_PRELOAD:-}
unset LD_PRELOAD
PY=/usr/bin/python3
need() { command -v "$1" >/dev/null || { echo "everyday.sh: no $1 ($2)" >&2; exit 2; }; }

mkdir -p "$DIR"
# The text: deterministic, compressible about 3:1, like logs or source.
if [ ! -s "$DIR/text" ]; then
	"$PY" - "$DIR/text.tmp" <<'PY'
import random, sys
rng = random.Random(45)
letters = "etaoinshrdlucmfwypvbgkjqxz"
words = ["".join(rng.choice(letters[:rng.randint(6, 26)]) for _ in range(rng.randint(2, 11)))
         for _ in range(6000)]
with open(sys.argv[1], "w") as f:
    size = 0
    while size < 16 << 20:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(4, 16))) + "\n"
        f.write(line)
        size += len(line)
PY
	mv "$DIR/text.tmp" "$DIR/text"
fi
# Its first 4 MB, for the slower compressors.
[ -s "$DIR/text4" ] || head -c $((4 << 20)) "$DIR/text" >"$DIR/text4"

run() { # the program under the preload, timed from here; its stdout dropped
	local t0 t1
	t0=$(date +%s.%N)
	LD_PRELOAD=$preload "$@" >/dev/null
	t1=$(date +%s.%N)
	"$PY" -c "print('seconds: %.4f' % ($t1 - $t0))"
}

case $NAME in
pigz)   need pigz "apt-get install pigz"
	run pigz -p "$T" -6 -c "$DIR/text4" ;;
zstd)   need zstd "apt-get install zstd"
	run zstd -q -T"$T" -3 -c "$DIR/text" ;;
xz)     need xz "apt-get install xz-utils"
	run xz -T"$T" -0 --block-size=512KiB -c "$DIR/text4" ;;
lbzip2) need lbzip2 "apt-get install lbzip2"
	run lbzip2 -n "$T" -c "$DIR/text4" ;;
sort)   run env LC_ALL=C sort --parallel="$T" -S 256M "$DIR/text" -o /dev/null ;;
make)
	need gcc "apt-get install gcc"
	src=$DIR/make
	if [ ! -s "$src/Makefile" ]; then
		mkdir -p "$src"
		for i in $(seq 0 11); do
			{
				echo "#include <stdio.h>"
				echo "#include <string.h>"
				for j in $(seq 0 7); do
					echo "static unsigned f${j}(const char *s) { unsigned h = $j; while (*s) h = h * 31 + (unsigned char)*s++; return h ^ (unsigned)strlen(s); }"
				done
				echo "unsigned unit$i(const char *s) { return 0"
				for j in $(seq 0 7); do echo " + f$j(s)"; done
				echo "; }"
			} >"$src/u$i.c"
		done
		{
			echo "OBJS := \$(patsubst %.c,%.o,\$(wildcard u*.c))"
			echo "all: libunits.a"
			echo "libunits.a: \$(OBJS)"
			printf '\tar rcs $@ $^\n'
			echo "%.o: %.c"
			printf '\tgcc -O2 -c -o $@ $<\n'
		} >"$src/Makefile"
	fi
	run make -s -B -j "$T" -C "$src" ;;
node)
	need node "apt-get install nodejs"
	run env UV_THREADPOOL_SIZE="$T" node -e '
const crypto = require("crypto");
let left = 32;
for (let i = 0; i < 32; i++)
  crypto.pbkdf2("lockswap" + i, "salt", 10000, 64, "sha256", () => { left--; });
' ;;
python)
	run "$PY" -c '
import hashlib, sys, zlib
from concurrent.futures import ThreadPoolExecutor
data = open(sys.argv[1], "rb").read(1 << 20)
def job(i):
    return hashlib.sha256(data[i:] + data[:i]).hexdigest(), len(zlib.compress(data, 1))
with ThreadPoolExecutor(int(sys.argv[2])) as pool:
    list(pool.map(job, range(16)))
' "$DIR/text" "$T" ;;
java)
	need java "apt-get install default-jre-headless"
	# The class is rebuilt whenever this source changes (an older
	# Everyday.class summed 200 M numbers, this one 100 M).
	cat >"$DIR/Everyday.java.new" <<'JAVA'
import java.util.stream.LongStream;
public class Everyday {
    public static void main(String[] a) {
        long s = LongStream.range(0, 100_000_000L).parallel()
                .map(x -> (x * 0x9E3779B97F4A7C15L) >>> 17).sum();
        if (s == 42) System.out.println(s);
    }
}
JAVA
	if [ ! -s "$DIR/Everyday.class" ] || ! cmp -s "$DIR/Everyday.java.new" "$DIR/Everyday.java"; then
		need javac "apt-get install default-jdk-headless"
		mv "$DIR/Everyday.java.new" "$DIR/Everyday.java"
		javac -d "$DIR" "$DIR/Everyday.java"
	fi
	# EVERYDAY_JAVA_FLAGS: more JVM flags (results.md section 26 ran
	# -XX:TieredStopAtLevel=1, the C1 compiler alone).
	run java -Xshare:auto -XX:ActiveProcessorCount="$T" ${EVERYDAY_JAVA_FLAGS:-} \
		-Djava.util.concurrent.ForkJoinPool.common.parallelism="$T" -cp "$DIR" Everyday ;;
*) echo "everyday.sh: unknown program '$NAME' (pigz, zstd, xz, lbzip2, sort, make, node, python, java)" >&2
   exit 2 ;;
esac
