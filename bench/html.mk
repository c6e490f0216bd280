# bench/html.mk - the report page's size and time to first draw (make bench-html; part of
# make bench): the demo's page (make demo first) and a synthetic 64-rank, 10 M-event job.
# Included from analyzer/module.mk. Results go to bench/RESULTS.md (section "export html").
.PHONY: bench-html
bench-html: $(ANALYZER_BIN) $(TESTDIR)/merge/mkjob $(WEB_STAMP)
	bench/html_bench.sh $(TESTDIR)/merge/mkjob $(ANALYZER_BIN) $(TESTDIR)/web/node_modules \
	    $(or $(RUNS),3) $(OUT)/build/demo-mpi/heat_mpi.hpc
bench: bench-html
