# kbisect - automated kernel bisection that knows benchmarks are noisy

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
DATADIR = $(PREFIX)/share/kbisect
MANDIR = $(PREFIX)/share/man/man1
COMPLETIONDIR = $(PREFIX)/share/bash-completion/completions

CC ?= cc
PKGS = libgit2 libvirt libssh2 sqlite3 jansson libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(PKG_CFLAGS) $(LIB_INC) \
	-DKB_DATADIR='"$(DATADIR)"'
LIBS = $(PKG_LIBS) -lm
# lib/: the engine, flat, with the target layer and the session layer in
# folders of their own
LIB_DIRS = lib lib/target lib/session
LIB_INC = $(addprefix -I,$(LIB_DIRS))

ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

LIB_SRC = $(wildcard $(addsuffix /*.c,$(LIB_DIRS)))
CMD_SRC = $(wildcard cmd/*.c)
LIB_OBJ = $(LIB_SRC:.c=.o)
CMD_OBJ = $(CMD_SRC:.c=.o)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
HDRS = $(wildcard $(addsuffix /*.h,$(LIB_DIRS)) cmd/*.h tests/unit/*.h)

all: kbisect tests/gen/genrepo

kbisect: $(CMD_OBJ) lib/libkbisect.a
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $(CMD_OBJ) lib/libkbisect.a $(LIBS)

lib/libkbisect.a: $(LIB_OBJ)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $(LIB_OBJ)

ifneq ($(V),1)
Q = @
QUIET_CC = @echo '   CC' $@;
QUIET_LINK = @echo ' LINK' $@;
endif

%.o: %.c $(HDRS)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

UNIT_EXTRA = tests/unit/main.c tests/unit/repo.c tests/sim/sim.c

tests/unit/run-unit: $(UNIT_EXTRA) $(UNIT_SRC) lib/libkbisect.a $(HDRS) tests/sim/sim.h
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $(UNIT_EXTRA) $(UNIT_SRC) \
		lib/libkbisect.a $(LDFLAGS) $(LIBS)

tests/sim/bench-sim: tests/sim/bench-sim.c tests/sim/sim.c tests/sim/sim.h lib/libkbisect.a
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ tests/sim/bench-sim.c tests/sim/sim.c \
		lib/libkbisect.a $(LDFLAGS) $(LIBS)

tests/sim/bench-sweep: tests/sim/bench-sweep.c tests/sim/sim.c tests/sim/sim.h lib/libkbisect.a
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -o $@ tests/sim/bench-sweep.c tests/sim/sim.c \
		lib/libkbisect.a $(LDFLAGS) $(LIBS)

tests/gen/genrepo: tests/gen/genrepo.c
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -o $@ $< $(LDFLAGS) $(LIBS)

# libFuzzer harnesses of the parsers of files and output (tests/fuzz/run.sh):
# the library sources they need built into each with clang and sanitizers
FUZZ_CC = clang
FUZZ_CFLAGS = -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined $(PKG_CFLAGS) $(LIB_INC)
FUZZ_BIN = tests/fuzz/fuzz_bench tests/fuzz/fuzz_machine tests/fuzz/fuzz_metric
# (the machine checks find the backends' keys through lib/target/target.c, whose
# backends are tests/fuzz/backends.c's: no libvirt or libssh2 code)
FUZZ_LIB = lib/bench.c lib/target/machine.c lib/util.c lib/target/target.c lib/target/target_keys.c \
	tests/fuzz/backends.c

fuzz: $(FUZZ_BIN)

tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB) $(HDRS)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIB) $(LIBS)

check: all tests/unit/run-unit
	@sh tests/run-tests.sh

install: kbisect
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DATADIR)/benchmarks \
		$(DESTDIR)$(DATADIR)/machines $(DESTDIR)$(DATADIR)/kernel $(DESTDIR)$(DATADIR)/guests \
		$(DESTDIR)$(DATADIR)/lava
	install -m 755 kbisect $(DESTDIR)$(BINDIR)/kbisect
	install -m 644 doc/kbisect.1 $(DESTDIR)$(MANDIR)/kbisect.1
	install -m 644 configs/benchmarks/*.json $(DESTDIR)$(DATADIR)/benchmarks/
	install -m 644 configs/machines/*.json $(DESTDIR)$(DATADIR)/machines/
	install -m 644 configs/kernel/*.config $(DESTDIR)$(DATADIR)/kernel/
	install -m 755 guests/init $(DESTDIR)$(DATADIR)/guests/init
	install -m 644 guests/lava-job $(DESTDIR)$(DATADIR)/guests/lava-job
	install -m 644 configs/lava/*.yaml $(DESTDIR)$(DATADIR)/lava/
	install -d $(DESTDIR)$(COMPLETIONDIR)
	install -m 644 contrib/completion/kbisect.bash $(DESTDIR)$(COMPLETIONDIR)/kbisect

deps:
	sh tests/install-deps.sh

clean:
	rm -f kbisect $(addsuffix /*.o,$(LIB_DIRS)) lib/libkbisect.a cmd/*.o tests/unit/run-unit tests/gen/genrepo \
		tests/sim/bench-sim tests/sim/bench-sweep $(FUZZ_BIN)

.PHONY: all check install deps clean fuzz
