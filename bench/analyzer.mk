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
