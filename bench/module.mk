# bench/ - benchmarks (make bench; not part of make check). Results: bench/RESULTS.md.
#
#   make bench-collector   collector overhead (-p on, -p hi) and bytes per sample
#   make bench-omp         OMPT tool overhead: empty regions, barriers, 100 us regions
BENCH_DIR := $(OUT)/build/bench
BENCH_CPU_BOUND := $(BENCH_DIR)/cpu_bound
BENCH_SIGNAL_FLOOR := $(BENCH_DIR)/signal_floor

$(BENCH_CPU_BOUND): bench/cpu_bound.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<

$(BENCH_SIGNAL_FLOOR): bench/signal_floor.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<

.PHONY: bench-collector
bench-collector: all $(BENCH_CPU_BOUND) $(BENCH_SIGNAL_FLOOR) $(TESTDIR)/tools/hpexp-dump
	HPC_TESTDIR=$(TESTDIR) bench/collector_bench.py $(BINDIR) $(BENCH_CPU_BOUND) \
	    $(or $(RUNS),10) $(or $(UNITS),40) $(BENCH_SIGNAL_FLOOR)

bench: bench-collector

.PHONY: bench-omp
bench-omp: all
	bench/omp_bench.sh $(or $(RUNS),7)

bench: bench-omp
