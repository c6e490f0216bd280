# experiment/ - the format library, linked statically into every stage.
EXP_SRCS := $(wildcard experiment/*.c)

$(EXP_LIB): $(call objs,$(EXP_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(EXP_LIB)

# The writer alone, for the preloaded libraries (collector/, mpi_wrap/): the streams,
# paths and schema a running program needs, and which rank it is (job_env.c), compiled
# with PRELOAD_CFLAGS (collector/module.mk). The reader (reader*.c, exp_open.c, print.c, diag.c) and the
# launcher's layout.c stay out of the programs we profile.
EXP_WRITER_SRCS := experiment/sigsafe_path.c experiment/sigsafe_stream.c \
                   experiment/sigsafe_write.c experiment/sigsafe_schema.c experiment/errors.c \
                   experiment/varints.c experiment/job_env.c
$(EXP_WRITER_LIB): $(call preload_objs,$(EXP_WRITER_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# hpexp-dump: JSON lines of any stream or experiment, for low-level tests.
EXP_DUMP := $(TESTDIR)/tools/hpexp-dump
$(EXP_DUMP): $(OBJDIR)/experiment/tools/hpexp_dump.o $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

CHECK_DEPS += $(EXP_DUMP)

# bench_codec: write/decode speed and bytes per sample (make bench; bench/RESULTS.md).
EXP_BENCH := $(TESTDIR)/tools/bench_codec
$(EXP_BENCH): $(OBJDIR)/experiment/tools/bench_codec.o $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

.PHONY: bench-experiment
bench-experiment: $(EXP_BENCH)
	$(EXP_BENCH)
bench: bench-experiment

# make fuzz: libFuzzer over the reader, seeded with streams the writer makes; a bounded
# run (FUZZ_TIME seconds of fuzzing, about a minute with the build) that fails on any
# finding. Crash inputs land in build/fuzz/.
FUZZ_DIR    := build/fuzz
FUZZ_TIME   ?= 45
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -Iexperiment -fno-omit-frame-pointer \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
EXP_LIB_SRCS := $(wildcard experiment/*.c)

$(FUZZ_DIR)/fuzz_reader: experiment/fuzz/fuzz_reader.c $(EXP_LIB_SRCS) $(wildcard experiment/*.h) experiment/schema.def
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ experiment/fuzz/fuzz_reader.c $(EXP_LIB_SRCS)

$(FUZZ_DIR)/fuzz_seeds: experiment/fuzz/fuzz_seeds.c $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(EXP_LIB)

fuzz: $(FUZZ_DIR)/fuzz_reader $(FUZZ_DIR)/fuzz_seeds
	@mkdir -p $(FUZZ_DIR)/seeds $(FUZZ_DIR)/corpus
	$(FUZZ_DIR)/fuzz_seeds $(FUZZ_DIR)/seeds
	cd $(FUZZ_DIR) && ./fuzz_reader -max_total_time=$(FUZZ_TIME) -max_len=70000 -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 corpus seeds

# Ground-truth generator for tests/experiment/: links the library itself.
PROG_FLAGS_experiment_mkexp := -Iexperiment $(SANFLAGS)
PROG_LIBS_experiment_mkexp  := $(EXP_LIB)
$(TESTDIR)/experiment/mkexp: $(EXP_LIB)
