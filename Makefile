# SPDX-License-Identifier: MIT
# One non-recursive Makefile.  `make` builds build/confpol and
# build/confpol-run; `make check` runs every test; see README.md.

BUILD    ?= build
CC       ?= cc
BISON    ?= bison
FLEX     ?= flex
PREFIX   ?= /usr/local
PKG_CONFIG ?= pkg-config

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wswitch-enum -Werror
CFLAGS   ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -I$(BUILD)/grammar -Icompiler -Ibackends -Iruntime
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) $(EXTRA_CFLAGS)
DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null)
DEPS_LIBS   := $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null || echo -lcjson)
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell $(PKG_CONFIG) --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

GEN_SRCS := $(BUILD)/grammar/parser.c $(BUILD)/grammar/lexer.c
LIB_SRCS := $(sort $(wildcard compiler/*.c backends/*.c runtime/*.c))
LIB_SRCS := $(filter-out runtime/confpol_run_main.c,$(LIB_SRCS))
CLI_SRCS := $(sort $(wildcard cli/*.c))
TEST_SRCS := $(sort $(wildcard tests/unit/*.c))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(GEN_SRCS:.c=.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/tests/unit/suites.o

LIB  := $(BUILD)/libconfpol.a
BINS := $(BUILD)/confpol $(BUILD)/confpol-run

.PHONY: all check check-run check-unit check-sh check-asan check-valgrind \
        check-valgrind-run demo deps \
        install golden bench bench-gate fuzz format clean soak

all: $(BINS)

# ---- generated front end -------------------------------------------------
$(BUILD)/grammar/parser.c: grammar/parser.y
	@mkdir -p $(@D)
	$(BISON) -Wall -Werror -d -o $@ $<
$(BUILD)/grammar/parser.h: $(BUILD)/grammar/parser.c
$(BUILD)/grammar/lexer.c: grammar/lexer.l $(BUILD)/grammar/parser.h
	@mkdir -p $(@D)
	$(FLEX) -o $@ --header-file=$(BUILD)/grammar/lexer.h $<
$(BUILD)/grammar/lexer.h: $(BUILD)/grammar/lexer.c

# Everything that may include the generated headers waits for them.
$(LIB_OBJS) $(CLI_OBJS) $(TEST_OBJS): | $(BUILD)/grammar/parser.h $(BUILD)/grammar/lexer.h

# The gate library's installed place (compiler/library.c).
$(BUILD)/compiler/library.o: CPPFLAGS += -DCP_DATADIR='"$(PREFIX)/share/confpol"'
$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPS_CFLAGS) -MMD -MP -c -o $@ $<
$(BUILD)/grammar/%.o: $(BUILD)/grammar/%.c
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<
$(BUILD)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPS_CFLAGS) $(CHECK_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/confpol: $(CLI_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(DEPS_LIBS)

# The runtime binary links only what runtime/ needs; the parser must not be
# pulled in (checked by tests/sh/runtime-no-parser.sh).  It needs nothing
# but libc, and it is started twice per launch (the runtime, then its stage
# inside the sandbox), so it is linked static-pie: no dynamic loader, no
# shared-object mapping or relocation at either start (spec/runtime.md §11).
# RUN_LDFLAGS= links it dynamically (sanitizer builds do).
RUN_LDFLAGS ?= -static-pie
$(BUILD)/confpol-run: $(BUILD)/runtime/confpol_run_main.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(RUN_LDFLAGS) -o $@ $< $(LIB)

# ---- tests ----------------------------------------------------------------
# Each tests/unit/*.c defines `Suite *cp_test_NAME_suite(void)`; the runner
# registers all of them.
$(BUILD)/tests/unit/suites.c: $(TEST_SRCS)
	@mkdir -p $(@D)
	@{ echo '#include <check.h>'; \
	   for n in $$(sed -n 's/^Suite \*cp_test_\([a-z0-9_]*\)_suite(void)$$/\1/p' $(TEST_SRCS) /dev/null); do \
	     echo "Suite *cp_test_$${n}_suite(void);"; done; \
	   echo 'Suite *(*const cp_test_suites[])(void) = {'; \
	   for n in $$(sed -n 's/^Suite \*cp_test_\([a-z0-9_]*\)_suite(void)$$/\1/p' $(TEST_SRCS) /dev/null); do \
	     echo "    cp_test_$${n}_suite,"; done; \
	   echo '    0,'; echo '};'; } > $@.tmp && mv $@.tmp $@
$(BUILD)/tests/unit/suites.o: $(BUILD)/tests/unit/suites.c
	$(CC) $(CPPFLAGS) -std=c11 $(CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<

$(BUILD)/unit-tests: $(TEST_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(TEST_OBJS) $(LIB) $(DEPS_LIBS) $(CHECK_LIBS)

# The entry points first install what they use (.ci/deps.sh GROUP), then
# build in a second make: this one read the Makefile, and so ran pkg-config,
# before the packages were there (a fresh machine's first run).
check:
	@sh .ci/deps.sh check
	@$(MAKE) --no-print-directory check-run

check-run: all $(BUILD)/unit-tests
	$(BUILD)/unit-tests
	BUILD=$(BUILD) sh tests/run.sh

check-unit: all $(BUILD)/unit-tests
	$(BUILD)/unit-tests

check-sh: all
	BUILD=$(BUILD) sh tests/run.sh

# Sanitizers: an ASan+UBSan build in build-asan runs the unit tests and every
# shell test; tests/sanitize.sh sets ASAN_OPTIONS/UBSAN_OPTIONS and fails on
# any sanitizer report (reports go to log files so that exact-stderr tests
# are not what catches them).
SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer
check-asan:
	@sh .ci/deps.sh asan
	$(MAKE) BUILD=build-asan CC=clang CFLAGS="$(SAN_CFLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" RUN_LDFLAGS= all build-asan/unit-tests
	BUILD=build-asan sh tests/sanitize.sh

# Valgrind memcheck: the unit tests (without fork) and tests/valgrind.sh
# (check/build/fmt/explain on every example and front-end test input);
# zero errors and zero definite or indirect leaks.
check-valgrind:
	@sh .ci/deps.sh valgrind
	@$(MAKE) --no-print-directory check-valgrind-run

check-valgrind-run: all $(BUILD)/unit-tests
	CK_FORK=no valgrind --quiet --error-exitcode=99 --leak-check=full \
	  --errors-for-leak-kinds=definite,indirect $(BUILD)/unit-tests
	BUILD=$(BUILD) sh tests/valgrind.sh

golden: all
	BUILD=$(BUILD) UPDATE=1 sh tests/golden/run.sh

# The SBPL and claude attack campaigns for as long as asked:
# make soak-sbpl SEED=N COUNT=N
.PHONY: soak-sbpl
soak-sbpl: all
	BUILD=$(BUILD) CONFPOL=$(CURDIR)/$(BUILD)/confpol TOP=$(CURDIR) \
	  SBPL_SEED=$(or $(SEED),1) SBPL_COUNT=$(or $(COUNT),500) \
	  sh tests/sh/sbpl-campaign.sh
	BUILD=$(BUILD) CONFPOL=$(CURDIR)/$(BUILD)/confpol TOP=$(CURDIR) \
	  CLAUDE_SEED=$(or $(SEED),1) CLAUDE_COUNT=$(or $(COUNT),500) \
	  sh tests/sh/claude-campaign.sh

bench: all
	BUILD=$(BUILD) sh tests/bench/run.sh

# Only the gate hook with the gate library (part of `make bench`).
bench-gate: all
	BUILD=$(BUILD) sh tests/bench/gate.sh

# The attack campaign for as long as asked (tests/campaign/README.md);
# `make check` runs a fixed-seed slice of it (tests/sh/campaign.sh).
SEED ?= 1
COUNT ?= 200
soak: all
	python3 tests/campaign/run.py --seed $(SEED) --count $(COUNT) \
	  --confpol $(BUILD)/confpol --confpol-run $(BUILD)/confpol-run

FUZZ_SECONDS ?= 60
fuzz:
	@sh .ci/deps.sh fuzz
	BUILD=build-fuzz sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# ---- setup, demo, install --------------------------------------------------
# Installs missing Debian packages when root; otherwise prints the command.
deps:
	@sh .ci/deps.sh check

demo:
	@sh .ci/deps.sh demo
	@$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) all
	sh examples/demo.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/confpol $(BUILD)/confpol-run $(DESTDIR)$(PREFIX)/bin/
	install -m 644 spec/confpol.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/confpol/gates
	install -m 644 gates/*.confpol $(DESTDIR)$(PREFIX)/share/confpol/gates/

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
