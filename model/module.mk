# model/ - libhpcmodel.a: the data model hpanalyze and hpmerge share (model/README.md):
# symbol resolution, MPI numbers, OpenMP state rules, and the small containers they use.
MODEL_SRCS := $(wildcard model/*.c)

$(MODEL_LIB): $(call objs,$(MODEL_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(MODEL_LIB)

# tests/unit/test_omp_model.c tests the OpenMP state rules alone.
$(OBJDIR)/tests/unit/test_omp_model.o: CFLAGS += -Imodel
UNIT_LIBS_test_omp_model := $(MODEL_LIB) $(EXP_LIB) -ldw -lelf -lstdc++
$(TESTDIR)/unit/test_omp_model: $(MODEL_LIB)
# tests/unit/test_model_containers.c tests the hash map, string table and byte buffer.
$(OBJDIR)/tests/unit/test_model_containers.o: CFLAGS += -Imodel
UNIT_LIBS_test_model_containers := $(MODEL_LIB) $(EXP_LIB)
$(TESTDIR)/unit/test_model_containers: $(MODEL_LIB)
