/*
 * unwind_fault.c - spins with its stack pointer on an inaccessible page (with a valid
 * alternate signal stack, so signals can still be delivered): unwinding from there
 * faults, and the collector must recover and count it. Burns about 0.4 s, exit 0.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>

static char altstack[1 << 16];

int main(void)
{
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0)
        return 10;
    char *guard = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard == MAP_FAILED)
        return 11;
    char *bad = guard + (1 << 15);
    for (int k = 0; k < 300; k++)
        __asm__ volatile("mov %%rsp, %%r12\n\t"
                         "mov %0, %%rsp\n\t"
                         "mov $4000000, %%rcx\n"
                         "1: dec %%rcx\n\t"
                         "jnz 1b\n\t"
                         "mov %%r12, %%rsp\n\t"
                         :
                         : "r"(bad)
                         : "rcx", "r12", "memory");
    printf("survived\n");
    return 0;
}
