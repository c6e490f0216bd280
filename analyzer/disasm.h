/*
 * disasm.h - the instructions of an address range of an object file, with their source
 * lines, for `disasm`.
 *
 * Disassembly comes from GNU objdump (binutils), run as a child process:
 *   objdump -d -l -w --no-show-raw-insn --start-address=A --stop-address=B FILE
 * Why objdump and not a library: it is in Debian's binutils (already a build dependency),
 * knows every architecture binutils does, and its text output has been stable for decades.
 * libopcodes, the library under it, has no stable API or ABI (Debian ships it only as
 * libopcodes-<version>; init_disassemble_info changed signature in binutils 2.39), and
 * Capstone would be one more dependency for x86 and Arm only, without line numbers.
 */
#ifndef HPA_DISASM_H
#define HPA_DISASM_H

#include <stddef.h>
#include <stdint.h>

typedef struct hpa_insn {
    uint64_t addr;    /* file address */
    uint32_t line;    /* source line from objdump -l, 0 if none */
    const char *file; /* its source file ("" if none); owned by the hpa_disasm */
    char *text;       /* "mulsd  %xmm2,%xmm0" */
} hpa_insn;

typedef struct hpa_disasm {
    size_t n, cap;
    hpa_insn *v;
    char **files; /* distinct source file names */
    size_t nfiles;
} hpa_disasm;

/*
 * Disassemble [start, end) of the object file `object`. Returns 0, or -1 with a message
 * in err (objdump missing or failing, nothing disassembled); d is then empty.
 */
int hpa_disasm_read(hpa_disasm *d, const char *object, uint64_t start, uint64_t end, char *err,
                    size_t cap);
void hpa_disasm_free(hpa_disasm *d);

/* Index of the instruction that holds addr (start <= addr < next start), or -1. */
long hpa_disasm_find(const hpa_disasm *d, uint64_t addr);

#endif
