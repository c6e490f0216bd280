# model/ - libhpcmodel.a: the data model hpanalyze and hpmerge share (model/README.md):
# symbol resolution, MPI numbers, OpenMP state rules, and the small containers they use.
MODEL_SRCS := $(wildcard model/*.c)

$(MODEL_LIB): $(call objs,$(MODEL_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(MODEL_LIB)
