# bench/merge.mk - hpmerge speed and memory (make bench-merge; part of make bench).
# Results, with the command that produced them, go to bench/RESULTS.md by hand.
.PHONY: bench-merge
bench-merge: $(HPMERGE) $(TESTDIR)/merge/mkjob
	bench/merge_bench.sh $(TESTDIR)/merge/mkjob $(HPMERGE) $(or $(RUNS),3)
bench: bench-merge
# hpmerge's time and memory per merge rank at 256, 1024, 4096 ranks and K = 1, 2, 4
# (issue 25; not part of make bench: about 10 minutes on 2 cores)
.PHONY: bench-merge-scale
bench-merge-scale: $(HPMERGE) $(TESTDIR)/merge/mkjob
	bench/merge_scale.sh $(TESTDIR)/merge/mkjob $(HPMERGE) "$(or $(SIZES),256 1024 4096)" "$(or $(KS),1 2 4)" $(or $(RUNS),1)
