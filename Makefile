# __sandbox — see README.md.  `make` builds the static binary, `make check`
# runs every test (TAP, through prove), `make install PREFIX=… DESTDIR=…`.
PREFIX ?= /usr/local
DESTDIR ?=
DEPS := build/deps
CC := musl-gcc
CFLAGS ?= -Os
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wvla -Wshadow -Wformat=2 \
	  -fno-strict-aliasing -ffunction-sections -fdata-sections \
	  -isystem $(DEPS)/kheaders -I$(DEPS)/prefix/include -I$(DEPS)
LDFLAGS += -static -Wl,--gc-sections
LDLIBS := -L$(DEPS)/prefix/lib -lseccomp -lcap-ng -ljansson

POLICY_SRC := $(wildcard policy/*.c)
SHIM_SRC := $(wildcard shim/*.c)
POLICY_OBJ := $(POLICY_SRC:%.c=build/obj/%.o)
SHIM_OBJ := $(SHIM_SRC:%.c=build/obj/%.o)
HELPERS := $(patsubst tests/helpers/%.c,build/helpers/%,$(wildcard tests/helpers/*.c))
UNIT := build/tests/unit_policy

all: __sandbox

$(DEPS)/stamp:
	scripts/deps $(DEPS)

build/obj/%.o: %.c $(wildcard policy/*.h shim/*.h) | $(DEPS)/stamp
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

__sandbox: $(POLICY_OBJ) $(SHIM_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
	strip $@

# The seccomp filters of common profiles (the default one first), compiled
# at build time by the very code the shim runs and linked in as data
# (shim/seccomp_bpf.h); $(UNIT_SC) proves them equal to a run-time compile.
SC_GEN := build/gen/seccomp_embedded.c
SC_OBJ := build/obj/build/gen/seccomp_embedded.o
UNIT_SC := build/tests/unit_seccomp
build/gen/seccomp-embed: scripts/seccomp-embed.c $(POLICY_OBJ) build/obj/shim/seccomp.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(SC_GEN): build/gen/seccomp-embed
	$< > $@.tmp && mv $@.tmp $@
__sandbox: $(SC_OBJ)
$(UNIT_SC): tests/unit/test_seccomp.c $(POLICY_OBJ) $(addprefix build/obj/shim/,seccomp.o probe.o fsview.o) $(SC_OBJ) tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $(filter %.c %.o,$^) $(LDLIBS)
tests: $(UNIT_SC)

$(UNIT): tests/unit/test_policy.c $(POLICY_OBJ) tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(POLICY_OBJ) $(LDLIBS)

build/helpers/%: tests/helpers/%.c | $(DEPS)/stamp
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

tests: __sandbox $(UNIT) $(HELPERS)

# Node packages of the tests (ajv for the schemas, the MCP filesystem
# server), exactly as locked in tests/package-lock.json.
NODE_DEPS := tests/node_modules/.package-lock.json
$(NODE_DEPS): tests/package.json tests/package-lock.json
	npm ci --prefix tests --ignore-scripts --no-audit --no-fund --loglevel=error
tests: $(NODE_DEPS)

check: tests
	prove -v $(UNIT) $(UNIT_SC) tests/integration/*.t tests/security/*.t tests/cases/*.t tests/carve/*.t \
	  tests/schema/*.t tests/user/*.t tests/examples/*.t tests/mcp/*.t tests/doc/*.t

# Start-up, steady-state, scaling, size and memory next to bwrap and
# firejail: one table (scripts/bench; BENCHMARKS.md holds a recorded run).
bench: __sandbox $(HELPERS)
	scripts/bench

install: __sandbox
	install -D -m 0755 __sandbox $(DESTDIR)$(PREFIX)/bin/__sandbox
	install -D -m 0644 doc/__sandbox.1 $(DESTDIR)$(PREFIX)/share/man/man1/__sandbox.1
	install -D -m 0644 -t $(DESTDIR)$(PREFIX)/share/__sandbox \
	  policy/profile.schema.json doc/probe.schema.json doc/plan.schema.json

clean:
	rm -rf build/obj build/tests build/helpers build/gen __sandbox

distclean: clean
	rm -rf build

.PHONY: all check tests bench install clean distclean

# ==== reliability suite (issue 5): check-kernels, fuzz, check-asan, lint ====
# The sanitizer, fuzzer and analyzer builds are glibc builds beside the
# static musl binary, against Debian's libjansson-dev, libseccomp-dev and
# libcap-ng-dev (scripts/setup); their objects live under build/asan.
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
GLIBC_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wvla -Wshadow \
	-Wformat=2 -fno-strict-aliasing -Ibuild/asan -Ibuild/asan/libseccomp/include
# Debian 12's libseccomp-dev (2.5.4) lacks seccomp_export_bpf_mem (2.6):
# libseccomp is rebuilt for glibc from the very source scripts/deps used.
GLIBC_SECCOMP := build/asan/libseccomp/lib/libseccomp.a
GLIBC_LIBS := $(GLIBC_SECCOMP) -lcap-ng -ljansson
ASAN_POLICY_OBJ := $(POLICY_SRC:%.c=build/asan/obj/%.o)
ASAN_SHIM_OBJ := $(SHIM_SRC:%.c=build/asan/obj/%.o) $(if $(SC_GEN),build/asan/obj/$(SC_GEN:.c=.o))
FUZZ_SECONDS ?= 60
FUZZ_BIN := build/fuzz/fuzz_policy
GUEST_HELPERS := build/guest/setuid-exec

$(GLIBC_SECCOMP): | $(DEPS)/stamp
	rm -rf build/asan/libseccomp && mkdir -p build/asan/libseccomp
	suite=$$(sed -n 's/.*LIBSECCOMP_VERSION ".* (\(.*\))"/\1/p' $(DEPS)/versions.h) && \
	dsc=$$(ls $(DEPS)/src/libseccomp/$$suite/*.dsc | head -n1) && \
	dpkg-source -x $$dsc build/asan/libseccomp/src >/dev/null && cd build/asan/libseccomp/src && \
	{ [ -x configure ] || autoreconf -fi >/dev/null 2>&1; } && \
	./configure -q CC=gcc CFLAGS=-O2 --prefix=$(CURDIR)/build/asan/libseccomp \
	  --enable-static --disable-shared --disable-python >/dev/null && \
	$(MAKE) -s -C src >/dev/null && $(MAKE) -s -C include install >/dev/null && \
	$(MAKE) -s -C src install >/dev/null

# versions.h of the glibc build: the libraries it links against.
build/asan/versions.h: $(GLIBC_SECCOMP)
	@mkdir -p $(dir $@)
	{ echo '/* Generated by the Makefile: the glibc sanitizer build. */'; \
	  sed -n 's/\(.*LIBSECCOMP_VERSION "[^"]*\)"/\1, rebuilt for glibc"/p' $(DEPS)/versions.h; \
	  for p in LIBCAPNG:libcap-ng-dev JANSSON:libjansson-dev; do \
	    echo "#define DEP_$${p%%:*}_VERSION \"$$(dpkg-query -W -f='$${Version}' $${p#*:}) (Debian, glibc)\""; done; \
	  echo '#define DEP_MUSL_VERSION "none (glibc build)"'; } > $@
