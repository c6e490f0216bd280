# hpcollect - top-level build.
#
#   make              build bin/ and lib/ (warnings are errors)
#   make check        install missing Debian packages, build, run every test
#   make check SANITIZE=1   the same under ASan+UBSan (objects and outputs in build/san/)
#   make demo         install, build, profile the bundled example, print reports
#   make fuzz         bounded libFuzzer run over the experiment reader
#   make bench        benchmarks (not part of check); results go to bench/RESULTS.md
#   make install PREFIX=/opt/hpcollect
#
# Each stage has its own fragment (<stage>/module.mk) that adds its targets; this file
# holds only what they share.

SANITIZE ?= 0
PREFIX   ?= /usr/local
CC       := gcc

ifeq ($(SANITIZE),1)
OUT      := build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else
OUT      := .
SANFLAGS :=
endif

BINDIR   := $(OUT)/bin
LIBDIR   := $(OUT)/lib
OBJDIR   := $(if $(filter 1,$(SANITIZE)),build/san/obj,build/obj)
TESTDIR  := $(if $(filter 1,$(SANITIZE)),build/san/tests,build/tests)

WARN     := -Wall -Wextra -Werror
CFLAGS   := -std=gnu11 $(WARN) -O2 -g -fPIC -fvisibility=hidden -D_GNU_SOURCE \
            -Iexperiment $(SANFLAGS)
LDFLAGS  := $(SANFLAGS)
# Every stage talks through the experiment format, so experiment/ is on every include
# path; other folders' headers only where a fragment adds them (-Imodel for the analysis
# tools, -Icollector for the code inside the preloaded library and the launcher).

VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
CFLAGS   += -DHPC_VERSION=\"$(VERSION)\"

# $(call objs,SOURCES) -> object files
objs = $(patsubst %.c,$(OBJDIR)/%.o,$(1))

# The experiment library every stage links (built by experiment/module.mk); defined here
# because fragments are read alphabetically and use it before experiment/ is read.
EXP_LIB      := $(OBJDIR)/libhpcexp.a
# Its writer alone, compiled for the preloaded libraries (collector/module.mk): they link
# this, never the reader (tests/style/test_exports.sh).
EXP_WRITER_LIB := $(OBJDIR)/preload/libhpcexp-writer.a
# The data model hpanalyze and hpmerge share (built by model/module.mk, read after both).
MODEL_LIB    := $(OBJDIR)/libhpcmodel.a

ALL_TARGETS  :=
CHECK_DEPS   :=
INSTALL_BIN  :=
INSTALL_LIB  :=

.PHONY: all deps check demo fuzz bench install clean format
all:

include $(sort $(wildcard */module.mk))

all: $(ALL_TARGETS)

$(OBJDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(shell find build -name '*.d' 2>/dev/null)

deps:
	@mk/deps.sh

check: deps
	$(MAKE) all $(CHECK_DEPS)
	HPC_OUT=$(OUT) HPC_TESTDIR=$(TESTDIR) SANITIZE=$(SANITIZE) tests/run-tests.sh $(TESTS)

install: all
	install -d $(PREFIX)/bin $(PREFIX)/lib/hpcollect $(PREFIX)/include
	install -m 755 $(INSTALL_BIN) $(PREFIX)/bin/
	install -m 644 $(INSTALL_LIB) $(PREFIX)/lib/hpcollect/
	install -m 644 include/hpcollect.h $(PREFIX)/include/ 2>/dev/null || true

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build bin lib
