# bench/analyzer.mk - the hpanalyze speed benchmark (make bench-analyzer; part of make
# bench): `functions` over a generated experiment of 10 million samples. Included from
# analyzer/module.mk. Results go to bench/RESULTS.md (section "hpanalyze").

ANALYZER_GEN := $(OUT)/build/bench/analyzer_gen

$(ANALYZER_GEN): bench/analyzer_gen.c $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Iexperiment -o $@ $< $(EXP_LIB)

.PHONY: bench-analyzer
bench-analyzer: $(ANALYZER_BIN) $(ANALYZER_GEN)
	bench/analyzer_bench.sh $(ANALYZER_BIN) $(ANALYZER_GEN) $(or $(SAMPLES),10000000) $(or $(RUNS),5)
bench: bench-analyzer
# hpanalyze on many-rank jobs: `mpi ranks`, `header`, `functions` at 256, 1024, 4096 ranks
# x 2 threads (issue 25; not part of make bench: a few minutes on 2 cores). BEFORE=PATH
# runs an older hpanalyze alternately with this one.
.PHONY: bench-analyze-scale
bench-analyze-scale: $(ANALYZER_BIN) $(TESTDIR)/merge/mkjob
	bench/analyze_scale.sh $(TESTDIR)/merge/mkjob $(ANALYZER_BIN) "$(or $(SIZES),256 1024 4096)" $(or $(RUNS),1) $(BEFORE)
