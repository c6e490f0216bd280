/*
 * disasm.c - instructions and their lines from objdump's output (disasm.h).
 *
 * objdump -d -l prints, for each run of instructions of one source line, the line as
 * "FILE:LINE" (perhaps followed by " (discriminator N)"), then instructions as
 * "    11bd:\tmulsd  %xmm2,%xmm0". Function labels ("000011a9 <f>:", "f():") are skipped.
 */
#include "disasm.h"

#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *file_of(hpa_disasm *d, const char *name, size_t n)
{
    for (size_t i = 0; i < d->nfiles; i++)
        if (strlen(d->files[i]) == n && strncmp(d->files[i], name, n) == 0)
            return d->files[i];
    char **v = realloc(d->files, sizeof(*v) * (d->nfiles + 1));
    if (!v)
        return "";
    d->files = v;
    char *s = strndup(name, n);
    if (!s)
        return "";
    d->files[d->nfiles++] = s;
    return s;
}

/* "FILE:LINE" or "FILE:LINE (discriminator N)": sets *file, *line. */
static int parse_line_info(hpa_disasm *d, const char *s, const char **file, uint32_t *line)
{
    if (s[0] == ' ' || s[0] == '\t' || s[0] == 0)
        return -1;
    const char *end = strstr(s, " (discriminator");
    if (!end)
        end = s + strcspn(s, "\n");
    const char *colon = end;
    while (colon > s && colon[-1] >= '0' && colon[-1] <= '9')
        colon--;
    if (colon == end || colon == s || colon[-1] != ':')
        return -1;
    *line = (uint32_t)strtoul(colon, NULL, 10);
    *file = file_of(d, s, (size_t)(colon - 1 - s));
    return 0;
}

static int add_insn(hpa_disasm *d, const char *s, const char *file, uint32_t line)
{
    char *end;
    while (*s == ' ')
        s++;
    uint64_t addr = strtoull(s, &end, 16);
    if (end == s || end[0] != ':' || end[1] != '\t')
        return 0;
    const char *text = end + 2;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 256;
        hpa_insn *v = realloc(d->v, sizeof(*v) * cap);
        if (!v)
            return -1;
        d->v = v;
        d->cap = cap;
    }
    char *t = strndup(text, strcspn(text, "\n"));
    if (!t)
        return -1;
    /* objdump pads instructions with blanks; keep single spaces after the mnemonic */
    size_t len = strlen(t);
    while (len && (t[len - 1] == ' ' || t[len - 1] == '\t'))
        t[--len] = 0;
    d->v[d->n++] = (hpa_insn){.addr = addr, .line = line, .file = file, .text = t};
    return 0;
}

int hpa_disasm_read(hpa_disasm *d, const char *object, uint64_t start, uint64_t end, char *err,
                    size_t cap)
{
    memset(d, 0, sizeof(*d));
    char a1[64], a2[64];
    snprintf(a1, sizeof(a1), "--start-address=0x%" PRIx64, start);
    snprintf(a2, sizeof(a2), "--stop-address=0x%" PRIx64, end);
    /* "--": a module path that begins with '-' is a path, not an option */
    char *argv[] = {"objdump", "-d", "-l", "-w",           "--no-show-raw-insn",
                    a1,        a2,   "--", (char *)object, NULL};
    int pipefd[2];
    if (pipe(pipefd)) {
        snprintf(err, cap, "pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, "objdump", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (rc) {
        close(pipefd[0]);
        snprintf(err, cap, "cannot run objdump (%s); install binutils", strerror(rc));
        return -1;
    }
    FILE *f = fdopen(pipefd[0], "r");
    char *line = NULL;
    size_t lcap = 0;
    const char *file = "";
    uint32_t lineno = 0;
    int bad = f ? 0 : -1;
    while (f && getline(&line, &lcap, f) >= 0) {
        if (bad)
            continue; /* drain the pipe */
        if (parse_line_info(d, line, &file, &lineno) == 0)
            continue;
        if (line[0] == ' ' && add_insn(d, line, file, lineno))
            bad = -1;
    }
    free(line);
    if (f)
        fclose(f);
    else
        close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (bad || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || d->n == 0) {
        snprintf(err, cap, "objdump could not disassemble %s [0x%" PRIx64 ", 0x%" PRIx64 ")%s",
                 object, start, end, bad ? ": out of memory" : "");
        hpa_disasm_free(d);
        return -1;
    }
    return 0;
}

void hpa_disasm_free(hpa_disasm *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->v[i].text);
    for (size_t i = 0; i < d->nfiles; i++)
        free(d->files[i]);
    free(d->files);
    free(d->v);
    memset(d, 0, sizeof(*d));
}

long hpa_disasm_find(const hpa_disasm *d, uint64_t addr)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) { /* first instruction starting after addr */
        size_t mid = (lo + hi) / 2;
        if (d->v[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? -1 : (long)lo - 1;
}
