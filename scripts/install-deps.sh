#!/usr/bin/env bash
# install-deps.sh - install the Debian packages lockswap needs, only those
# that are missing (`make deps`; `make check` and `make demo` call it).
# prometheus-node-exporter is for tests/prom only (4 MB, 7.5 s to install,
# measured); on a machine that runs systemd its package also starts the
# node_exporter service on port 9100.  golang-go is for `go tool pprof` in
# tests/cli (81 MB download, 453 MB installed, 18 s to install, measured).
# man-db (with groff-base) is for tests/package, which reads the man pages
# of the Debian package from a scratch root (`man lockswap`) and checks them
# with groff.  libgc-dev is for tests/ces: a real stop-the-world garbage
# collector (Boehm GC) must run under ces as under glibc.  sysbench is for
# scripts/deadlock-cost.sh (its mutex test with 4096 locks).  python3-pyelftools
# is the CLI's ELF reader (lockswap_cli/elf.py: build IDs, static programs).
#
# --matrix: instead, the programs of the default matrix (scripts/
# default-matrix.sh), which only measurements need, never the tests: its
# real programs (sysbench, stress-ng, memcached with memcslap, RocksDB's
# db_bench) and its everyday ones (bench/apps/everyday.sh).
set -eu
pkgs=(make gcc g++ libc6-dev libcmocka-dev libgcc-s1 libleveldb-dev libjemalloc2
      python3 python3-numpy python3-matplotlib python3-prometheus-client python3-pyelftools valgrind
      prometheus-node-exporter golang-go systemtap-sdt-dev libgc-dev man-db sysbench)
if [ "${1:-}" = --matrix ]; then
	pkgs=(sysbench stress-ng memcached libmemcached-tools rocksdb-tools pigz zstd xz-utils
	      lbzip2 nodejs default-jdk-headless)
elif [ $# -gt 0 ]; then
	echo "install-deps.sh: unknown argument '$1' (none, or --matrix)" >&2
	exit 2
fi
# bpftrace is for tests/usdt's second test only, and only where it can run:
# root, the kernel's uprobe event source, CAP_SYS_ADMIN (bit 21) to load BPF
# programs.  Elsewhere the test skips; bpftrace brings LLVM 14's libraries
# (about 137 MB installed) that would only be downloaded to skip it.
cap=$(awk '/^CapEff/ {print $2}' /proc/self/status 2>/dev/null || echo 0)
if [ "${1:-}" != --matrix ] && [ "$(id -u)" -eq 0 ] && [ -e /sys/bus/event_source/devices/uprobe ] &&
	(( 0x${cap:-0} & (1 << 21) )); then
	pkgs+=(bpftrace)
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "lockswap: missing Debian packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "lockswap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
