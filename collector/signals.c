/*
 * signals.c - the program's signal calls, interposed so it can neither replace nor
 * block the collector's signals (reference/data-collection-and-signals.txt): sigaction,
 * signal, bsd_signal, sysv_signal, sigset, sighold, sigrelse, sigignore, sigprocmask,
 * pthread_sigmask. signals.h says which signals are owned and which watched.
 *
 * setitimer and timer_create are left alone: the clock sources are per-thread perf
 * events and thread CPU timers, which do not collide with the program's ITIMER_PROF or
 * its own timers. Their SIGPROF deliveries carry another si_code (SI_KERNEL, or SI_TIMER
 * with another cookie) and go to the program's handler (sigsafe_signals.c).
 */
#include <errno.h>
#include <pthread.h>
#include <ucontext.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "interpose.h"
#include "signals.h"
#include "source.h"

#define KSIGSET_SIZE 8

hpc_sig_shadow hpc_shadow[NSIG];
volatile int hpc_signals_ready;
static int shadow_lock;

static void own_control_signal(int sig)
{
    if (sig <= 0 || sig >= 64 || (hpc_signals_owned_mask() & hpc_sigbit(sig)))
        return;
    hpc_owned_signals[hpc_nowned++] = sig;
}
static const int watched_signals[] = {SIGABRT, SIGFPE,  SIGILL,    SIGTERM, SIGINT,  SIGHUP,
                                      SIGQUIT, SIGTRAP, SIGSYS,    SIGXCPU, SIGXFSZ, SIGALRM,
                                      SIGUSR1, SIGUSR2, SIGVTALRM, SIGPIPE, SIGPWR,  SIGSTKFLT};

static bool managed(int sig)
{
    return hpc_signals_ready && sig > 0 && sig < NSIG && hpc_shadow[sig].kind;
}

int hpc_install_ours(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = hpc_signal_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    if (sig == HPC_CLOCK_SIGNAL)
        hpc_sample_mask(&sa.sa_mask);
    else
        sigemptyset(&sa.sa_mask);
    int rc = hpc_real.sigaction(sig, &sa, NULL);
    if (rc == 0)
        hpc_shadow[sig].ours_installed = 1;
    return rc;
}

/* Writers of the shadow table: any thread, possibly from the program's own handler,
 * so all signals are blocked while the lock is held. */
static void shadow_lock_acquire(sigset_t *saved)
{
    sigset_t all;
    sigfillset(&all);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, saved, KSIGSET_SIZE);
    while (__atomic_exchange_n(&shadow_lock, 1, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
}

static void shadow_lock_release(const sigset_t *saved)
{
    __atomic_store_n(&shadow_lock, 0, __ATOMIC_RELEASE);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, saved, NULL, KSIGSET_SIZE);
}

static void shadow_write(int sig, const struct sigaction *act)
{
    hpc_sig_shadow *s = &hpc_shadow[sig];
    __atomic_add_fetch(&s->seq, 1, __ATOMIC_ACQ_REL);
    memcpy(&s->act, act, sizeof *act);
    __atomic_add_fetch(&s->seq, 1, __ATOMIC_ACQ_REL);
}

void hpc_signals_install(void)
{
    own_control_signal(hpc_P.cfg.sample_sig);
    own_control_signal(hpc_P.cfg.pause_sig);
    for (size_t i = 0; i < hpc_nowned; i++) {
        int sig = hpc_owned_signals[i];
        struct sigaction cur;
        hpc_real.sigaction(sig, NULL, &cur);
        shadow_write(sig, &cur);
        hpc_shadow[sig].kind = HPC_SIG_OWNED;
        hpc_install_ours(sig);
    }
    for (size_t i = 0; i < sizeof watched_signals / sizeof watched_signals[0]; i++) {
        int sig = watched_signals[i];
        struct sigaction cur;
        if (hpc_shadow[sig].kind == HPC_SIG_OWNED)
            continue; /* a -l / -y signal */
        hpc_real.sigaction(sig, NULL, &cur);
        shadow_write(sig, &cur);
        hpc_shadow[sig].kind = HPC_SIG_WATCHED;
        if (cur.sa_handler == SIG_DFL)
            hpc_install_ours(sig);
    }
    hpc_signals_ready = 1;
}

