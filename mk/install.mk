# mk/install.mk - `make install`, `make man`, `make deb`.
#
#   make install [PREFIX=/usr/local] [LIBDIR=$(PREFIX)/lib] [MANDIR=$(PREFIX)/share/man] [DESTDIR=]
#
# Installs liblockswap.so and liblockswap-native.a in LIBDIR, the lockswap
# command in $(PREFIX)/bin with its Python modules in
# $(PREFIX)/share/lockswap, lockswap.h, lockswap.pc (in LIBDIR/pkgconfig)
# and the man pages lockswap(1) and lockswap(7) in MANDIR.  The pages are
# written at build time from the command's parsers and the library's own
# description (scripts/gen-man.py), so they list what this build has.
# LIBDIR is recorded in $(PREFIX)/share/lockswap/libdir (relative to PREFIX
# when it is under it), where the command looks for its library.
LIBDIR   ?= $(PREFIX)/lib
MANDIR   ?= $(PREFIX)/share/man
LIBDIR_REL = $(patsubst $(PREFIX)/%,%,$(LIBDIR))
PYTHON3  ?= /usr/bin/python3

man: liblockswap.so
	@mkdir -p $(B)/man
	$(PYTHON3) scripts/gen-man.py --lib ./liblockswap.so --out $(B)/man --libdir $(LIBDIR)

install: liblockswap.so liblockswap-core.a man
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include \
	           $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/share/lockswap/lockswap_cli \
	           $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	install -m 644 liblockswap.so $(DESTDIR)$(LIBDIR)/
	install -m 755 scripts/lockswap $(DESTDIR)$(PREFIX)/bin/
	install -m 644 scripts/lockswap_cli/*.py $(DESTDIR)$(PREFIX)/share/lockswap/lockswap_cli/
	printf '%s\n' '$(LIBDIR_REL)' > $(DESTDIR)$(PREFIX)/share/lockswap/libdir
	install -m 644 include/*.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 liblockswap-native.a $(DESTDIR)$(LIBDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    lockswap.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/lockswap.pc
	install -m 644 $(B)/man/lockswap.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(B)/man/lockswap.7 $(DESTDIR)$(MANDIR)/man7/

deb: liblockswap.so liblockswap-core.a liblockswap-native.a
	B='$(B)' VERSION='$(VERSION)' bash scripts/make-deb.sh
