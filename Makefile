# lockswap - see README.md.  Targets:
#   make                 liblockswap.so, liblockswap-core.a, test and bench programs
#   make check           every test group, each tests/*/run.sh (tests/run.sh); CI runs this
#   make check SAN=thread | SAN=address,undefined
#                        the directly linked unit tests under a sanitizer
#   make install PREFIX=/usr/local [LIBDIR=...] [MANDIR=...]   (mk/install.mk)
#   make deb             build/lockswap_<version>_<arch>.deb (scripts/make-deb.sh)
#   make man             build/man/lockswap.1 and lockswap.7, from the library's description
#   make list            backends and options, read from the built library
#
# New files need no edit here: core/*/*.c, backends/*.c, native/*.c, interpose/*/*.c (a new
# folder of interpose/ too), stats/*.c go into
# the library; tests/unit/test_*.c each become a cmocka binary; tests/preload/
# *.c and *.cc become programs built against stock pthreads.

CC       ?= gcc
CXX      ?= g++
PREFIX   ?= /usr/local
SAN      ?=
B        := build
# The one version number (interpose/version.h); the CLI's must match (tests/cli).
VERSION  := $(shell sed -n 's/^\#define LS_VERSION "\(.*\)"/\1/p' interpose/version.h)

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wpointer-arith \
            -Wcast-align -Wwrite-strings -Wundef -Wno-unused-parameter
CFLAGS   ?= -O2 -g
LIBFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden \
            -ftls-model=initial-exec -fno-strict-aliasing $(WARN)
DEPFLAGS  = -MMD -MP

LIB_SRCS  := $(wildcard core/*/*.c backends/*.c native/*.c interpose/*.c interpose/*/*.c stats/*.c)
CORE_SRCS := $(wildcard core/*/*.c backends/*.c native/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=$(B)/obj/%.o)
CORE_OBJS := $(CORE_SRCS:%.c=$(B)/obj/%.o)

comma := ,
ifneq ($(SAN),)
SANDIR    := $(B)/san-$(subst $(comma),-,$(SAN))
SANFLAGS  := -fsanitize=$(SAN) -fno-omit-frame-pointer
else
SANDIR    := $(B)
SANFLAGS  :=
endif

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(SANDIR)/unit/%)
SAN_CORE_OBJS := $(CORE_SRCS:%.c=$(SANDIR)/sobj/%.o)
UNIT_HELPERS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
UNIT_HELPER_OBJS := $(UNIT_HELPERS:%.c=$(SANDIR)/sobj/%.o)

PRE_C    := $(wildcard tests/preload/*.c)
PRE_CXX  := $(wildcard tests/preload/*.cc)
PRE_BINS := $(PRE_C:tests/preload/%.c=$(B)/preload/%) $(PRE_CXX:tests/preload/%.cc=$(B)/preload/%)

all: liblockswap.so liblockswap-core.a unit-bins preload-bins
.PHONY: all check demo fairness-demo fleet-demo unit-bins preload-bins install list clean deps \
        man deb

liblockswap.so: $(LIB_OBJS) $(B)/preload.map
	$(CC) -shared -o $@ $(LIB_OBJS) -Wl,--version-script=$(B)/preload.map \
	      -Wl,-z,defs -Wl,-z,now -Wl,-z,relro -ldl -lpthread $(LIBS_EXTRA)

# The version script: preload.map with the names of interpose/away/calls.def
# (one table: the wrappers, their look-ups and their exports).
AWAY_ROWS := '\#define LS_AWAY(R, T, N, P, A) N;' '\#define LS_AWAY_VOID(R, N, P, A) N;' \
             '\#define LS_AWAY_NORETURN(R, N, P, A) N;' \
             '\#define LS_AWAY_VA(R, T, N, P, A, L, X) N;' '\#define LS_AWAY_CUSTOM(R, N) N;' \
             '\#include "interpose/away/calls.def"'
$(B)/preload.map: preload.map interpose/away/calls.def
	@mkdir -p $(B)
	printf '%s\n' $(AWAY_ROWS) | $(CC) -E -P -I. -x c - | tr '\n' ' ' > $@.names
	sed -e "s|/\* calls.def:.*\*/|$$(cat $@.names)|" preload.map > $@

liblockswap-core.a: $(CORE_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(LIBFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# Directly linked unit tests (optionally sanitized): core + backends + test.
$(SANDIR)/sobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(LIBFLAGS) $(CFLAGS) $(SANFLAGS) $(DEPFLAGS) -c -o $@ $<

$(SANDIR)/unit/%: $(SANDIR)/sobj/tests/unit/%.o $(SAN_CORE_OBJS) $(UNIT_HELPER_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -o $@ $^ -lcmocka -lpthread

unit-bins: $(UNIT_BINS)

# Preload test programs: plain pthreads, never linked to lockswap.
$(B)/preload/%: tests/preload/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread -ldl
$(B)/preload/%: tests/preload/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -o $@ $< -lpthread
$(B)/preload/lib%.so: tests/preload/dl/%.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -g -o $@ $< -lpthread
$(B)/preload/dlprog: tests/preload/dl/prog.c $(B)/preload/libuser.so $(B)/preload/libplugin.so
	$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -L$(B)/preload -luser \
	      -Wl,-rpath,'$$ORIGIN' -ldl -lpthread

preload-bins: $(PRE_BINS) $(B)/preload/dlprog $(B)/stress/stress $(B)/stress/rwstress

$(B)/stress/%: tests/stress/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread

-include bench/bench.mk
-include $(wildcard mk/*.mk)
-include $(shell find $(B) -name '*.d' 2>/dev/null)

# Installs missing Debian packages first, so it works on a fresh machine.
check:
	bash scripts/install-deps.sh
	$(MAKE) all
	SAN='$(SAN)' SANDIR='$(SANDIR)' B='$(B)' bash tests/run.sh

demo:
	bash scripts/demo.sh
fleet-demo: all ; bash scripts/fleet-demo.sh
fairness-demo: all ; bash scripts/fairness-demo.sh

list: liblockswap.so
	@/usr/bin/python3 scripts/lockswap list

deps:
	bash scripts/install-deps.sh

clean:
	rm -rf $(B) liblockswap.so liblockswap-core.a liblockswap-native.a