static int sigaction_impl(int sig, const struct sigaction *act, struct sigaction *old)
{
    hpc_real_init();
    if (!managed(sig))
        return hpc_real.sigaction(sig, act, old);
    sigset_t saved;
    struct sigaction prev;
    int rc = 0;
    shadow_lock_acquire(&saved);
    hpc_shadow_read(sig, &prev);
    if (act) {
        hpc_sig_shadow *s = &hpc_shadow[sig];
        if (s->kind == HPC_SIG_WATCHED) {
            if (act->sa_handler == SIG_DFL)
                rc = hpc_install_ours(sig);
            else if ((rc = hpc_real.sigaction(sig, act, NULL)) == 0)
                s->ours_installed = 0;
        }
        if (rc == 0)
            shadow_write(sig, act);
    }
    shadow_lock_release(&saved);
    if (rc == 0 && old)
        *old = prev;
    return rc;
}

HPC_INTERPOSE int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return sigaction_impl(sig, act, old);
}

HPC_INTERPOSE int __sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return sigaction_impl(sig, act, old);
}

static sighandler_t signal_with(int sig, sighandler_t h, int flags, int mask_self)
{
    struct sigaction a, old;
    memset(&a, 0, sizeof a);
    a.sa_handler = h;
    a.sa_flags = flags;
    sigemptyset(&a.sa_mask);
    if (mask_self && sig > 0 && sig < NSIG)
        sigaddset(&a.sa_mask, sig);
    if (h == SIG_ERR || sigaction_impl(sig, &a, &old) != 0) {
        errno = EINVAL;
        return SIG_ERR;
    }
    return old.sa_handler;
}

/* glibc's signal() has BSD semantics: restartable, the signal blocked in its handler. */
HPC_INTERPOSE sighandler_t signal(int sig, sighandler_t h)
{
    return signal_with(sig, h, SA_RESTART, 1);
}

HPC_INTERPOSE sighandler_t bsd_signal(int sig, sighandler_t h)
{
    return signal_with(sig, h, SA_RESTART, 1);
}

HPC_INTERPOSE sighandler_t sysv_signal(int sig, sighandler_t h)
{
    return signal_with(sig, h, SA_RESETHAND | SA_NODEFER, 0);
}

HPC_INTERPOSE sighandler_t __sysv_signal(int sig, sighandler_t h)
{
    return signal_with(sig, h, SA_RESETHAND | SA_NODEFER, 0);
}

/*
 * A fork child whose parent had the clock's signal blocked: the fork-then-exec idiom
 * (chromium's LaunchProcess blocks every signal, forks, resets every handler to SIG_DFL
 * with raw system calls, restores its mask and closes descriptors before its exec).
 * Our handler is gone then without our knowing, and a clock sample or a major fault's
 * signal in that window killed the child: SIGPROF's default action (chromium's
 * unsandboxed zygote never started, "GPU process isn't usable", 1 run in 90 under load).
 * So such a child keeps the owned signals blocked for real, as its program asked, until
 * the program unblocks the clock's signal with our handler still in place (a child that
 * goes on without an exec: samples from then on); if the handler is not ours then, they
 * stay blocked until the exec (the new image starts afresh).
 */
static int fork_hold;

static bool clock_handler_ours(void)
{
    struct {
        void *handler;
        unsigned long flags;
        void *restorer;
        uint64_t mask;
    } k;
    return syscall(SYS_rt_sigaction, HPC_CLOCK_SIGNAL, NULL, &k, KSIGSET_SIZE) == 0 &&
           k.handler == (void *)hpc_signal_handler;
}

/* The signals of a mask of bits (hpc_sigbit) as a sigset. */
static void sigset_of(uint64_t bits, sigset_t *set)
{
    sigemptyset(set);
    for (int s = 1; s < 64; s++)
        if (bits & hpc_sigbit(s))
            sigaddset(set, s);
}

/* The owned signals a hold blocks: not the fault signals, which the kernel delivers
 * whatever the mask (a fault with SIGSEGV blocked ends the process: an unwind's fault,
 * which our handler recovers from, would end the child). */
static uint64_t held_bits(void)
{
    return hpc_signals_owned_mask() & ~(hpc_sigbit(SIGSEGV) | hpc_sigbit(SIGBUS));
}

/* Block (how = SIG_BLOCK) or unblock the held signals of bits for real. */
static void hold_mask(int how, uint64_t bits)
{
    sigset_t set;
    sigset_of(bits & held_bits(), &set);
    hpc_real.pthread_sigmask(how, &set, NULL);
}

void hpc_signals_fork_hold(uint64_t blocked_at_fork)
{
    if (!(blocked_at_fork & hpc_sigbit(HPC_CLOCK_SIGNAL)))
        return;
    hold_mask(SIG_BLOCK, UINT64_MAX);
    fork_hold = 1;
}

