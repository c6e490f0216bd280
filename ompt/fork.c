/*
 * fork.c - the outlined body and source string of every parallel region, from the
 * runtime's fork entry points.
 *
 * OMPT's parallel-begin says where the fork was called from (codeptr_ra) but not what it
 * runs. That is not enough at -O2: a function whose last statement is a parallel region
 * tail-calls the runtime, so codeptr_ra lies in its caller, and every construct reached
 * through one helper gets the same codeptr (EPCC's syncbench: ten constructs, one
 * address); inlining puts the call in another function than the one the pragma is in.
 * The outlined body the compiler passed to the runtime is distinct per construct, and
 * clang's ident_t names the pragma (";file;function;line;column;;" when built with -g).
 *
 * So we interpose the fork entry points of both compilers' code: clang's __kmpc_fork_call
 * and __kmpc_fork_teams (ident in rdi, outlined body in rdx; variadic), gcc's
 * GOMP_parallel* and GOMP_teams_reg (outlined body in rdi). Each is a three-instruction
 * trampoline: it stores the body, the ident and its own return address in a TLS slot and
 * jumps to the runtime's function with every register and the stack as they were (so the
 * variadic arguments, the vector-count in %al and the runtime's view of its return
 * address, which OMPT reports as codeptr_ra, are untouched; no frame of ours is left on
 * the stack). The parallel-begin callback, which the runtime calls from inside that
 * function on the same thread, takes the slot when its codeptr_ra matches the return
 * address stored (cb_parallel.c); a fork that came another way (a serialized region) finds
 * no match and records 0.
 *
 * The runtime's functions are found with dlsym(RTLD_NEXT) at load, or on first use from
 * the trampoline's slow path (all argument registers saved) when the runtime was opened
 * later, also outside the global scope (a plugin opened with RTLD_LOCAL, as Python opens
 * its extensions, binds to our trampoline before its own runtime). One limit: two
 * different OpenMP runtimes loaded in separate local scopes would both be served by the
 * first one found. x86-64 only; elsewhere nothing is interposed and outlined bodies are 0.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omptool.h"

__thread omptool_fork_slot omptool_fork __attribute__((tls_model("initial-exec")));

#if defined(__x86_64__)

/* The entry points, in one table: name and the register holding the outlined body
 * (KMPC: %rdx with the ident in %rdi; GOMP: %rdi). */
#define FORK_ENTRIES(X)                                                                            \
    X(0, __kmpc_fork_call, KMPC)                                                                   \
    X(1, __kmpc_fork_teams, KMPC)                                                                  \
    X(2, GOMP_parallel, GOMP)                                                                      \
    X(3, GOMP_parallel_start, GOMP)                                                                \
    X(4, GOMP_parallel_loop_static, GOMP)                                                          \
    X(5, GOMP_parallel_loop_dynamic, GOMP)                                                         \
    X(6, GOMP_parallel_loop_guided, GOMP)                                                          \
    X(7, GOMP_parallel_loop_runtime, GOMP)                                                         \
    X(8, GOMP_parallel_loop_nonmonotonic_dynamic, GOMP)                                            \
    X(9, GOMP_parallel_loop_nonmonotonic_guided, GOMP)                                             \
    X(10, GOMP_parallel_loop_nonmonotonic_runtime, GOMP)                                           \
    X(11, GOMP_parallel_loop_maybe_nonmonotonic_runtime, GOMP)                                     \
    X(12, GOMP_parallel_loop_static_start, GOMP)                                                   \
    X(13, GOMP_parallel_loop_dynamic_start, GOMP)                                                  \
    X(14, GOMP_parallel_loop_guided_start, GOMP)                                                   \
    X(15, GOMP_parallel_loop_runtime_start, GOMP)                                                  \
    X(16, GOMP_parallel_sections, GOMP)                                                            \
    X(17, GOMP_parallel_sections_start, GOMP)                                                      \
    X(18, GOMP_parallel_reductions, GOMP)                                                          \
    X(19, GOMP_teams_reg, GOMP)

#define COUNT_ONE(i, name, kind) +1
enum { NFORK = 0 FORK_ENTRIES(COUNT_ONE) };

#define NAME_OF(i, name, kind) [i] = #name,
static const char *const fork_names[NFORK] = {FORK_ENTRIES(NAME_OF)};

/* The runtime's functions, by entry index; read by the trampolines. */
__attribute__((visibility("hidden"))) void *omptool_fork_real[NFORK];

/* OpenMP runtimes among the loaded objects, for a runtime outside the global scope. */
typedef struct runtimes {
    unsigned n;
    char path[4][512];
} runtimes;

static int note_runtime(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    runtimes *r = arg;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    bool omp = strncmp(base, "libomp.so", 9) == 0 || strncmp(base, "libgomp.so", 10) == 0 ||
               strncmp(base, "libiomp5.so", 11) == 0;
    if (omp && r->n < 4)
        snprintf(r->path[r->n++], sizeof(r->path[0]), "%s", name);
    return 0;
}

/* The runtime's function `name`: the next definition in the global scope, else one in a
 * runtime loaded outside it (a plugin opened with RTLD_LOCAL binds to our trampoline
 * first: the preloaded library comes before its own scope). */
static void *find_real(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (fn != NULL)
        return fn;
    runtimes r = {0};
    dl_iterate_phdr(note_runtime, &r); /* no dlopen inside: it holds the loader's lock */
    for (unsigned k = 0; k < r.n && fn == NULL; k++) {
        void *h = dlopen(r.path[k], RTLD_LAZY | RTLD_NOLOAD);
        if (h != NULL) {
            fn = dlsym(h, name);
            dlclose(h);
        }
    }
    return fn;
}

