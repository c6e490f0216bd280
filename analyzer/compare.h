/*
 * compare.h - several experiments side by side (--compare on|delta|ratio), as er_print's
 * compare mode shows them: the first experiment is the baseline; every other one is shown
 * as its values (on), its differences from the baseline (delta) or its ratios to it
 * (ratio). `functions` and `lines` compare; rows are matched across experiments by name
 * (functions: module and name; lines: file, line and function), so the same program
 * built twice compares too.
 */
#ifndef HPA_COMPARE_H
#define HPA_COMPARE_H

#include "commands.h"
#include "sort.h"

enum hpa_cmp_what { HPA_CMP_FUNCTIONS, HPA_CMP_LINES };

/* Print the compare form of `functions` or `lines` sorted by k (on the baseline). Returns an
 * exit status. */
int hpa_compare_report(hpa_ctx *ctx, enum hpa_cmp_what what, const hpa_sortkey *k);

#endif
