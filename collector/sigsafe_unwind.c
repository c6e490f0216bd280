/*
 * sigsafe_unwind.c - call stacks with libunwind, from the signal's ucontext (samples)
 * or from the caller (hpcollect_capture_context).
 *
 * Recorded pcs: the exact pc for the interrupted (leaf) frame and for a frame
 * interrupted by a nested signal; the return address minus one for caller frames, so
 * the pc lies inside the call instruction's line.
 *
 * A fault while unwinding (damaged stack, unmapped unwind data) raises SIGSEGV/SIGBUS
 * while t->in_unwind is set; the signal dispatcher then siglongjmps back here and the
 * frames found so far are kept (HPC_STAT_UNWIND_FAULTS). Inside dlopen/dlclose the
 * loader's data are changing under libunwind's dl_iterate_phdr, and while a fork is
 * prepared (or in a child whose loader lock is stuck, sigsafe_dl_guard.c) it must not be
 * called: then only the leaf is kept. An unwind that meets another dl_iterate_phdr
 * caller gives way (sigsafe_dl_guard.c): libunwind's lookup finds nothing, the step that asked
 * is not trusted, and the frames found before it are kept (HPC_STAT_UNWIND_SKIPPED).
 *
 * libunwind validates addresses it is unsure of (frame-pointer guesses) by writing a byte
 * of them to a pipe of its own and reading it back. A program that closes descriptors it
 * does not know and reuses the numbers (chromium before it execs a helper, daemons)
 * then has libunwind read from, and write our memory into, its socket: a zygote child
 * hung there for ever. So the collector's unwinds read memory through an accessor of
 * its own (hpc_unwind_access_mem, installed by init.c): a plain load, whose fault the recovery
 * below turns into a shorter stack; the program's own unwinds, if any, keep libunwind's. The pipe
 * it made is closed: nothing of ours uses it, and the program's descriptors stay its own.
 *
 * A fault's siglongjmp leaves libunwind wherever it was. Its global cache lock is held
 * only while it looks up and parses unwind tables of mapped objects (no fault there
 * unless the program unmaps code that is still on a stack); the stack reads that can
 * fault come after it lets go.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ucontext.h>

#include "collector.h"

/* An address in the unmapped first page, hidden from the compiler (and not null, which
 * UBSan would report) for HPCOLLECT_DEBUG_UNWIND_FAULT. */
static volatile uintptr_t fault_addr = 16;

/* libunwind reads words at any address (DWARF's unaligned fields): an aligned type would
 * be undefined behaviour there (UBSan says so), not a fault on x86-64. */
typedef unw_word_t unaligned_word __attribute__((aligned(1), may_alias));

int (*hpc_unwind_lib_access_mem)(unw_addr_space_t, unw_word_t, unw_word_t *, int, void *);

/* Memory reads of our unwinds: no validation (see above; init.c installs it). */
int hpc_unwind_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
                          void *arg)
{
    hpc_thread_priv *t = hpc_self();
    if (write || !t || !t->in_unwind)
        return hpc_unwind_lib_access_mem(as, addr, val, write, arg);
    if (addr < 4096)
        return -UNW_EINVAL;
    *val = *(const volatile unaligned_word *)addr;
    return 0;
}

/* Walk from cursor c; n frames may already be in pcs. Returns the new count. A step
 * during which sigsafe_dl_guard.c made libunwind's lookup give way ends the walk: libunwind
 * then guessed the caller from the frame pointer. slots (may be NULL): for each frame i,
 * the stack address that holds its return address into frame i+1 (the caller's stack
 * pointer after unw_step, minus the return address's 8 bytes). */