/* Slow path of a trampoline (argument registers saved): the runtime's function i. */
__attribute__((visibility("hidden"), used)) void *omptool_fork_resolve(unsigned i)
{
    void *fn = omptool_fork_real[i];
    if (fn == NULL) {
        fn = find_real(fork_names[i]);
        if (fn == NULL) { /* the program called it: some library of its must define it */
            static const char msg[] = "hpcollect: no OpenMP runtime defines the entry point "
                                      "the program called (ompt/fork.c)\n";
            (void)!write(2, msg, sizeof(msg) - 1);
            abort();
        }
        __atomic_store_n(&omptool_fork_real[i], fn, __ATOMIC_RELEASE);
    }
    return fn;
}

/* Into the slot (%r11): the body's register and, for clang's entries, the ident. */
#define SAVE_KMPC "movq %rdx, 0(%r11)\n movq %rdi, 8(%r11)\n"
#define SAVE_GOMP "movq %rdi, 0(%r11)\n movq $0, 8(%r11)\n"

/*
 * The trampoline. %r10 and %r11 are scratch registers no argument uses; %rax (the vector
 * count of a variadic call) is kept in %r10 while it helps. The slow path keeps the stack
 * 16-byte aligned for its call: on entry %rsp = 8 mod 16, 7 pushes and 128 bytes of
 * vector registers leave it at 0 mod 16.
 */
#define TRAMPOLINE(i, name, kind)                                                                  \
    __asm__(".text\n"                                                                              \
            ".globl " #name "\n"                                                                   \
            ".type " #name ", @function\n" #name ":\n"                                             \
            ".cfi_startproc\n"                                                                     \
            "movq %rax, %r10\n"                                                                    \
            "movq omptool_fork@gottpoff(%rip), %rax\n"                                             \
            "movq %fs:0, %r11\n"                                                                   \
            "addq %rax, %r11\n" SAVE_##kind "movq (%rsp), %rax\n"                                  \
                                            "movq %rax, 16(%r11)\n"                                \
                                            "movq %r10, %rax\n"                                    \
                                            "movq omptool_fork_real+8*" #i "(%rip), %r11\n"        \
                                            "testq %r11, %r11\n"                                   \
                                            "jz 1f\n"                                              \
                                            "jmp *%r11\n"                                          \
                                            "1:\n"                                                 \
                                            "pushq %rdi\n .cfi_adjust_cfa_offset 8\n"              \
                                            "pushq %rsi\n .cfi_adjust_cfa_offset 8\n"              \
                                            "pushq %rdx\n .cfi_adjust_cfa_offset 8\n"              \
                                            "pushq %rcx\n .cfi_adjust_cfa_offset 8\n"              \
                                            "pushq %r8\n .cfi_adjust_cfa_offset 8\n"               \
                                            "pushq %r9\n .cfi_adjust_cfa_offset 8\n"               \
                                            "pushq %rax\n .cfi_adjust_cfa_offset 8\n"              \
                                            "subq $128, %rsp\n .cfi_adjust_cfa_offset 128\n"       \
                                            "movdqu %xmm0, 0(%rsp)\n movdqu %xmm1, 16(%rsp)\n"     \
                                            "movdqu %xmm2, 32(%rsp)\n movdqu %xmm3, 48(%rsp)\n"    \
                                            "movdqu %xmm4, 64(%rsp)\n movdqu %xmm5, 80(%rsp)\n"    \
                                            "movdqu %xmm6, 96(%rsp)\n movdqu %xmm7, 112(%rsp)\n"   \
                                            "movl $" #i ", %edi\n"                                 \
                                            "call omptool_fork_resolve\n"                          \
                                            "movq %rax, %r11\n"                                    \
                                            "movdqu 0(%rsp), %xmm0\n movdqu 16(%rsp), %xmm1\n"     \
                                            "movdqu 32(%rsp), %xmm2\n movdqu 48(%rsp), %xmm3\n"    \
                                            "movdqu 64(%rsp), %xmm4\n movdqu 80(%rsp), %xmm5\n"    \
                                            "movdqu 96(%rsp), %xmm6\n movdqu 112(%rsp), %xmm7\n"   \
                                            "addq $128, %rsp\n .cfi_adjust_cfa_offset -128\n"      \
                                            "popq %rax\n .cfi_adjust_cfa_offset -8\n"              \
                                            "popq %r9\n .cfi_adjust_cfa_offset -8\n"               \
                                            "popq %r8\n .cfi_adjust_cfa_offset -8\n"               \
                                            "popq %rcx\n .cfi_adjust_cfa_offset -8\n"              \
                                            "popq %rdx\n .cfi_adjust_cfa_offset -8\n"              \
                                            "popq %rsi\n .cfi_adjust_cfa_offset -8\n"              \
                                            "popq %rdi\n .cfi_adjust_cfa_offset -8\n"              \
                                            "jmp *%r11\n"                                          \
                                            ".cfi_endproc\n"                                       \
                                            ".size " #name ", .-" #name "\n");
FORK_ENTRIES(TRAMPOLINE)

/* At load: the runtime the program links is mapped by now. */
__attribute__((constructor)) static void omptool_fork_init(void)
{
    hpcollect_guard_enter(); /* our lookups' allocations are not the program's (-H) */
    for (unsigned i = 0; i < NFORK; i++)
        if (omptool_fork_real[i] == NULL)
            omptool_fork_real[i] = dlsym(RTLD_NEXT, fork_names[i]);
    hpcollect_guard_leave();
}

#endif /* __x86_64__ */
