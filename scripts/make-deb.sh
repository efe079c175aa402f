#!/usr/bin/env bash
# make-deb.sh - build $B/lockswap_<version>_<arch>.deb (`make deb`) with
# dpkg-deb, from what `make install` installs:
#
#   /usr/lib/<multiarch>/liblockswap.so, liblockswap-native.a, pkgconfig/lockswap.pc
#   /usr/bin/lockswap, /usr/share/lockswap/lockswap_cli/*.py (its modules)
#   /usr/include/lockswap.h
#   /usr/share/man/man1/lockswap.1.gz, man7/lockswap.7.gz (generated from
#       the library's own description: scripts/gen-man.py)
#   /usr/share/doc/lockswap/{copyright,changelog.gz,changelog.md.gz}
#   /usr/share/lintian/overrides/lockswap
#
# Needs only dpkg (dpkg-deb), binutils and gzip, all on any Debian machine
# that builds lockswap.  Reproducible: file times and the changelog's date
# are SOURCE_DATE_EPOCH, by default the time of the last commit.
# Settings: B (build folder), VERSION (from interpose/version.h),
# DEB_MAINTAINER (default: the author of the last commit).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
case "$B" in /*) ;; *) B=$PWD/$B ;; esac
VERSION=${VERSION:-$(sed -n 's/^#define LS_VERSION "\(.*\)"/\1/p' interpose/version.h)}
ARCH=$(dpkg --print-architecture)
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || true)
[ -n "$MULTIARCH" ] || MULTIARCH=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_config_var("MULTIARCH"))')
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
MAINTAINER=${DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null || true)}
[ -n "$MAINTAINER" ] || { echo "make-deb: set DEB_MAINTAINER='Name <address>'" >&2; exit 1; }

STAGE=$B/deb/root
DEB=$B/lockswap_${VERSION}_${ARCH}.deb
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN"
make -s install DESTDIR="$STAGE" PREFIX=/usr LIBDIR="/usr/lib/$MULTIARCH" \
	MANDIR=/usr/share/man B="$B" >/dev/null

# Debian policy: shared objects stripped of what the dynamic loader does
# not need (the USDT notes stay: tracing needs them), static libraries of
# their debug information, man pages and changelogs compressed with gzip -9n.
strip --strip-unneeded --remove-section=.comment "$STAGE/usr/lib/$MULTIARCH/liblockswap.so"
strip --strip-debug --remove-section=.comment --enable-deterministic-archives "$STAGE/usr/lib/$MULTIARCH/liblockswap-native.a"
gzip -9n "$STAGE"/usr/share/man/man*/*
doc=$STAGE/usr/share/doc/lockswap
install -d "$doc" "$STAGE/usr/share/lintian/overrides"
install -m 644 pkg/deb/copyright "$doc/copyright"
install -m 644 pkg/deb/lintian-overrides "$STAGE/usr/share/lintian/overrides/lockswap"
install -m 644 CHANGELOG.md "$doc/changelog.md"
gzip -9n "$doc/changelog.md"
{
	printf 'lockswap (%s) unstable; urgency=medium\n\n' "$VERSION"
	printf '  * Release %s of lockswap, built from the sources by make deb; what\n' "$VERSION"
	printf '    changed is in /usr/share/doc/lockswap/changelog.md.gz.\n\n'
	printf ' -- %s  %s\n' "$MAINTAINER" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} >"$doc/changelog"
gzip -9n "$doc/changelog"

# Depends: the newest glibc symbol version the library and the static
# archive's users need, and the command's interpreter, numpy (its
# statistics) and pyelftools (its ELF reader: whether a program can be
# preloaded, build IDs); the man pages' and plots' tools are Recommends.
glibc=$(objdump -p "$STAGE/usr/lib/$MULTIARCH/liblockswap.so" |
	sed -n 's/.*GLIBC_\([0-9][0-9.]*\)$/\1/p' | sort -V | tail -1)
depends="libc6 (>= $glibc), python3, python3-numpy, python3-pyelftools"
size=$(du -sk --apparent-size --exclude=DEBIAN "$STAGE" | cut -f1)
sed -e "s|@VERSION@|$VERSION|" -e "s|@ARCH@|$ARCH|" -e "s|@MAINTAINER@|$MAINTAINER|" \
	-e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" pkg/deb/control.in >"$STAGE/DEBIAN/control"
(cd "$STAGE" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
	xargs -0 md5sum) >"$STAGE/DEBIAN/md5sums"

# Directories 755, files 644 but the command; every time SOURCE_DATE_EPOCH.
find "$STAGE" -type d -exec chmod 755 {} +
find "$STAGE" -type f -exec chmod 644 {} +
chmod 755 "$STAGE/usr/bin/lockswap"
find "$STAGE" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$DEB" >/dev/null
echo "$DEB"
