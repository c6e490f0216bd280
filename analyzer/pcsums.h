/*
 * pcsums.h - metric sums per program counter, for `pcs` and `disasm`.
 *
 * One pass of hpa_profile_paths() in the selected view: every frame with a recorded pc
 * adds to the row (function, file address) of that pc, exclusive for the leaf frame and
 * inclusive once per path. File addresses (pc - load bias, as in the object file) make
 * rows of different processes of one program the same row. Caller frames hold the return
 * address minus one (inside the call instruction, so a disassembly puts their time on the
 * call); `caller` says a row came from such frames, and er_print names those by the return
 * address, so names add one.
 *
 * Sizes: one row per distinct (function, pc) on sampled paths: thousands.
 */
#ifndef HPA_PCSUMS_H
#define HPA_PCSUMS_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "strtab.h"

struct hpa_view;

typedef struct hpa_pcrow {
    uint32_t func;
    bool caller;   /* seen as a caller frame (a return address minus one) */
    bool has_addr; /* false: a pc outside every module; addr is then the raw pc */
    uint64_t addr;
} hpa_pcrow;

typedef struct hpa_pcsums {
    unsigned nm;
    uint32_t n;
    hpa_pcrow *rows;
    uint64_t *excl, *incl; /* n * nm */
    uint64_t *total;       /* nm: the sum of every path */
    /* private */
    uint32_t cap;
    hpa_strtab keys;
    uint32_t *stamp, pass;
} hpa_pcsums;

/* Build from a loaded profile through view (NULL = machine). only_func restricts rows to
 * one function (UINT32_MAX = all). Returns 0 or HPC_E_NOMEM (s is then freed). */
int hpa_pcsums_build(hpa_pcsums *s, const hpa_profile *p, const struct hpa_view *view,
                     uint32_t only_func);
void hpa_pcsums_free(hpa_pcsums *s);

/* "kernel_x + 0x0000001E" (the return address for caller rows), er_print's PC names. */
void hpa_pcrow_name(const hpa_pcsums *s, const hpa_symtab *st, uint32_t row, char *buf, size_t cap);

#endif