static int walk(hpc_thread_priv *t, unw_cursor_t *c, uint64_t *pcs, volatile int *n, int max,
                int exact_first, uintptr_t *slots)
{
    int exact = exact_first;
    for (;;) {
        unw_word_t ip = 0;
        if (unw_get_reg(c, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        if (*n == max) {
            hpc_stat(t, HPC_STAT_UNWIND_TRUNCATED, 1);
            break;
        }
        pcs[(*n)++] = exact ? (uint64_t)ip : (uint64_t)ip - 1;
        exact = unw_is_signal_frame(c) > 0;
        int r = unw_step(c);
        if (t->unwind_gave_way) {
            hpc_stat(t, HPC_STAT_UNWIND_SKIPPED, 1);
            break;
        }
        if (r == 0)
            break;
        if (r < 0) {
            hpc_stat(t, HPC_STAT_UNWIND_ERRORS, 1);
            break;
        }
        unw_word_t sp = 0;
        if (slots) /* x86_64: the caller's stack pointer is the CFA, the return address below */
            slots[*n - 1] = unw_get_reg(c, UNW_REG_SP, &sp) < 0 ? 0 : (uintptr_t)sp - 8;
    }
    return *n;
}

int hpc_unwind_signal(hpc_thread_priv *t, void *ucontext, uint64_t *pcs, int max)
{
    ucontext_t *uc = ucontext;
    volatile int n = 0;
    if (t->in_dl || !hpc_dl_unwind_begin(t)) {
        pcs[0] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
        hpc_stat(t, HPC_STAT_UNWIND_SKIPPED, 1);
        return 1;
    }
    /* the mask needs no saving: returning from the sample handler restores it; the
     * shadow mask does (libunwind may block signals around dl_iterate_phdr) */
    uint64_t user_blocked = hpc_user_blocked;
    t->unwind_gave_way = 0;
    if (sigsetjmp(t->unwind_env, 0)) { /* a fault while unwinding */
        t->in_unwind = 0;
        hpc_user_blocked = user_blocked;
        hpc_stat(t, HPC_STAT_UNWIND_FAULTS, 1);
        if (n == 0)
            pcs[n++] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
        hpc_dl_unwind_end();
        return n;
    }
    t->in_unwind = 1;
    uint64_t every = hpc_P.cfg.debug_unwind_fault;
    if (every && ++t->unwinds % every == 0)
        *(volatile int *)fault_addr = 1; /* tests: a SIGSEGV while unwinding */
    if (hpc_P.cfg.debug_unwind_nocache)
        unw_flush_cache(unw_local_addr_space, 0, 0); /* lock-free: a generation count */
    unw_cursor_t c;
    if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0) {
        t->in_unwind = 0;
        hpc_dl_unwind_end();
        hpc_stat(t, HPC_STAT_UNWIND_ERRORS, 1);
        pcs[0] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
        return 1;
    }
    walk(t, &c, pcs, &n, max, 1, NULL);
    t->in_unwind = 0;
    hpc_dl_unwind_end();
    return n;
}

/* Unwind from normal context with the sample's mask (every signal but faults) blocked
 * for real: libunwind's cache lock must not be re-entered by a sample of this thread.
 * Rule 9 then answers libunwind's own sigprocmask calls, two per frame, without a system
 * call, as in a sample: an OpenMP construct's, a traced call's or a blocking call's stack
 * took 2 + 2 x depth system calls before (40 for a 20-deep stack, issue 24). */
__attribute__((noinline)) int hpc_unwind_here_slots(hpc_thread_priv *t, int skip, uint64_t *pcs,
                                                    uintptr_t *slots, int max)
{
    volatile int n = 0;
    unw_context_t ctx;
    unw_cursor_t c;
    sigset_t all, old, outer_mask;
    if (t->in_dl || !hpc_dl_unwind_begin(t))
        return 0;
    hpc_sample_mask(&all);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, 8);
    sig_atomic_t outer = t->masked;
    outer_mask = t->sample_mask;
    t->sample_mask = all;
    t->masked = 1;
    uint64_t user_blocked = hpc_user_blocked;
    t->unwind_gave_way = 0;
    if (sigsetjmp(t->unwind_env, 0)) { /* a fault while unwinding */
        hpc_stat(t, HPC_STAT_UNWIND_FAULTS, 1);
        goto out;
    }
    t->in_unwind = 1;
    if (unw_getcontext(&ctx) < 0 || unw_init_local(&c, &ctx) < 0)
        goto out;
    /* skip this function and its caller (hpcollect_capture_context*), then `skip` more */
    for (int i = 0; i < skip + 2; i++)
        if (unw_step(&c) <= 0)
            goto out;
    walk(t, &c, pcs, &n, max, 0, slots);
out:
    t->in_unwind = 0;
    t->masked = outer;
    t->sample_mask = outer_mask;
    hpc_user_blocked = user_blocked;
    hpc_dl_unwind_end();
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
    return n;
}
