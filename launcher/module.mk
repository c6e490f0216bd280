# launcher/ - bin/hpcollect: options, the experiment's directory and job files, the
# environment of the program (HPCOLLECT_* settings, LD_PRELOAD), fork/exec and waiting
# (launcher/README.md). It links the experiment library (layout, writer) and libpfm4; it
# shares with the preloaded library only the collector's contract headers (counters.h).
LAUNCHER_SRCS := $(wildcard launcher/*.c)
HPCOLLECT_BIN := $(BINDIR)/hpcollect
$(OBJDIR)/launcher/%.o: CFLAGS += -Icollector

# collector/settings.c: the settings contract (settings.def), written here, read there.
$(HPCOLLECT_BIN): $(call objs,$(LAUNCHER_SRCS)) $(OBJDIR)/collector/settings.o $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm -lpfm

ALL_TARGETS += $(HPCOLLECT_BIN)
INSTALL_BIN += $(HPCOLLECT_BIN)
