# analyzer/ - hpanalyze: er_print-style reports over experiments.
ANALYZER_SRCS    := $(wildcard analyzer/*.c)
ANALYZER_BIN     := $(BINDIR)/hpanalyze

# The symbol resolver, MPI numbers and OpenMP state rules are the shared model (model/).
$(OBJDIR)/analyzer/%.o: CFLAGS += -Imodel

$(ANALYZER_BIN): $(call objs,$(ANALYZER_SRCS)) $(MODEL_LIB) $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ldw -lelf -lstdc++ -lm

ALL_TARGETS += $(ANALYZER_BIN)
INSTALL_BIN += $(ANALYZER_BIN)
CHECK_DEPS  += $(ANALYZER_BIN)

# The experiment synthesizer used by tests/analyzer links the experiment library.
PROG_FLAGS_analyzer_synth := -Iexperiment $(SANFLAGS)
PROG_LIBS_analyzer_synth  := $(EXP_LIB) -ldl
$(TESTDIR)/analyzer/synth: $(EXP_LIB)

# Ground-truth programs beyond tests/module.mk's one-C-file rule: shared and dlopen'd
# libraries, a stripped copy of split, a C++ program.
ANA_T := $(TESTDIR)/analyzer
PROG_LIBS_analyzer_libs := -L$(ANA_T) -lana_shared -Wl,-rpath,$(abspath $(ANA_T)) -ldl
$(ANA_T)/libs: $(ANA_T)/libana_shared.so $(ANA_T)/libana_dl.so
$(ANA_T)/libana_%.so: tests/analyzer/progs/lib/ana_%.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fPIC -shared -o $@ $<
$(ANA_T)/split_stripped: $(ANA_T)/split
	strip -o $@ $<
$(ANA_T)/demangle: tests/analyzer/progs/cxx/demangle.cc
	@mkdir -p $(dir $@)
	g++ -O1 -g -o $@ $<
CHECK_DEPS += $(ANA_T)/libana_shared.so $(ANA_T)/libana_dl.so $(ANA_T)/split_stripped \
              $(ANA_T)/demangle

# MPI + OpenMP ground truth for the trace exports: clang (libomp, OMPT) with MPI flags.
# MPI_CFLAGS/MPI_LDFLAGS come from mpi_wrap/module.mk (read later; recipes expand late).
$(ANA_T)/hybrid: tests/analyzer/progs/hybrid/hybrid.c
	@mkdir -p $(dir $@)
	clang -O1 -g -fopenmp $(MPI_CFLAGS) -o $@ $< $(MPI_LDFLAGS)
CHECK_DEPS += $(ANA_T)/hybrid

include bench/analyzer.mk

# tests/analyzer/test_speedscope.sh loads exports into speedscope's page, test_html.sh and
# bench/html_bench.sh open export html's pages with puppeteer-core (npm packages of
# tests/web/package-lock.json, installed with npm ci into $(TESTDIR)/web). Without npm or
# the registry the stamp is not made and the test skips, saying why (web/npm.log).
WEB_STAMP := $(TESTDIR)/web/installed
$(WEB_STAMP): tests/web/package.json tests/web/package-lock.json
	@mkdir -p $(dir $@)
	@cp tests/web/package.json tests/web/package-lock.json $(dir $@)
	@cd $(dir $@) && if PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund >npm.log 2>&1; \
	    then touch installed; else echo "web: npm ci failed (see $(dir $@)npm.log)"; fi
CHECK_DEPS += $(WEB_STAMP)

# The page of `export html`: its style sheet and script (analyzer/report/) built in as C
# strings by analyzer/report/embed.py.
REPORT_ASSETS := analyzer/report/report.css analyzer/report/report.js
REPORT_GEN    := $(OBJDIR)/analyzer/gen/report_assets.c
$(REPORT_GEN): $(REPORT_ASSETS) analyzer/report/embed.py
	@mkdir -p $(dir $@)
	python3 analyzer/report/embed.py $@ hpa_report_css=analyzer/report/report.css \
	    hpa_report_js=analyzer/report/report.js
$(REPORT_GEN:.c=.o): $(REPORT_GEN)
	$(CC) $(CFLAGS) -c $< -o $@
$(ANALYZER_BIN): $(REPORT_GEN:.c=.o)

include bench/html.mk
