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

$(UNIT): tests/unit/test_policy.c $(POLICY_OBJ) tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(POLICY_OBJ) $(LDLIBS)

build/helpers/%: tests/helpers/%.c | $(DEPS)/stamp
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

tests: __sandbox $(UNIT) $(HELPERS)

check: tests
	prove -v $(UNIT) tests/integration/*.t tests/security/*.t tests/cases/*.t

install: __sandbox
	install -D -m 0755 __sandbox $(DESTDIR)$(PREFIX)/bin/__sandbox

clean:
	rm -rf build/obj build/tests build/helpers __sandbox

distclean: clean
	rm -rf build

.PHONY: all check tests install clean distclean
