# archive/ - bin/hpcollect-archive: an experiment's load objects and sources copied into
# it (model/archive.c does the work; hpcollect runs this at the end of a run, -a).
ARCHIVE_SRCS := $(wildcard archive/*.c)
ARCHIVE_BIN  := $(BINDIR)/hpcollect-archive

$(OBJDIR)/archive/%.o: CFLAGS += -Imodel

$(ARCHIVE_BIN): $(call objs,$(ARCHIVE_SRCS)) $(MODEL_LIB) $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ldw -lelf -lstdc++ -lm

ALL_TARGETS += $(ARCHIVE_BIN)
INSTALL_BIN += $(ARCHIVE_BIN)
CHECK_DEPS  += $(ARCHIVE_BIN)
