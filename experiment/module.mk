# experiment/ - the format library, linked statically into every stage.
EXP_SRCS := $(wildcard experiment/*.c)
EXP_LIB  := $(OBJDIR)/libhpcexp.a

$(EXP_LIB): $(call objs,$(EXP_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(EXP_LIB)
