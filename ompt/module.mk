# ompt/ - the OpenMP tool (OMPT). Its objects are linked into lib/libhpcollect.so by
# collector/module.mk ($(OMPT_OBJS)); it needs libunwind (context.c), as the collector does.
OMPT_SRCS := $(sort $(wildcard ompt/*.c))
OMPT_OBJS := $(call objs,$(OMPT_SRCS))
# omp-tools.h comes with libomp-dev (LLVM's resource directory); -idirafter so that the
# compiler's own headers keep priority over the rest of that directory.
OMPT_INC  := $(patsubst %/omp-tools.h,%,$(firstword $(wildcard /usr/include/omp-tools.h \
               /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h)))
$(OMPT_OBJS): CFLAGS += -idirafter $(OMPT_INC)
