# Makefile: builds libdab (static + shared), bin/dab and the test programs.
# Every .c under the library folders is picked up automatically; a new
# module needs no edit here.  `make SAN=1` builds a separate ASan/UBSan tree, `make SAN=thread` a
# ThreadSanitizer one.

CC      ?= gcc
# BMI2 (pext/pdep) drives the bitboards; x86-64-v3 has it and runs anywhere
# a Haswell-or-later CPU does (and under valgrind, unlike -march=native).
ARCH    ?= $(shell grep -qw bmi2 /proc/cpuinfo 2>/dev/null && echo -march=x86-64-v3)
OPT     ?= -O2 $(ARCH)
WARN    := -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Wformat=2
CFLAGS  += -std=c11 -D_GNU_SOURCE -g -fPIC $(OPT) $(WARN) -I. -Igame -MMD -MP
LDLIBS  += -llmdb -lzstd -lxxhash -lpthread -lm
# dab serve (service/): libmicrohttpd and jansson from Debian
LDLIBS  += $(shell pkg-config --libs libmicrohttpd jansson 2>/dev/null || echo -lmicrohttpd -ljansson)

ifeq ($(SAN),1)
BUILD   ?= build-san
OPT     := -O1 $(ARCH) -fno-omit-frame-pointer
CFLAGS  += -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
BIN     ?= $(BUILD)/bin
else ifeq ($(SAN),thread)
BUILD   ?= build-tsan
OPT     := -O1 $(ARCH) -fno-omit-frame-pointer
CFLAGS  += -fsanitize=thread
LDFLAGS += -fsanitize=thread
BIN     ?= $(BUILD)/bin
else
BUILD   ?= build
BIN     ?= bin
endif

# Upstream to downstream; a folder may use only the ones before it.
LIBDIRS := game symmetry solver tablebase oracle proof theorems verify players agents service
LIB_SRC := $(foreach d,$(LIBDIRS),$(wildcard $(d)/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC := $(wildcard cli/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TESTS   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCHES := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

.PHONY: all clean tests
all: $(BIN)/dab $(BUILD)/libdab.so $(TESTS) $(BENCHES)
tests: $(TESTS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libdab.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libdab.so: $(LIB_OBJ)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BIN)/dab: $(CLI_OBJ) $(BUILD)/libdab.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libdab.a $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libdab.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libdab.a $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libdab.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libdab.a $(LDLIBS)

clean:
	rm -rf build build-san bin

# make install [PREFIX=/usr/local] [DESTDIR=...]: bin/dab, libdab.so and
# libdab.a, the public headers (include/dab/, compile with -I$(PREFIX)/include/dab
# -I$(PREFIX)/include/dab/game) and the Python package dab, told where
# libdab.so went (dab/_install.py).
PREFIX  ?= /usr/local
PYDIR   ?= $(PREFIX)/lib/python$(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages
HEADERS := $(foreach d,$(LIBDIRS),$(wildcard $(d)/*.h))
.PHONY: install
install: $(BIN)/dab $(BUILD)/libdab.so $(BUILD)/libdab.a
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PYDIR)/dab
	install -m 755 $(BIN)/dab $(DESTDIR)$(PREFIX)/bin/dab
	install -m 755 $(BUILD)/libdab.so $(DESTDIR)$(PREFIX)/lib/libdab.so
	install -m 644 $(BUILD)/libdab.a $(DESTDIR)$(PREFIX)/lib/libdab.a
	for h in $(HEADERS); do install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/dab/$$h; done
	install -m 644 python/dab/*.py $(DESTDIR)$(PYDIR)/dab/
	echo 'LIBDIR = "$(PREFIX)/lib"' > $(DESTDIR)$(PYDIR)/dab/_install.py

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
