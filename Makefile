# Makefile: builds libdab (static + shared), bin/dab and the test programs.
# Every .c under the library folders is picked up automatically; a new
# module needs no edit here.  `make SAN=1` builds a separate ASan/UBSan
# tree, `make SAN=thread` a ThreadSanitizer one (both also check
# DAB_ASSERT's invariants, game/dabassert.h), `make MPI=1` an Open MPI one
# (build-mpi/bin/dab).

CC      ?= gcc
# No -march by default: the binaries run on any x86-64 (and build on
# aarch64).  BMI2's pext/pdep and popcnt, which drive the bitboards, are
# chosen at run time where the CPU has them fast (game/bits.h).
# `make ARCH=-march=native` (or -march=x86-64-v3) compiles them in; such
# binaries die with SIGILL on CPUs without them.
ARCH    ?=
OPT     ?= -O2 $(ARCH)
WARN    := -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Wformat=2
CFLAGS  += -std=c11 -D_GNU_SOURCE -g -fPIC $(OPT) $(WARN) -I. -MMD -MP
LDLIBS  += -llmdb -lzstd -lxxhash -lpthread -lm
# dab serve (service/, an application beside cli/): libmicrohttpd and
# jansson from Debian.  libdab.so does not link them.
APP_LDLIBS := $(shell pkg-config --libs libmicrohttpd jansson 2>/dev/null || echo -lmicrohttpd -ljansson)

ifeq ($(SAN),1)
BUILD   ?= build-san
OPT     := -O1 $(ARCH) -fno-omit-frame-pointer
CFLAGS  += -fsanitize=address,undefined -fno-sanitize-recover=undefined -DDAB_CHECKS
LDFLAGS += -fsanitize=address,undefined
BIN     ?= $(BUILD)/bin
else ifeq ($(SAN),thread)
BUILD   ?= build-tsan
OPT     := -O1 $(ARCH) -fno-omit-frame-pointer
CFLAGS  += -fsanitize=thread -DDAB_CHECKS
LDFLAGS += -fsanitize=thread
BIN     ?= $(BUILD)/bin
else ifeq ($(MPI),1)
# `dab build --mpi` (service/mpi_build.c) over Open MPI: its own tree, the
# same code compiled by mpicc with DAB_MPI; bin/dab stays MPI-free.
BUILD   ?= build-mpi
CC      := mpicc
CFLAGS  += -DDAB_MPI
BIN     ?= $(BUILD)/bin
else
BUILD   ?= build
BIN     ?= bin
endif

