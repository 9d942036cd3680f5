# dnnpart - see `make help`.
#
# Layout: engine/ -> build/libdnnpart.a, views/ -> build/libviews.a,
# tui/ -> ./dnnpart, tests/test_*.c -> build/tests/test_*.
# `make check-asan` builds the same into build-asan/ with ASan + UBSan.

CC ?= cc
BUILD ?= build
SAN ?= 0

ENGINE_PKGS := libcgraph libgvc libcjson
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
CFLAGS := $(CFLAGS_BASE) $(OPT) $(PKG_CFLAGS) -Iengine -Iviews -Itui $(EXTRA_CFLAGS)
LDFLAGS := $(LDSAN) $(EXTRA_LDFLAGS)

ENGINE_SRC := $(sort $(wildcard engine/*.c))
VIEWS_SRC := $(sort $(wildcard views/*.c))
TUI_SRC := $(sort $(wildcard tui/*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))

ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
VIEWS_OBJ := $(VIEWS_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ := $(TUI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TESTLIB_OBJ := $(BUILD)/tests/lib/testlib.o

LIBENGINE := $(BUILD)/libdnnpart.a
LIBVIEWS := $(BUILD)/libviews.a
BIN := $(BUILD)/dnnpart

.PHONY: all deps check-deps test test-run check-asan format clean help run bench bench-quick fuzz fuzz-build
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
	@echo "  make clean        remove build outputs"

deps:
	@sh tools/deps.sh install

check-deps:
	@sh tools/deps.sh check

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIBENGINE): $(ENGINE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBVIEWS): $(VIEWS_OBJ)
	@rm -f $@
	@mkdir -p $(dir $@)
	ar rcs $@ $^ $(if $(VIEWS_OBJ),,)

$(BIN): $(TUI_OBJ) $(LIBVIEWS) $(LIBENGINE)
	$(CC) $(LDFLAGS) -o $@ $(TUI_OBJ) $(LIBVIEWS) $(LIBENGINE) $(TUI_LIBS) $(ENGINE_LIBS)

$(BUILD)/tests/%: tests/%.c $(TESTLIB_OBJ) $(LIBVIEWS) $(LIBENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -MMD -MP $(LDFLAGS) -o $@ $< $(TESTLIB_OBJ) $(LIBVIEWS) $(LIBENGINE) $(ENGINE_LIBS)

$(TESTLIB_OBJ): tests/lib/testlib.c tests/lib/testlib.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -c $< -o $@

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

$(BUILD)/fuzz/%: fuzz/%.c fuzz/fuzz_util.h $(LIBENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(LIBENGINE) $(ENGINE_LIBS)

fuzz-build: $(FUZZ_BIN)

fuzz:
	@$(MAKE) --no-print-directory BUILD=build-fuzz SAN=fuzz CC=clang fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS=$(FUZZ_TARGETS) sh fuzz/run.sh

run: deps
	@$(MAKE) --no-print-directory all
	./dnnpart $(or $(GRAPH),$(shell cat sample_graphs/DEFAULT 2>/dev/null),sample_graphs/default.json)

format:
	clang-format -i $(ENGINE_SRC) $(VIEWS_SRC) $(TUI_SRC) $(TEST_SRC) $(wildcard engine/*.h engine/internal/*.h views/*.h tui/*.h tests/lib/*.[ch])

clean:
	rm -rf build build-asan build-fuzz dnnpart

# Benchmarks (bench/, docs/benchmarks.md): the driver build/bench/dnnpart-bench
# links the explorer's worker (tui/tui_worker.c) to time reruns the way the
# explorer runs them. bench_pardnn.c and bench_peers.c are standalone tools.
BENCH_TOOL_SRC := bench/bench_pardnn.c bench/bench_peers.c
BENCH_SRC := $(filter-out $(BENCH_TOOL_SRC),$(sort $(wildcard bench/bench*.c)))
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/%.o)
BENCH_BIN := $(BUILD)/bench/dnnpart-bench
BENCH_TOOLS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard $(BENCH_TOOL_SRC)))

$(BENCH_BIN): $(BENCH_OBJ) $(BUILD)/tui/tui_worker.o $(LIBVIEWS) $(LIBENGINE)
	$(CC) $(LDFLAGS) -o $@ $(BENCH_OBJ) $(BUILD)/tui/tui_worker.o $(LIBVIEWS) $(LIBENGINE) $(ENGINE_LIBS)

$(BENCH_TOOLS): $(BUILD)/bench/%: bench/%.c $(LIBENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBENGINE) $(ENGINE_LIBS)

# full: sizes to 1M ops, several runs (about 8 minutes on 2 cores), the
# explorer's key latency in tmux, then the plots (gnuplot)
bench: all $(BENCH_BIN) $(BENCH_TOOLS)
	$(BENCH_BIN)
	sh bench/bench_tui.sh 100000 20
	sh bench/plot.sh

bench-quick: $(BENCH_BIN)
	$(BENCH_BIN) --quick

-include $(BENCH_OBJ:.o=.d)

-include $(ENGINE_OBJ:.o=.d) $(VIEWS_OBJ:.o=.d) $(TUI_OBJ:.o=.d) $(TEST_BIN:=.d)
