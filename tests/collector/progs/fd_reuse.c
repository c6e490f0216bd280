/*
 * fd_reuse: a program that closes every descriptor it did not open (as chromium does
 * before it execs a helper, and daemons do) and reuses the numbers for a pipe of its
 * own, then spends its CPU time where an unwinder has to guess (nocfi_spin: no unwind
 * information, the frame pointer at a mapped buffer). libunwind checks such guesses by
 * writing a byte of the address to a pipe it opened and reading it back: with the
 * numbers reused, it read from and wrote into this program's pipe (or blocked on it).
 * The program writes a message into its pipe, burns, and reads the pipe back: the exact
 * message, nothing more, or it says what it found. alarm(60) ends a hang.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* rdi iterations, rbp at `frame` (a mapped buffer), no CFI */
__asm__(".text\n"
        ".globl nocfi_spin\n"
        ".type nocfi_spin, @function\n"
        "nocfi_spin:\n"
        "    push %rbp\n"
        "    mov %rsi, %rbp\n"
        "1:  dec %rdi\n"
        "    jnz 1b\n"
        "    pop %rbp\n"
        "    ret\n"
        ".size nocfi_spin, .-nocfi_spin\n");
void nocfi_spin(long n, void *frame);

static long frame[512];

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 400000000L;
    alarm(60);
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    int p[2];
    if (pipe(p) != 0) /* blocking, at the lowest free numbers */
        return 2;
    static const char msg[] = "the program's own bytes";
    if (write(p[1], msg, sizeof msg) != (ssize_t)sizeof msg)
        return 2;
    for (int i = 0; i < 8; i++) {
        frame[256] = (long)&frame[300]; /* a chain through mapped memory */
        nocfi_spin(n / 8, &frame[256]);
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    char buf[256];
    ssize_t got = read(p[0], buf, sizeof buf);
    if (got == (ssize_t)sizeof msg && memcmp(buf, msg, sizeof msg) == 0) {
        printf("pipe intact\n");
        return 0;
    }
    printf("pipe changed: %zd bytes, %zd expected\n", got, (ssize_t)sizeof msg);
    return 1;
}
