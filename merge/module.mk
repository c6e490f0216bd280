# merge/ - hpmerge: a job experiment into one OTF2 archive and a summary.
MERGE_SRCS := $(wildcard merge/*.c)
MERGE_OBJS := $(call objs,$(MERGE_SRCS))
HPMERGE    := $(BINDIR)/hpmerge

MERGE_MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MERGE_MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
MERGE_OTF2_LIBS  := $(shell pkg-config --libs otf2 2>/dev/null || echo -lopen-trace-format2)

# parallel.c is the only file that sees MPI (OTF2_MPI_Collectives.h)
$(OBJDIR)/merge/parallel.o: CFLAGS += $(MERGE_MPI_CFLAGS)

$(HPMERGE): $(MERGE_OBJS) $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(MERGE_OBJS) $(EXP_LIB) $(MERGE_OTF2_LIBS) $(MERGE_MPI_LIBS) -lm

ALL_TARGETS += $(HPMERGE)
INSTALL_BIN += $(HPMERGE)
