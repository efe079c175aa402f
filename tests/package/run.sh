#!/usr/bin/env bash
# Test group "package": `make deb` and `make install` (tests/package/check.py):
# the package's contents, an install into a scratch root with dpkg --root,
# `lockswap run -- true` and a preload from the installed paths, `man
# lockswap` from there, lintian where it is installed, removal; `make
# install` with LIBDIR and MANDIR; the man pages against the library's own
# description.  Last line: `package: N passed, M failed`.
set -u
cd "$(dirname "$0")/../.." || exit 1
B="${B:-build}"
if ! make -s liblockswap.so liblockswap-core.a liblockswap-native.a preload-bins >/dev/null; then
	echo "FAIL - build"
	echo "package: 0 passed, 1 failed"
	exit 1
fi
export PYTHONDONTWRITEBYTECODE=1
. tests/rseq_off.sh
B="$B" exec /usr/bin/python3 tests/package/check.py