# Upstream to downstream; a folder may include only itself and the ones
# before it (cli/, tests/ and bench/ sit above them all).  `make layers`
# checks every #include against this order (.ci/layers.sh).  LIBDIRS make
# libdab (capi/ is the flat surface the Python package calls); APPDIRS are
# applications' modules, linked into bin/dab and the tests that need them,
# never into libdab.
LIBDIRS := game symmetry theorems pdb solver tablebase oracle proof verify players agents capi
APPDIRS := service
LIB_SRC := $(foreach d,$(LIBDIRS),$(wildcard $(d)/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
APP_SRC := $(foreach d,$(APPDIRS),$(wildcard $(d)/*.c))
APP_OBJ := $(APP_SRC:%.c=$(BUILD)/obj/%.o)
# Hot loops built twice (game/isa.h): the object every x86-64 runs, with
# the portable pext/pdep, and an x86-64-v3 one (BMI2, AVX2, popcnt), one
# chosen at run time.  Other CPUs build the first only.
ISA_SRC := solver/retro_sweep.c solver/ab_search.c symmetry/sckey.c tablebase/tb_rule.c agents/az_forward.c
ISA_V3  := $(if $(filter x86_64-%,$(shell $(CC) -dumpmachine)),-march=x86-64-v3)
LIB_OBJ += $(if $(ISA_V3),$(ISA_SRC:%.c=$(BUILD)/obj/%.v3.o))
# libdab exports only what the public headers declare with DAB_API
# (game/dabapi.h); everything else stays inside the library.
$(LIB_OBJ): CFLAGS += -fvisibility=hidden
CLI_SRC := $(wildcard cli/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TESTS   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCHES := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

.PHONY: all clean tests layers
all: $(BIN)/dab $(BUILD)/libdab.so $(TESTS) $(BENCHES)
tests: $(TESTS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(ISA_SRC:%.c=$(BUILD)/obj/%.o): CFLAGS += -DDAB_ISA_BASE
# The net's forward pass (agents/az_forward.c, 99% of az self-play) at
# -O3: its loops vectorised (-O2's very-cheap cost model leaves them
# scalar), 2x the evaluations a second.  Same results bit for bit in both
# builds: every output still sums in the same order (GCC reorders no float
# sum without -ffast-math), and no multiply-add becomes an FMA (-std=c11
# implies -ffp-contract=off; said again here, as the v3 build has FMA).
$(BUILD)/obj/agents/az_forward.o $(BUILD)/obj/agents/az_forward.v3.o: CFLAGS += -O3 -ffp-contract=off

$(BUILD)/obj/%.v3.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ISA_V3) -DDAB_ISA_V3 -c $< -o $@

$(BUILD)/libdab.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libdab.so: $(LIB_OBJ)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libdab-apps.a: $(APP_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN)/dab: $(CLI_OBJ) $(BUILD)/libdab-apps.a $(BUILD)/libdab.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libdab-apps.a $(BUILD)/libdab.a $(LDLIBS) $(APP_LDLIBS)

# Tests link the applications' modules too (test_service checks service/).
$(BUILD)/tests/%: tests/%.c $(BUILD)/libdab-apps.a $(BUILD)/libdab.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libdab-apps.a $(BUILD)/libdab.a $(LDLIBS) $(APP_LDLIBS)

# test_alloc_fail: every allocation libdab.a makes goes through the shim
# tests/failalloc.c (--wrap), which fails the Nth one when armed; the
# library itself is the one every other program links.
ALLOC_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=mmap
$(BUILD)/tests/test_alloc_fail: tests/test_alloc_fail.c tests/failalloc.c $(BUILD)/libdab.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $(ALLOC_WRAP) -o $@ tests/test_alloc_fail.c tests/failalloc.c $(BUILD)/libdab.a $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libdab.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libdab.a $(LDLIBS)

clean:
	rm -rf build build-* bin

# Fails, printing file:line: #include, when a file includes a folder above
# its own in LIBDIRS or names a header without its folder.
layers:
	@.ci/layers.sh $(LIBDIRS) $(APPDIRS) && echo "layers: every include follows $(LIBDIRS) $(APPDIRS) < cli tests bench"

# make install [PREFIX=/usr/local] [DESTDIR=...]: bin/dab, libdab.so and
# libdab.a, the public headers only (PUBLIC_HEADERS, under include/dab/ as
# in the tree, and capi/dab.h, which includes them all, as include/dab/dab.h:
# #include <dab.h> with -I$(PREFIX)/include/dab), dab.pc for pkg-config
# (`pkg-config --cflags --libs dab`) and the Python package dab, told
# where libdab.so went (dab/_install.py).
PREFIX  ?= /usr/local
VERSION ?= 0.1.0
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include/dab
PCDIR   ?= $(LIBDIR)/pkgconfig
PYDIR   ?= $(PREFIX)/lib/python$(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages
# The public API: what a user of libdab includes.  Every other header is
# internal (its banner says so) and is not installed; the functions these
# declare carry DAB_API and are all libdab.so exports (tests/test_headers.sh).
PUBLIC_HEADERS := game/dabapi.h game/dabconf.h game/err.h game/bits.h game/board.h game/postext.h \
                  game/analysis.h game/progress.h game/rng.h symmetry/sckey.h pdb/pdb.h \
                  tablebase/dabtb.h tablebase/tb_probe.h tablebase/tb_find.h tablebase/tb_build.h \
                  tablebase/tb_store.h oracle/oracle.h players/player.h capi/abi.h capi/vec.h \
                  capi/agent_capi.h
# libdab.so carries its libraries; a static link needs them too.
PC_PRIVATE := $(filter -l%,$(LDLIBS))
.PHONY: install public-headers
public-headers:
	@echo $(PUBLIC_HEADERS)
install: $(BIN)/dab $(BUILD)/libdab.so $(BUILD)/libdab.a
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PCDIR) $(DESTDIR)$(PYDIR)/dab
	install -m 755 $(BIN)/dab $(DESTDIR)$(PREFIX)/bin/dab
	install -m 755 $(BUILD)/libdab.so $(DESTDIR)$(LIBDIR)/libdab.so
	install -m 644 $(BUILD)/libdab.a $(DESTDIR)$(LIBDIR)/libdab.a
	for h in $(PUBLIC_HEADERS); do install -D -m 644 $$h $(DESTDIR)$(INCDIR)/$$h; done
	install -m 644 capi/dab.h $(DESTDIR)$(INCDIR)/dab.h
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCDIR)' '' \
	  'Name: dab' 'Description: Dots-and-Boxes solver, tablebases, oracle and players' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -ldab' \
	  'Libs.private: $(PC_PRIVATE)' > $(DESTDIR)$(PCDIR)/dab.pc
	install -m 644 python/dab/*.py $(DESTDIR)$(PYDIR)/dab/
	echo 'LIBDIR = "$(LIBDIR)"' > $(DESTDIR)$(PYDIR)/dab/_install.py

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
