/*
 * sigsafe_signals.c - the collector's signal handler: samples for our SIGPROF
 * deliveries, unwind-fault recovery for SIGSEGV/SIGBUS, and everything else handed to
 * the program as if the collector were not there (its handler with its flags and mask,
 * SIG_IGN, or the default action after proc_end is written).
 *
 * Re-entry: SIGPROF is blocked while its handler runs; SIGSEGV/SIGBUS are not, so a
 * fault inside unwinding reaches us at once. errno is preserved.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"
#include "interpose.h"
#include "signals.h"
#include "source.h"

#define KSIGSET_SIZE 8 /* the kernel's sigset_t */

__thread uint64_t hpc_user_blocked __attribute__((tls_model("initial-exec")));
__thread uint64_t hpc_held_pending __attribute__((tls_model("initial-exec")));

/* SIGPROF, SIGSEGV, SIGBUS, and the -l / -y signals when given (control.h): the program's
 * handlers for those are kept but not run, as the reference says of collect's. */
int hpc_owned_signals[5] = {SIGPROF, SIGSEGV, SIGBUS};
size_t hpc_nowned = 3;

uint64_t hpc_signals_owned_mask(void)
{
    uint64_t m = 0;
    for (size_t i = 0; i < hpc_nowned; i++)
        m |= hpc_sigbit(hpc_owned_signals[i]);
    return m;
}

/* The clock signal's handler runs with every signal blocked but the faults unwinding
 * may raise: a sample takes microseconds, the program's handlers wait that long instead
 * of interrupting libunwind, and the kernel sets (and sigreturn restores) that mask
 * without a system call. hpc_sample_mask() is what sigprocmask reports meanwhile.
 * glibc's sigfillset leaves out its cancellation signal (SIGRTMIN's slot, 32), so its bit
 * is set by hand: a thread in a blocking call has asynchronous cancellation on, and a
 * SIGCANCEL inside our handler unwound the thread from there, with libunwind's cache
 * lock held (every later sample of the process then waited for it: test_cancel with
 * samples hung 4 times in 300 runs). Blocked, it arrives as the handler returns. */
#define HPC_SIGCANCEL 32
void hpc_sample_mask(sigset_t *m)
{
    sigfillset(m);
    m->__val[(HPC_SIGCANCEL - 1) / (8 * sizeof m->__val[0])] |=
        1ul << ((HPC_SIGCANCEL - 1) % (8 * sizeof m->__val[0]));
    sigdelset(m, SIGSEGV);
    sigdelset(m, SIGBUS);
    sigdelset(m, SIGILL);
    sigdelset(m, SIGFPE);
    sigdelset(m, SIGTRAP);
}

void hpc_shadow_read(int sig, struct sigaction *out)
{
    hpc_sig_shadow *s = &hpc_shadow[sig];
    for (;;) {
        unsigned a = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        if (a & 1)
            continue;
        memcpy(out, &s->act, sizeof *out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == a)
            return;
    }
}

bool hpc_sig_default_kills(int sig)
{
    switch (sig) {
    case SIGCHLD:
    case SIGCONT:
    case SIGURG:
    case SIGWINCH:
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
        return false;
    default:
        return true;
    }
}

static void sigmask_syscall(int how, const sigset_t *set, sigset_t *old)
{
    syscall(SYS_rt_sigprocmask, how, set, old, KSIGSET_SIZE);
}

/* Is this delivery synchronous (a fault the kernel raised for this instruction)? */
static bool is_fault(int sig, const siginfo_t *si)
{
    return (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP) &&
           si->si_code > 0;
}

