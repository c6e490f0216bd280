/*
 * losses.c - hpcollect's last word when the experiment could not record everything
 * (experiment/losses.c says what counts): a warning per loss of this launcher's
 * processes (its founder and descendants; each launcher of an MPI job speaks for its
 * own rank), after the program has ended and before hpcollect ends like it.
 */
#include <stdio.h>
#include <string.h>

#include "experiment.h"
#include "losses.h"

static int ours(const char *name, const char *sub)
{
    size_t n = strlen(sub);
    return strncmp(name, sub, n) == 0 && (name[n] == 0 || name[n] == '.');
}

void hpc_losses_report(const char *exp, const char *shown, const char *sub)
{
    hpc_diag quiet = {.quiet = 1};
    hpc_exp *e;
    if (hpc_exp_open(&e, exp, &quiet) != 0)
        return;
    int said = 0;
    for (size_t i = 0; i < e->nprocs; i++) {
        const hpc_proc *p = &e->procs[i];
        hpc_loss l[16];
        size_t n = ours(p->name, sub) ? hpc_proc_losses(p, l, 16) : 0;
        for (size_t k = 0; k < n && k < 16; k++) {
            char text[256];
            if (!said++)
                fprintf(stderr, "hpcollect: warning: %s did not record everything:\n", shown);
            fprintf(stderr, "hpcollect:   %s: %s\n", p->name,
                    hpc_loss_text(&l[k], text, sizeof text));
        }
    }
    if (said)
        fprintf(stderr, "hpcollect:   (`hpanalyze %s statistics` has every count)\n", shown);
    hpc_exp_close(e);
}