build/asan/obj/%.o: %.c $(wildcard policy/*.h shim/*.h) build/asan/versions.h
	@mkdir -p $(dir $@)
	gcc $(GLIBC_CFLAGS) $(SAN) -c -o $@ $<
build/asan/__sandbox: $(ASAN_POLICY_OBJ) $(ASAN_SHIM_OBJ)
	gcc $(SAN) -o $@ $^ $(GLIBC_LIBS)
build/asan/unit_policy: tests/unit/test_policy.c $(ASAN_POLICY_OBJ) tests/unit/tap.h
	gcc $(GLIBC_CFLAGS) $(SAN) -Itests/unit -o $@ $< $(ASAN_POLICY_OBJ) $(GLIBC_LIBS)
build/asan/replay: tests/fuzz/replay.c tests/fuzz/fuzz_policy.c $(ASAN_POLICY_OBJ)
	gcc $(GLIBC_CFLAGS) $(SAN) -o $@ $^ $(GLIBC_LIBS)

# The shell tests of `make check` but tests/user, which runs the shim in a
# container root holding static programs only (the sanitizer build is not).
ASAN_SHELL_TESTS = $(filter-out tests/user/%,$(wildcard tests/*/*.t))
# Unit tests, every fuzz input that once crashed (tests/fuzz/regressions)
# and the seed corpus, then the shell tests against the sanitized shim
# (SB_BINARY, tests/lib.sh).  Reports go to files (the shim's stderr is
# often compared or discarded by the tests); any file there fails the run.
# Leaks are not checked in the shim: it exits or execs with its plan
# allocated by design; the unit tests and the fuzzer check policy/'s.
check-asan: build/asan/__sandbox build/asan/unit_policy build/asan/replay $(HELPERS)
	rm -rf build/asan/reports && mkdir -p build/asan/reports && chmod 1777 build/asan/reports
	prove build/asan/unit_policy
	build/asan/replay $(wildcard tests/fuzz/regressions/*) $(wildcard tests/fuzz/corpus/*) $(wildcard examples/*.json) >build/asan/replay.tap \
	  || { cat build/asan/replay.tap; exit 1; }
	@echo "check-asan: replayed $$(grep -c '^ok' build/asan/replay.tap) fuzz inputs (regressions and corpus) clean"
	SB_BINARY=$(CURDIR)/build/asan/__sandbox \
	  ASAN_OPTIONS=detect_leaks=0:log_path=$(CURDIR)/build/asan/reports/asan \
	  UBSAN_OPTIONS=print_stacktrace=1:log_path=$(CURDIR)/build/asan/reports/ubsan \
	  prove $(ASAN_SHELL_TESTS)
	@if [ -n "$$(ls build/asan/reports)" ]; then cat build/asan/reports/*; \
	  echo "check-asan: sanitizer reports above" >&2; exit 1; fi

$(FUZZ_BIN): tests/fuzz/fuzz_policy.c $(POLICY_SRC) $(wildcard policy/*.h) build/asan/versions.h
	@mkdir -p $(dir $@)
	clang $(GLIBC_CFLAGS) -fsanitize=fuzzer $(SAN) -o $@ tests/fuzz/fuzz_policy.c $(POLICY_SRC) $(GLIBC_LIBS)

# libFuzzer for FUZZ_SECONDS; it exits non-zero on a crash, a leak, a
# timeout or a sanitizer report, leaving the input in build/fuzz/artifacts
# (copy it to tests/fuzz/regressions/ once fixed).
# Seeds: tests/fuzz/corpus (accepted and refused documents), the example
# profiles (examples/*.json) and every earlier crash.
fuzz: $(FUZZ_BIN)
	@mkdir -p build/fuzz/corpus build/fuzz/artifacts build/fuzz/seeds
	cp $(wildcard examples/*.json) $(wildcard tests/fuzz/regressions/*) build/fuzz/seeds/ 2>/dev/null || true
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -dict=tests/fuzz/profile.dict \
	  -max_len=4096 -timeout=10 -print_final_stats=1 \
	  -artifact_prefix=build/fuzz/artifacts/ build/fuzz/corpus tests/fuzz/corpus build/fuzz/seeds

# cppcheck and gcc's static analyzer over shim/ and policy/; every finding
# fails.  Suppressions are inline (cppcheck-suppress / #pragma) with a
# comment saying why.
lint: build/asan/versions.h
	cppcheck --quiet --error-exitcode=1 --inline-suppr --std=c11 \
	  --enable=warning,style,performance,portability \
	  -Ibuild/asan -Ipolicy -Ishim policy shim
	for f in $(POLICY_SRC) $(SHIM_SRC); do \
	  gcc $(GLIBC_CFLAGS) -fanalyzer -c -o /dev/null $$f || exit 1; done

build/guest/%: tests/guest/%.c | $(DEPS)/stamp
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

# The in-guest suite on Debian's 6.1, 6.12 and 7.x kernels under qemu, and
# natively on this machine's kernel; writes doc/kernel-matrix.md.
check-kernels: __sandbox $(HELPERS) $(GUEST_HELPERS)
	scripts/kernel-matrix

.PHONY: check-asan fuzz lint check-kernels
# ==== end of the reliability suite block ====
