# mk/native.mk - liblockswap-native.a: the native API (include/lockswap.h)
# (native/) and the core algorithms, without interpose/ or backends/, so linking it
# never replaces the program's pthread functions.
NATIVE_OBJS := $(wildcard core/*/*.c native/*.c)
NATIVE_OBJS := $(NATIVE_OBJS:%.c=$(B)/obj/%.o)

liblockswap-native.a: $(NATIVE_OBJS)
	rm -f $@ && ar rcs $@ $^

all: liblockswap-native.a
install: liblockswap-native.a
