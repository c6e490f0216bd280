/*
 * signals.h - the collector's view of signal dispositions (shared by signals.c, which
 * interposes the program's calls, and sigsafe_signals.c, which handles deliveries).
 *
 * Owned signals (SIGPROF for samples, SIGSEGV/SIGBUS for unwind-fault recovery) always
 * have the collector's handler; the program's action is kept in the shadow table,
 * reported back as if installed, and run for deliveries that are not ours. The program's
 * blocking of owned signals is kept in a per-thread shadow mask (hpc_user_blocked) and
 * never reaches the kernel.
 *
 * Watched signals (those whose default action ends the process) get the collector's
 * handler only while the program leaves them at SIG_DFL, so that proc_end is written
 * before the process dies the same way.
 */
#ifndef HPC_COLLECTOR_SIGNALS_H
#define HPC_COLLECTOR_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HPC_SIG_OWNED   1
#define HPC_SIG_WATCHED 2

typedef struct hpc_sig_shadow {
    volatile unsigned seq;       /* seqlock: odd while a writer changes act */
    struct sigaction act;        /* the program's action */
    int kind;                    /* HPC_SIG_OWNED, HPC_SIG_WATCHED or 0 */
    volatile int ours_installed; /* the kernel has our handler (watched: while SIG_DFL) */
} hpc_sig_shadow;

extern hpc_sig_shadow hpc_shadow[NSIG];
extern volatile int hpc_signals_ready;

/* The program's action for sig, read consistently. Signal-safe. */
void hpc_shadow_read(int sig, struct sigaction *out);

/* Our handler for owned and watched signals. */
void hpc_signal_handler(int sig, siginfo_t *si, void *uc);

/* Install our handler for sig with the real sigaction. */
int hpc_install_ours(int sig);

/* The owned signals (SIGPROF, SIGSEGV, SIGBUS, and -l / -y's when given), hpc_nowned of
 * them: the program's handlers for those are kept but not run for our deliveries. */
extern int hpc_owned_signals[5];
extern size_t hpc_nowned;

/* A fork child: keep the owned signals blocked for real when the forking thread had the
 * clock's signal blocked (signals.c says why). NOT signal-safe. */
void hpc_signals_fork_hold(uint64_t blocked_at_fork);

/* Default action of sig ends the process (terminate or core). */
bool hpc_sig_default_kills(int sig);

/* Write proc_end, reset sig to SIG_DFL and (unless it is a fault, which recurs by
 * itself) re-raise it in this thread. Signal-safe. */
void hpc_die_by_signal(int sig, bool fault);

static inline uint64_t hpc_sigbit(int sig)
{
    return sig > 0 && sig < 64 ? 1ULL << sig : 0;
}

#endif
