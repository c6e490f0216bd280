# bench/merge.mk - hpmerge speed and memory (make bench-merge; part of make bench).
# Results, with the command that produced them, go to bench/RESULTS.md by hand.
.PHONY: bench-merge
bench-merge: $(HPMERGE) $(TESTDIR)/merge/mkjob
	bench/merge_bench.sh $(TESTDIR)/merge/mkjob $(HPMERGE) $(or $(RUNS),3)
bench: bench-merge
