# analyzer/ - hpanalyze: er_print-style reports over experiments.
ANALYZER_SRCS := $(wildcard analyzer/*.c)
ANALYZER_BIN  := $(BINDIR)/hpanalyze

$(ANALYZER_BIN): $(call objs,$(ANALYZER_SRCS)) $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ldw -lelf -lstdc++ -lm

ALL_TARGETS += $(ANALYZER_BIN)
INSTALL_BIN += $(ANALYZER_BIN)
