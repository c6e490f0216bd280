/*
 * io_pattern.c - I/O known in advance, each phase in a function of its own (tests/io):
 *
 *   write_seq   open seq.dat; 256 write() of 4096 bytes, one after the other; close
 *   read_rand   open rand.dat; ftruncate to 16 MiB; 100 pread() of 1 MiB at offset
 *               ((i * 7) % 16) MiB, i = 0..99; close
 *   stdio_text  fopen text.txt "w"; 50 fprintf of "line %03d\n" (9 bytes); fclose;
 *               fopen "r"; fgets until it returns NULL (50 lines + the NULL at the end);
 *               fclose
 *   fail_open   open of DIR/missing/none (ENOENT)
 *   two_paths   open ab.dat; 10 times via_a() then via_b(), each calling put(), which
 *               writes 1 byte: the same call site of write at the same stack depth, from
 *               two callers (10 writes under each); close
 *
 * Arguments: DIR, where the files go. Prints nothing; exits 1 if a call does not do what
 * the test expects of it (so the test knows the ground truth held).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MiB (1024 * 1024)

static char dir[4096];
static char buf[MiB];

static const char *at(const char *name)
{
    static char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void check(int ok, const char *what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

__attribute__((noinline)) static void write_seq(void)
{
    int fd = open(at("seq.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    check(fd >= 0, "open seq.dat");
    memset(buf, 'w', 4096);
    for (int i = 0; i < 256; i++)
        check(write(fd, buf, 4096) == 4096, "write");
    check(close(fd) == 0, "close");
}

__attribute__((noinline)) static void read_rand(void)
{
    int fd = open(at("rand.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644);
    check(fd >= 0, "open rand.dat");
    check(ftruncate(fd, 16 * MiB) == 0, "ftruncate");
    for (int i = 0; i < 100; i++)
        check(pread(fd, buf, MiB, (off_t)((i * 7) % 16) * MiB) == MiB, "pread");
    check(close(fd) == 0, "close");
}

__attribute__((noinline)) static void stdio_text(void)
{
    FILE *f = fopen(at("text.txt"), "w");
    check(f != NULL, "fopen w");
    for (int i = 0; i < 50; i++)
        check(fprintf(f, "line %03d\n", i) == 9, "fprintf");
    check(fclose(f) == 0, "fclose");
    f = fopen(at("text.txt"), "r");
    check(f != NULL, "fopen r");
    char line[64];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n++;
    check(n == 50, "fgets");
    check(fclose(f) == 0, "fclose");
}

__attribute__((noinline)) static void fail_open(void)
{
    int fd = open(at("missing/none"), O_RDONLY);
    check(fd < 0, "open of a missing file succeeded");
}

__attribute__((noinline)) static void put(int fd)
{
    check(write(fd, "x", 1) == 1, "write 1");
}

__attribute__((noinline)) static void via_a(int fd)
{
    put(fd);
    __asm__ volatile("" ::: "memory"); /* not a tail call: via_a stays on the stack */
}

__attribute__((noinline)) static void via_b(int fd)
{
    put(fd);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void two_paths(void)
{
    int fd = open(at("ab.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    check(fd >= 0, "open ab.dat");
    for (int i = 0; i < 10; i++) {
        via_a(fd);
        via_b(fd);
    }
    check(close(fd) == 0, "close");
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    snprintf(dir, sizeof dir, "%s", argv[1]);
    write_seq();
    read_rand();
    stdio_text();
    fail_open();
    two_paths();
    return 0;
}
