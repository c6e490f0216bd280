/*
 * io_calls.c - N pwrite then N pread of 4 KiB on one file that stays in the page cache
 * (offsets cycling through its first MiB), for bench/io_bench.py: the cost of a traced
 * I/O call. With N = 0 it opens, sizes and closes the file only.
 *
 *     io_calls N FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    long n = atol(argv[1]);
    static char buf[4096];
    int fd = open(argv[2], O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, 1 << 20) != 0)
        return 1;
    for (long i = 0; i < n; i++)
        if (pwrite(fd, buf, sizeof buf, (i % 256) * 4096) != sizeof buf)
            return 1;
    for (long i = 0; i < n; i++)
        if (pread(fd, buf, sizeof buf, (i % 256) * 4096) != sizeof buf)
            return 1;
    return close(fd) != 0;
}
