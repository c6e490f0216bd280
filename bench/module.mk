# bench/ - benchmarks, not part of `make check` (speed targets live here, not in tests).
# Each writes its section of bench/RESULTS.md with the exact command.
.PHONY: bench-omp
bench-omp: all
	bench/omp_bench.sh

bench: bench-omp
