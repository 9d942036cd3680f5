# dnnpart - see `make help`.
#
# Layout (docs/architecture.md): engine/**/ -> build/libdnnpart.a (public
# headers in include/dnnpart/), jobs/ -> build/libjobs.a, views/ ->
# build/libviews.a, cli/ + tui/ + main.c -> ./dnnpart, tests/test_*.c ->
# build/tests/test_*. Each layer compiles with only the include paths it may
# use (LAYER_INC below), so a wrong include fails the build.
# `make check-asan` builds the same into build-asan/ with ASan + UBSan.

CC ?= cc
BUILD ?= build
SAN ?= 0

ENGINE_PKGS := libcgraph libgvc libcjson cbc
TUI_PKGS := ncursesw

WARN := -Wall -Wextra -Wpedantic -Werror
CFLAGS_BASE := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -g
ifeq ($(SAN),1)
OPT := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDSAN := -fsanitize=address,undefined
else ifeq ($(SAN),fuzz)
# `make fuzz`: clang with libFuzzer's coverage hooks (fuzz/, docs/reliability.md)
OPT := -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDSAN := -fsanitize=address,undefined
else
OPT := -O2
LDSAN :=
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(ENGINE_PKGS) $(TUI_PKGS) 2>/dev/null)
ENGINE_LIBS := $(shell pkg-config --libs $(ENGINE_PKGS) 2>/dev/null) -lmetis -lm -lpthread
TUI_LIBS := $(shell pkg-config --libs $(TUI_PKGS) 2>/dev/null)
CFLAGS := $(CFLAGS_BASE) $(OPT) $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS := $(LDSAN) $(EXTRA_LDFLAGS)

# The include paths of each layer: what it may see. The engine sees its
# public headers and its private ones (engine/internal/); everything above it
# sees only the public ones, plus the layers below it that it builds on.
INC_ENGINE := -Iinclude -Iengine
INC_JOBS := -Iinclude -Ijobs
INC_VIEWS := -Iinclude -Iviews
INC_CLI := -Iinclude -Icli -Ijobs -Iviews
INC_TUI := -Iinclude -Itui -Icli -Ijobs -Iviews
INC_MAIN := -Iinclude -Icli -Itui
INC_TESTS := -Iinclude -Iengine -Ijobs -Iviews -Icli -Itui -Itests
INC_BENCH := -Iinclude -Ijobs -Iviews -Ibench
INC_FUZZ := -Iinclude -Iengine -Ifuzz

