# collector/ - lib/libhpcollect.so, the sampling engine preloaded into the program
# (collector/*.c). The launcher bin/hpcollect is launcher/ (launcher/module.mk).
#
# Other stages that live inside the preloaded library (ompt/) add their objects with
#     $(LIBHPCOLLECT): $(call preload_objs,ompt/foo.c ...)
# and libraries with LIBHPCOLLECT_LDLIBS += ... ; objects are compiled with
# PRELOAD_CFLAGS (see below) into $(OBJDIR)/preload/.

LIBHPCOLLECT  := $(LIBDIR)/libhpcollect.so

COLLECTOR_SRCS := $(wildcard collector/*.c)

# The preloaded library runs inside other people's programs. Under SANITIZE=1 it gets
# UBSan only: ASan would have to come first in the LD_PRELOAD of every profiled program,
# replacing its malloc and reserving terabytes of shadow memory, and ASan's own SIGSEGV
# handling and stack bookkeeping collide with the collector's signal interposition and
# its siglongjmp out of unwinding faults: the program would no longer behave as it does
# without us. UBSan's runtime needs no such place, so it is a plain dependency. The
# experiment writer is compiled again with these flags for the same reason
# ($(EXP_WRITER_LIB), experiment/module.mk).
PRELOAD_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS)) \
                  $(if $(filter 1,$(SANITIZE)),-fsanitize=undefined -fno-sanitize-recover=undefined)
PRELOAD_LDFLAGS := $(if $(filter 1,$(SANITIZE)),-fsanitize=undefined)
preload_objs = $(patsubst %.c,$(OBJDIR)/preload/%.o,$(1))

$(OBJDIR)/preload/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -MMD -MP -c $< -o $@

# libgcc_s comes before libunwind among our dependencies, and so in the process's global
# scope: libunwind.so also defines the _Unwind_* API, and found first it would take
# libgcc_s's own internal calls (its personality routine's _Unwind_SetIP ...) when glibc
# unwinds a thread for pthread_exit or cancellation in a C program, which does not load
# libgcc_s itself: glibc's cleanups (the loader lock in dl_iterate_phdr, stdio locks)
# then never ran (tests/collector/test_cancel.sh, test_dl_contend.sh). Linked
# --no-as-needed, as nothing of ours calls it. (A static, hidden libunwind would be cleaner;
# Debian's libunwind.a is not built -fPIC.)
LIBHPCOLLECT_LDLIBS = -Wl,--no-as-needed -lgcc_s -Wl,--as-needed \
                      -lunwind -lunwind-x86_64 -ldl -lpthread -lrt

$(LIBHPCOLLECT): $(call preload_objs,$(COLLECTOR_SRCS)) $(EXP_WRITER_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared $(PRELOAD_LDFLAGS) -Wl,-z,defs -Wl,--as-needed -o $@ $(filter %.o,$^) \
	    $(EXP_WRITER_LIB) $(LIBHPCOLLECT_LDLIBS)

ALL_TARGETS += $(LIBHPCOLLECT)
INSTALL_LIB += $(LIBHPCOLLECT)
# tests/collector/ ground-truth programs with special needs:
#
# dlopen_prog loads plugin/hpcplug.c as $(TESTDIR)/collector/plug/libhpcplug.so by name,
# through its RUNPATH ($ORIGIN/plug).
COLLECTOR_PLUGIN := $(TESTDIR)/collector/plug/libhpcplug.so
$(COLLECTOR_PLUGIN): tests/collector/plugin/hpcplug.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -shared -fPIC -o $@ $<
PROG_FLAGS_collector_dlopen_prog := -Wl,-rpath,'$$ORIGIN/plug'
PROG_LIBS_collector_dlopen_prog := -ldl
$(TESTDIR)/collector/dlopen_prog: $(COLLECTOR_PLUGIN)
CHECK_DEPS += $(COLLECTOR_PLUGIN)
PROG_FLAGS_collector_static_prog := -static
# die_in_write holds its stream busy through collector_api.h (the collector's symbols
# weak there, from the preloaded library at run time).
PROG_FLAGS_collector_die_in_write := -Icollector -Iexperiment
# tests/unit/test_interpose.c: the traced-call wrapper template of interpose.h, alone.
$(OBJDIR)/tests/unit/test_interpose.o: CFLAGS += -Icollector

# tests/unit/test_states_window.c tests the settling of thread-state intervals alone
# (pure arithmetic, no process of ours around it).
STATES_WINDOW_OBJ := $(call preload_objs,collector/sigsafe_states_window.c)
$(OBJDIR)/tests/unit/test_states_window.o: CFLAGS += -Icollector
UNIT_LIBS_test_states_window := $(STATES_WINDOW_OBJ) $(EXP_LIB)
$(TESTDIR)/unit/test_states_window: $(STATES_WINDOW_OBJ)

# tests/states/test_text_faults.sh: libbigtext.so, 512 functions one per page of code,
# which text_faults copies, drops from the page cache and runs from the copy.
STATES_BIGTEXT := $(TESTDIR)/states/libbigtext.so
$(STATES_BIGTEXT): tests/states/textlib/bigtext.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -shared -fPIC -o $@ $<
PROG_LIBS_states_text_faults := -ldl
CHECK_DEPS += $(STATES_BIGTEXT)