/* The program's new mask (next) unblocks the clock's signal: let the owned ones go if our
 * handler is still there. */
static void fork_hold_check(uint64_t next)
{
    if (next & hpc_sigbit(HPC_CLOCK_SIGNAL) || !clock_handler_ours())
        return;
    fork_hold = 0;
    hold_mask(SIG_UNBLOCK, UINT64_MAX);
}

/* sigprocmask and pthread_sigmask: owned signals are kept out of the real mask and in
 * the thread's shadow mask instead (while a fork child holds them: in the real mask
 * too). Hot: libunwind calls it twice per frame unwound. */
static int mask_impl(int (*real)(int, const sigset_t *, sigset_t *), int how, const sigset_t *set,
                     sigset_t *old)
{
    if (!hpc_signals_ready)
        return real(how, set, old);
    hpc_thread_priv *t = hpc_self();
    if (t && t->masked) { /* inside a sample: libunwind saving and restoring the mask */
        if (old)
            *old = t->sample_mask;
        return 0;
    }
    uint64_t prev = hpc_user_blocked, next = prev;
    sigset_t copy;
    const sigset_t *use = set;
    if (set && (how == SIG_BLOCK || how == SIG_UNBLOCK || how == SIG_SETMASK)) {
        uint64_t bits = 0;
        for (size_t i = 0; i < hpc_nowned; i++)
            if (sigismember(set, hpc_owned_signals[i]) == 1)
                bits |= hpc_sigbit(hpc_owned_signals[i]);
        if (bits || (fork_hold && how == SIG_SETMASK)) {
            copy = *set;
            for (size_t i = 0; i < hpc_nowned; i++) {
                int sig = hpc_owned_signals[i];
                if (fork_hold && how == SIG_SETMASK && (held_bits() & hpc_sigbit(sig)))
                    sigaddset(&copy, sig);
                else
                    sigdelset(&copy, sig);
            }
            use = &copy;
        }
        next = how == SIG_BLOCK ? prev | bits : how == SIG_UNBLOCK ? prev & ~bits : bits;
    }
    int rc = real(how, use, old);
    if (rc != 0)
        return rc;
    hpc_user_blocked = next;
    if (fork_hold)
        fork_hold_check(next);
    if (old)
        for (size_t i = 0; i < hpc_nowned; i++) {
            if (prev & hpc_sigbit(hpc_owned_signals[i]))
                sigaddset(old, hpc_owned_signals[i]);
            else
                sigdelset(old, hpc_owned_signals[i]);
        }
    if (hpc_held_pending)
        hpc_signals_deliver_held();
    return 0;
}

HPC_INTERPOSE int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    hpc_real_init();
    return mask_impl(hpc_real.sigprocmask, how, set, old);
}

HPC_INTERPOSE int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    hpc_real_init();
    return mask_impl(hpc_real.pthread_sigmask, how, set, old);
}

static int block_one(int how, int sig)
{
    sigset_t s;
    sigemptyset(&s);
    if (sigaddset(&s, sig) != 0)
        return -1;
    return sigprocmask(how, &s, NULL);
}

HPC_INTERPOSE int sighold(int sig)
{
    return block_one(SIG_BLOCK, sig);
}

HPC_INTERPOSE int sigrelse(int sig)
{
    return block_one(SIG_UNBLOCK, sig);
}

HPC_INTERPOSE int sigignore(int sig)
{
    return signal_with(sig, SIG_IGN, 0, 0) == SIG_ERR ? -1 : 0;
}

HPC_INTERPOSE sighandler_t sigset(int sig, sighandler_t disp)
{
    sigset_t s, old;
    struct sigaction oa;
    sigemptyset(&s);
    if (sig <= 0 || sig >= NSIG || sigaddset(&s, sig) != 0) {
        errno = EINVAL;
        return SIG_ERR;
    }
    if (sigaction_impl(sig, NULL, &oa) != 0)
        return SIG_ERR;
    if (disp == SIG_HOLD) {
        if (sigprocmask(SIG_BLOCK, &s, &old) != 0)
            return SIG_ERR;
        return sigismember(&old, sig) ? SIG_HOLD : oa.sa_handler;
    }
    if (signal_with(sig, disp, 0, 0) == SIG_ERR || sigprocmask(SIG_UNBLOCK, &s, &old) != 0)
        return SIG_ERR;
    return sigismember(&old, sig) ? SIG_HOLD : oa.sa_handler;
}