ENGINE_SRC := $(sort $(shell find engine -name '*.c'))
JOBS_SRC := $(sort $(wildcard jobs/*.c))
VIEWS_SRC := $(sort $(wildcard views/*.c))
CLI_SRC := $(sort $(wildcard cli/*.c))
TUI_SRC := $(sort $(wildcard tui/*.c)) main.c
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TESTLIB_SRC := $(sort $(wildcard tests/lib/*.c))

ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
JOBS_OBJ := $(JOBS_SRC:%.c=$(BUILD)/%.o)
VIEWS_OBJ := $(VIEWS_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ := $(TUI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# tests/lib/failmalloc.c is an LD_PRELOAD shim, built by its suite
TESTLIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out tests/lib/failmalloc.c,$(TESTLIB_SRC)))

$(ENGINE_OBJ): LAYER_INC := $(INC_ENGINE)
$(JOBS_OBJ): LAYER_INC := $(INC_JOBS)
$(VIEWS_OBJ): LAYER_INC := $(INC_VIEWS)
$(CLI_OBJ): LAYER_INC := $(INC_CLI)
$(filter-out $(BUILD)/main.o,$(TUI_OBJ)): LAYER_INC := $(INC_TUI)
$(BUILD)/main.o: LAYER_INC := $(INC_MAIN)
$(TESTLIB_OBJ): LAYER_INC := $(INC_TESTS)

LIBENGINE := $(BUILD)/libdnnpart.a
LIBENGINE_INTERNAL := $(BUILD)/libdnnpart-internal.a
LIBJOBS := $(BUILD)/libjobs.a
LIBVIEWS := $(BUILD)/libviews.a
BIN := $(BUILD)/dnnpart

.PHONY: all deps check-deps test test-run check-asan format clean help run bench bench-quick fuzz fuzz-build pictures
.DEFAULT_GOAL := all

all: check-deps $(BIN)
ifeq ($(BUILD),build)
	@cp -f $(BIN) ./dnnpart
endif

help:
	@echo "dnnpart make targets:"
	@echo "  make              build ./dnnpart (checks dependencies first)"
	@echo "  make deps         install the Debian packages dnnpart needs (apt-get)"
	@echo "  make run          open the TUI on the default sample graph"
	@echo "  make test         build and run every test; ends with 'N passed, N failed'"
	@echo "  make check-asan   the same tests built with AddressSanitizer + UBSan"
	@echo "  make bench        benchmarks (bench/), results in bench/results/"
	@echo "  make bench-quick  the quick benchmark run (about a minute)"
	@echo "  make fuzz         run each libFuzzer target for a while"
	@echo "  make format       apply .clang-format to the C sources"
	@echo "  make pictures     docs/pictures/*.png: each sample graph's default SVG (rsvg-convert)"
	@echo "  make clean        remove build outputs"

deps:
	@sh tools/deps.sh install

check-deps:
	@sh tools/deps.sh check

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAYER_INC) -MMD -MP -c $< -o $@

# libdnnpart.a exports the public API alone: the engine's objects linked into
# one, with every internal (dpi_) symbol made local. Tests of internals, the
# fuzz targets and the benchmark tools link libdnnpart-internal.a instead.
$(LIBENGINE): $(ENGINE_OBJ)
	@rm -f $@ $(BUILD)/dnnpart.o
	$(LD) -r -o $(BUILD)/dnnpart.o $^
	objcopy --wildcard --localize-symbol='dpi_*' $(BUILD)/dnnpart.o
	ar rcs $@ $(BUILD)/dnnpart.o

$(LIBENGINE_INTERNAL): $(ENGINE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBJOBS): $(JOBS_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBVIEWS): $(VIEWS_OBJ)
	@rm -f $@
	@mkdir -p $(dir $@)
	ar rcs $@ $^ $(if $(VIEWS_OBJ),,)

$(BIN): $(TUI_OBJ) $(CLI_OBJ) $(LIBVIEWS) $(LIBJOBS) $(LIBENGINE)
	$(CC) $(LDFLAGS) -o $@ $(TUI_OBJ) $(CLI_OBJ) $(LIBVIEWS) $(LIBJOBS) $(LIBENGINE) $(TUI_LIBS) $(ENGINE_LIBS)

$(BUILD)/tests/%: tests/%.c $(TESTLIB_OBJ) $(LIBVIEWS) $(LIBJOBS) $(LIBENGINE_INTERNAL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_TESTS) -MMD -MP $(LDFLAGS) -o $@ $< $(TESTLIB_OBJ) $(LIBVIEWS) $(LIBJOBS) $(LIBENGINE_INTERNAL) $(ENGINE_LIBS)

# `make test`, `make check-asan` and `make run` install missing Debian
# packages first, then build in a second make so that the pkg-config flags
# are read after the install (a fresh machine has no pkg-config at first).
test: deps
	@$(MAKE) --no-print-directory test-run

test-run: all $(TEST_BIN)
	@BUILD=$(BUILD) DNNPART=$(abspath $(BIN)) sh tests/run.sh

check-asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 test-run

# libFuzzer targets, one per loader (fuzz/fuzz_*.c): `make fuzz` builds them
# with clang into build-fuzz/ and runs each for FUZZ_SECONDS (fuzz/run.sh;
# FUZZ_TARGETS=json,dot picks some).
FUZZ_SECONDS ?= 60
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%)

$(BUILD)/fuzz/%: fuzz/%.c fuzz/fuzz_util.h $(LIBENGINE_INTERNAL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_FUZZ) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(LIBENGINE_INTERNAL) $(ENGINE_LIBS)

fuzz-build: $(FUZZ_BIN)

fuzz:
	@$(MAKE) --no-print-directory BUILD=build-fuzz SAN=fuzz CC=clang fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS=$(FUZZ_TARGETS) sh fuzz/run.sh

run: deps
	@$(MAKE) --no-print-directory all
	./dnnpart $(or $(GRAPH),$(shell cat sample_graphs/DEFAULT 2>/dev/null),sample_graphs/default.json)

# docs/pictures/: the default SVG of every sample graph, rendered at 100 %
pictures: all
	@sh tools/make_pictures.sh $(BIN)

format:
	clang-format -i $(ENGINE_SRC) $(JOBS_SRC) $(VIEWS_SRC) $(CLI_SRC) $(TUI_SRC) $(TEST_SRC) $(wildcard include/dnnpart/*.h engine/internal/*.h jobs/*.h views/*.h cli/*.h tui/*.h tests/lib/*.[ch])

clean:
	rm -rf build build-asan build-fuzz dnnpart

# Benchmarks (bench/, docs/benchmarks.md): the driver build/bench/dnnpart-bench
# links the explorer's worker (jobs/worker.c) to time reruns the way the
# explorer runs them. bench_pardnn.c and bench_peers.c are standalone tools.
BENCH_TOOL_SRC := bench/bench_pardnn.c bench/bench_peers.c bench/bench_msrdp.c \
	bench/bench_bound.c \
	bench/bench_copies.c bench/bench_pasemodel.c bench/bench_recompute.c
BENCH_SRC := $(filter-out $(BENCH_TOOL_SRC),$(sort $(wildcard bench/bench*.c)))
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/%.o)
BENCH_BIN := $(BUILD)/bench/dnnpart-bench
BENCH_TOOLS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard $(BENCH_TOOL_SRC)))

$(BENCH_OBJ): LAYER_INC := $(INC_BENCH)

$(BENCH_BIN): $(BENCH_OBJ) $(LIBVIEWS) $(LIBJOBS) $(LIBENGINE)
	$(CC) $(LDFLAGS) -o $@ $(BENCH_OBJ) $(LIBVIEWS) $(LIBJOBS) $(LIBENGINE) $(ENGINE_LIBS)

$(BENCH_TOOLS): $(BUILD)/bench/%: bench/%.c $(LIBENGINE_INTERNAL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_ENGINE) -Ibench $(LDFLAGS) -o $@ $< $(LIBENGINE_INTERNAL) $(ENGINE_LIBS)

# full: sizes to 1M ops, several runs (about 8 minutes on 2 cores), the
# explorer's key latency in tmux, then the plots (gnuplot)
bench: all $(BENCH_BIN) $(BENCH_TOOLS)
	$(BENCH_BIN)
	sh bench/bench_tui.sh 100000 20
	sh bench/plot.sh

bench-quick: $(BENCH_BIN)
	$(BENCH_BIN) --quick

-include $(BENCH_OBJ:.o=.d)

-include $(ENGINE_OBJ:.o=.d) $(JOBS_OBJ:.o=.d) $(VIEWS_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TUI_OBJ:.o=.d) $(TESTLIB_OBJ:.o=.d) $(TEST_BIN:=.d)
