/*
 * losses.h - hpcollect's warning of what the experiment could not record (losses.c).
 */
#ifndef HPC_LAUNCHER_LOSSES_H
#define HPC_LAUNCHER_LOSSES_H

/* Warn on stderr of every loss of the processes of experiment exp (shown as `shown`)
 * that this launcher ran: sub-experiment sub and its descendants. Nothing if none. */
void hpc_losses_report(const char *exp, const char *shown, const char *sub);

#endif
