# bench/ - benchmarks (make bench; not part of make check). Results: bench/RESULTS.md.
#
#   make bench-collector   collector overhead (-p on, -p hi) and bytes per sample
#   make bench-omp         OMPT tool overhead: empty regions, barriers, 100 us regions
#   make bench-anchors     hpcollect -p hi next to gprofng collect -p hi and perf record at 1 ms
#   make bench-threads     thread start cost against plain (1000 threads created and joined)
#   make bench-throttle    the sampling throttle: a 400-deep stack at -p 50u against -p hi and plain
#   make bench-sync        the sync tracer per uncontended lock/unlock pair and per recorded wait
#   make bench-io          a traced I/O call (-i) against plain: 4 KiB pwrite/pread in the page cache
#   make bench-proxy       LULESH 2.0 (OpenMP proxy app, fetched and built, never committed) plain,
#                          -p off|on|hi, perf record (not in `make bench`: needs the source)
#   make bench-forkjoin    fork/join of an empty parallel region next to a timestamp-only OMPT tool
#   make bench-switch      the kernel's cost per context switch of the collector's per-thread events
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

.PHONY: bench-anchors
bench-anchors: all $(BENCH_CPU_BOUND)
	bench/anchor_bench.py $(BINDIR) $(BENCH_CPU_BOUND) $(or $(RUNS),10) $(or $(UNITS),150)

.PHONY: bench-omp
bench-omp: all
	bench/omp_bench.sh $(or $(RUNS),7)

bench: bench-omp

# make bench-counters   counter sampling overhead at the default intervals (issue 5)
BENCH_COUNTER_WORK := $(BENCH_DIR)/counter_work

$(BENCH_COUNTER_WORK): bench/counter_work.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<

.PHONY: bench-counters
bench-counters: all $(BENCH_COUNTER_WORK) $(TESTDIR)/tools/hpexp-dump
	HPC_TESTDIR=$(TESTDIR) bench/counter_bench.py $(BINDIR) $(BENCH_COUNTER_WORK) \
	    $(or $(RUNS),15) $(or $(UNITS),50)

bench: bench-counters

# make bench-threads   thread start cost: 1000 threads created and joined (issue 23)
BENCH_THREAD_CHURN := $(BENCH_DIR)/thread_churn

$(BENCH_THREAD_CHURN): bench/thread_churn.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -pthread -o $@ $<

.PHONY: bench-threads
bench-threads: all $(BENCH_THREAD_CHURN)
	bench/thread_bench.py $(BINDIR) $(BENCH_THREAD_CHURN) $(or $(RUNS),15) $(or $(THREADS),1000)

bench: bench-threads

# make bench-throttle  the sampling throttle: a deep stack at -p 50u against -p hi (issue 23)
BENCH_DEEP_WORK := $(BENCH_DIR)/deep_work

$(BENCH_DEEP_WORK): bench/deep_work.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -o $@ $<

.PHONY: bench-throttle
bench-throttle: all $(BENCH_DEEP_WORK)
	bench/throttle_bench.py $(BINDIR) $(BENCH_DEEP_WORK) $(or $(RUNS),5) $(or $(DIVES),500)

bench: bench-throttle

# make bench-sync   the sync tracer's cost per uncontended lock/unlock pair and per
# recorded wait, next to gprofng collect -s (issue 14)
BENCH_SYNC_PAIRS := $(BENCH_DIR)/sync_pairs

$(BENCH_SYNC_PAIRS): bench/sync_pairs.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -pthread -o $@ $<

.PHONY: bench-sync
bench-sync: all $(BENCH_SYNC_PAIRS)
	bench/sync_bench.py $(BINDIR) $(BENCH_SYNC_PAIRS) $(or $(RUNS),7) $(or $(PAIRS),2000000)

bench: bench-sync
# make bench-heap   heap tracing (-H) overhead next to heaptrack (issue 15)
BENCH_HEAP_WORK := $(BENCH_DIR)/heap_work

$(BENCH_HEAP_WORK): bench/heap_work.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -pthread -o $@ $<