void hpc_die_by_signal(int sig, bool fault)
{
    hpc_thread_priv *t = hpc_self();
    /* The thread is writing a record (rule 1): the end's records would find its stream
     * busy and be lost (the MPI call a rank dies in, its last CPU time), so the end waits
     * for the write to finish: hpcollect_write_end comes back here (a few us; a fault
     * cannot wait, its instruction would fault again) */
    if (!fault && t && t->pub.busy && hpc_P.active && !hpc_P.ended) {
        t->pub.death = sig;
        return;
    }
    hpc_process_end_sigsafe(sig);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    hpc_real.sigaction(sig, &dfl, NULL);
    hpc_shadow[sig].ours_installed = 0;
    /* A fault happens again when the instruction reruns after we return; anything else
     * is raised again, pending until our handler returns, so the default action (and a
     * core) happens at the interrupted point. */
    if (!fault)
        syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

HPCOLLECT_API void hpcollect_die_deferred(hpc_thread *t)
{
    int sig = t->death;
    t->death = 0;
    if (sig > 0 && sig < NSIG)
        hpc_die_by_signal(sig, false);
}

/* Run the program's handler with its mask and flags, as the kernel would have. */
static void run_program_handler(int sig, const struct sigaction *a, siginfo_t *si, void *uc)
{
    uint64_t owned = hpc_signals_owned_mask();
    uint64_t saved_blocked = hpc_user_blocked;
    /* the kernel's rule: the mask at delivery, plus sa_mask, plus the signal itself (our
     * own handler's sa_mask is not the program's business) */
    sigset_t m = ((ucontext_t *)uc)->uc_sigmask, old;
    for (int s = 1; s < NSIG; s++)
        if (sigismember(&a->sa_mask, s) == 1)
            sigaddset(&m, s);
    if (!(a->sa_flags & SA_NODEFER))
        sigaddset(&m, sig);
    for (int s = 1; s < 64; s++)
        if ((owned & hpc_sigbit(s)) && sigismember(&m, s)) {
            hpc_user_blocked |= hpc_sigbit(s);
            sigdelset(&m, s);
        }
    if (a->sa_flags & SA_RESETHAND) {
        hpc_sig_shadow *s = &hpc_shadow[sig];
        __atomic_add_fetch(&s->seq, 1, __ATOMIC_ACQ_REL);
        s->act.sa_handler = SIG_DFL;
        s->act.sa_flags &= ~SA_SIGINFO;
        __atomic_add_fetch(&s->seq, 1, __ATOMIC_ACQ_REL);
    }
    sigmask_syscall(SIG_SETMASK, &m, &old);
    int guard = hpc_guard_depth; /* the program's handler is the program's (interpose.h) */
    hpc_guard_depth = 0;
    if (a->sa_flags & SA_SIGINFO)
        a->sa_sigaction(sig, si, uc);
    else
        a->sa_handler(sig);
    hpc_guard_depth = guard;
    sigmask_syscall(SIG_SETMASK, &old, NULL);
    hpc_user_blocked = saved_blocked;
}

void hpc_signal_forward(int sig, siginfo_t *si, void *uc)
{
    hpc_sig_shadow *sh = &hpc_shadow[sig];
    struct sigaction a;
    hpc_shadow_read(sig, &a);
    if (sh->kind == HPC_SIG_OWNED) {
        hpc_thread_priv *t = hpc_self();
        if (t)
            hpc_stat(t, HPC_STAT_FOREIGN_SIGNALS, 1);
        /* the program has it blocked: hold it until it unblocks (see sigprocmask) */
        if ((hpc_user_blocked & hpc_sigbit(sig)) && !is_fault(sig, si)) {
            hpc_held_pending |= hpc_sigbit(sig);
            return;
        }
    }
    if (a.sa_handler == SIG_IGN)
        return;
    if (a.sa_handler == SIG_DFL) {
        if (hpc_sig_default_kills(sig))
            hpc_die_by_signal(sig, is_fault(sig, si));
        return;
    }
    run_program_handler(sig, &a, si, uc);
}

void hpc_signal_handler(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    hpc_thread_priv *t = hpc_self();
    if (sig == HPC_CLOCK_SIGNAL && hpc_states_is_fault(t, si)) { /* states.h */
        if (hpc_P.active) {
            hpc_nocancel cancel = hpc_nocancel_begin();
            hpc_states_fault(t, uc);
            hpc_nocancel_end(cancel);
        }
        errno = saved;
        return;
    }
    int counter = sig == HPC_CLOCK_SIGNAL && t ? hpc_counter_of_signal(t, si) : -1;
    if (counter >= 0) {
        if (hpc_P.active) {
            hpc_nocancel cancel = hpc_nocancel_begin();
            hpc_sample_counter(t, counter, uc);
            hpc_nocancel_end(cancel);
        }
        errno = saved;
        return;
    }
    if (hpc_points_is_timer(sig, si)) { /* periodic.c */
        hpc_points_catch_up(hpc_now_ns());
        errno = saved;
        return;
    }
    if (hpc_control_signal(sig)) { /* -l, -y: control.h */
        errno = saved;
        return;
    }
    if (sig == HPC_CLOCK_SIGNAL && hpc_clock_is_ours(t, si)) {
        if (t && hpc_P.active) {
            hpc_nocancel cancel = hpc_nocancel_begin();
            hpc_sample_clock(t, uc);
            hpc_nocancel_end(cancel);
        }
        errno = saved;
        return;
    }
    if ((sig == SIGSEGV || sig == SIGBUS) && t && t->in_unwind)
        siglongjmp(t->unwind_env, 1);
    hpc_signal_forward(sig, si, uc);
    errno = saved;
}
