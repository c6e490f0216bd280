# experiment/ - the format library, linked statically into every stage.
EXP_SRCS := $(wildcard experiment/*.c)
EXP_LIB  := $(OBJDIR)/libhpcexp.a

$(EXP_LIB): $(call objs,$(EXP_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(EXP_LIB)

# hpexp-dump: JSON lines of any stream or experiment, for low-level tests.
EXP_DUMP := $(TESTDIR)/tools/hpexp-dump
$(EXP_DUMP): $(OBJDIR)/experiment/tools/hpexp_dump.o $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

CHECK_DEPS += $(EXP_DUMP)