.PHONY: bench-heap
bench-heap: all $(BENCH_HEAP_WORK)
	bench/heap_bench.py $(BINDIR) $(BENCH_HEAP_WORK) $(or $(RUNS),5) $(or $(N),10000000)

bench: bench-heap

# make bench-io   cost of a traced I/O call: 4 KiB pwrite/pread in the page cache (issue 16)
BENCH_IO_CALLS := $(BENCH_DIR)/io_calls

$(BENCH_IO_CALLS): bench/io_calls.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<

.PHONY: bench-io
bench-io: all $(BENCH_IO_CALLS)
	bench/io_bench.py $(BINDIR) $(BENCH_IO_CALLS) $(or $(RUNS),11) $(or $(N),200000)

bench: bench-io

# make bench-states   thread states: a blocking-heavy and a CPU-bound program, states off,
#                     on and in the fallback (bench/states_bench.py)
BENCH_STATES_BLOCKING := $(BENCH_DIR)/states_blocking

$(BENCH_STATES_BLOCKING): bench/states_blocking.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -pthread -o $@ $<

.PHONY: bench-states
bench-states: all $(BENCH_STATES_BLOCKING) $(BENCH_CPU_BOUND)
	bench/states_bench.py $(BINDIR) $(BENCH_STATES_BLOCKING) $(BENCH_CPU_BOUND) $(or $(RUNS),9)

bench: bench-states

# make bench-proxy    overhead on a real OpenMP proxy application: LULESH 2.0, fetched and
#                     built by bench/proxy_build.sh (never committed), plain, -p off|on|hi and
#                     perf record -F 100|1000 -g, alternating (issue 24)
BENCH_LULESH := $(BENCH_DIR)/lulesh/lulesh2.0
# $(or) splits its arguments at commas: the default list is a variable of its own
BENCH_PROXY_CONFIGS := plain,off,on,hi,perf100,perf1000

# the timestamp-only OMPT tool: the yardstick of fork/join cost (bench/ompt_stamp.c)
BENCH_OMPT_STAMP := $(BENCH_DIR)/libompt_stamp.so

$(BENCH_OMPT_STAMP): bench/ompt_stamp.c
	@mkdir -p $(dir $@)
	clang -O2 -shared -fPIC -o $@ $<

.PHONY: bench-proxy
bench-proxy: all $(BENCH_OMPT_STAMP)
	bench/proxy_build.sh $(abspath $(BENCH_DIR))/lulesh
	bench/proxy_bench.py $(BINDIR) $(BENCH_LULESH) $(or $(RUNS),7) $(or $(SIZE),30) \
	    $(or $(ITERS),50) $(or $(CONFIGS),$(BENCH_PROXY_CONFIGS))


# make bench-forkjoin  an empty parallel region of 2 threads (EPCC's PARALLEL case) plain,
#                      with a timestamp-only OMPT tool, hpcollect -p off and -p on (issue 24)
BENCH_OMP_OVERHEAD := $(BENCH_DIR)/omp_overhead

$(BENCH_OMP_OVERHEAD): bench/omp_overhead.c
	@mkdir -p $(dir $@)
	clang -O2 -fopenmp -o $@ $<

.PHONY: bench-forkjoin
bench-forkjoin: all $(BENCH_OMP_OVERHEAD) $(BENCH_OMPT_STAMP)
	bench/forkjoin_bench.py $(BINDIR) $(BENCH_OMP_OVERHEAD) $(BENCH_OMPT_STAMP) \
	    $(or $(RUNS),21) $(or $(N),20000)

# make bench-switch   the kernel's cost per context switch of each per-thread perf event
#                     the collector opens, next to hpcollect and perf record (issue 24)
BENCH_SWITCH_FLOOR := $(BENCH_DIR)/switch_floor

$(BENCH_SWITCH_FLOOR): bench/switch_floor.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -pthread -o $@ $<

.PHONY: bench-switch
bench-switch: all $(BENCH_SWITCH_FLOOR)
	bench/switch_bench.py $(BINDIR) $(BENCH_SWITCH_FLOOR) $(or $(RUNS),5) $(or $(N),100000)