/* Hand sig to the program now, with the siginfo a send from this thread would carry. */
static __attribute__((noinline)) void forward_now(int sig, int code, const union sigval *value)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = sig;
    si.si_code = code;
    si.si_pid = getpid();
    si.si_uid = getuid();
    if (value)
        si.si_value = *value;
    ucontext_t uc;
    getcontext(&uc);
    hpc_signal_forward(sig, &si, &uc);
}

/* Foreign deliveries held while the program had them blocked are delivered when it
 * unblocks them, here and at once (not re-raised: they would merge with our samples). */
void hpc_signals_deliver_held(void)
{
    uint64_t ready = hpc_held_pending & ~hpc_user_blocked;
    for (int s = 1; s < 64 && ready; s++)
        if (ready & hpc_sigbit(s)) {
            __atomic_and_fetch(&hpc_held_pending, ~hpc_sigbit(s), __ATOMIC_RELAXED);
            ready &= ~hpc_sigbit(s);
            forward_now(s, SI_TKILL, NULL);
        }
}

void hpc_signals_thread_init(uint64_t inherited_blocked)
{
    sigset_t cur, owned;
    uint64_t mask = hpc_signals_owned_mask();
    hpc_user_blocked = inherited_blocked;
    hpc_held_pending = 0;
    sigset_of(mask, &owned);
    /* one call: the mask before tells which owned signals the program had blocked */
    hpc_real.pthread_sigmask(SIG_UNBLOCK, &owned, &cur);
    for (int s = 1; s < 64; s++)
        if ((mask & hpc_sigbit(s)) && sigismember(&cur, s))
            hpc_user_blocked |= hpc_sigbit(s);
}

/* A fork child's hold at its exec: the collector's sources are stopped and their pending
 * signals taken (descendants.c: quiesce_clock, the points), so the owned signals the
 * program did not block go back to it now: the new image takes a signal blocked at its
 * start for one the program blocked, and its own fork children for held ones. */
static int held_at_exec;

void hpc_signals_before_exec(void)
{
    sigset_t add;
    sigset_of(hpc_user_blocked, &add);
    hpc_real.pthread_sigmask(SIG_BLOCK, &add, NULL);
    if (!fork_hold)
        return;
    fork_hold = 0;
    held_at_exec = 1;
    hold_mask(SIG_UNBLOCK, ~hpc_user_blocked);
}

void hpc_signals_exec_failed(void)
{
    if (held_at_exec && !clock_handler_ours())
        hpc_signals_fork_hold(hpc_sigbit(HPC_CLOCK_SIGNAL));
    held_at_exec = 0;
}

/* ------------------------------------------------------ SIGPROF sent to itself
 *
 * Standard signals do not queue: a SIGPROF the program sends itself while one of our
 * samples is pending would merge into it and never reach the program's handler. So a
 * SIGPROF the program sends to itself (kill, raise, sigqueue, tgkill, pthread_kill on the
 * calling thread) is delivered at once by the collector, with the siginfo the kernel
 * would have given. SIGPROF from other processes can still merge with a pending sample,
 * as with any collector that profiles with SIGPROF.
 */
static bool send_to_self(int sig, int code, const union sigval *value)
{
    if (sig != SIGPROF || !managed(sig) || !hpc_P.active)
        return false;
    forward_now(sig, code, value);
    return true;
}

HPC_INTERPOSE int kill(pid_t pid, int sig)
{
    if (pid == getpid() && send_to_self(sig, SI_USER, NULL))
        return 0;
    return (int)syscall(SYS_kill, pid, sig);
}

HPC_INTERPOSE int raise(int sig)
{
    if (send_to_self(sig, SI_TKILL, NULL))
        return 0;
    return (int)syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

HPC_INTERPOSE int sigqueue(pid_t pid, int sig, const union sigval value)
{
    if (pid == getpid() && send_to_self(sig, SI_QUEUE, &value))
        return 0;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = sig;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value = value;
    return (int)syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
}

HPC_INTERPOSE int tgkill(pid_t tgid, pid_t tid, int sig)
{
    if (tgid == getpid() && tid == (pid_t)syscall(SYS_gettid) && send_to_self(sig, SI_TKILL, NULL))
        return 0;
    return (int)syscall(SYS_tgkill, tgid, tid, sig);
}

HPC_INTERPOSE int pthread_kill(pthread_t th, int sig)
{
    if (pthread_equal(th, pthread_self()) && send_to_self(sig, SI_TKILL, NULL))
        return 0;
    return hpc_real.pthread_kill(th, sig);
}
