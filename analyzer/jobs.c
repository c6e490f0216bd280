/*
 * jobs.c - commands from the command line, scripts and stdin (jobs.h).
 */
#include "jobs.h"

#include <stdlib.h>
#include <string.h>

static int grow(hpa_jobs *jobs)
{
    if (jobs->n < jobs->cap)
        return 0;
    size_t cap = jobs->cap ? 2 * jobs->cap : 16;
    hpa_job *v = realloc(jobs->v, sizeof(*v) * cap);
    if (!v)
        return -1;
    jobs->v = v;
    jobs->cap = cap;
    return 0;
}

static char *own(hpa_jobs *jobs, char *s)
{
    if (!s)
        return NULL;
    if (jobs->nowned == jobs->owned_cap) {
        size_t cap = jobs->owned_cap ? 2 * jobs->owned_cap : 64;
        char **v = realloc(jobs->owned, sizeof(*v) * cap);
        if (!v) {
            free(s);
            return NULL;
        }
        jobs->owned = v;
        jobs->owned_cap = cap;
    }
    jobs->owned[jobs->nowned++] = s;
    return s;
}

int hpa_jobs_add(hpa_jobs *jobs, const char *name, int argc, char **argv, const char *where)
{
    const hpa_command *c = hpa_command_find(name);
    char prefix[300] = "";
    if (where)
        snprintf(prefix, sizeof(prefix), "%s: ", where);
    if (!c)
        return hpa_usage_error(NULL, "%sunknown command '%s' (hpanalyze --help lists them)", prefix,
                               name);
    if (argc < c->min_args)
        return hpa_usage_error(c->name, "%smissing argument %s", prefix, c->args);
    if (argc > c->max_args)
        return hpa_usage_error(c->name, "%sunexpected argument '%s' (arguments: %s)", prefix,
                               argv[c->max_args], c->args[0] ? c->args : "none");
    if (grow(jobs))
        return hpa_usage_error(NULL, "out of memory");
    jobs->v[jobs->n++] = (hpa_job){.cmd = c, .argc = argc, .argv = argv};
    return 0;
}

int hpa_jobs_add_copy(hpa_jobs *jobs, const char *name, int argc, char *const *argv)
{
    char **copy = (char **)own(jobs, malloc(sizeof(char *) * (size_t)(argc + 1)));
    if (!copy)
        return hpa_usage_error(NULL, "out of memory");
    for (int i = 0; i < argc; i++)
        copy[i] = argv[i];
    return hpa_jobs_add(jobs, name, argc, copy, NULL);
}

/* Next word of *p into a new string (quotes removed); NULL at the end or a comment. */
static char *next_word(const char **p, bool *unterminated)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    if (!*s || *s == '#') {
        *p = s;
        return NULL;
    }
    char *w = malloc(strlen(s) + 1);
    if (!w)
        return NULL;
    size_t n = 0;
    char quote = 0;
    for (; *s && (quote || !strchr(" \t\r\n", *s)); s++) {
        if (quote && *s == quote)
            quote = 0;
        else if (!quote && (*s == '"' || *s == '\''))
            quote = *s;
        else
            w[n++] = *s;
    }
    w[n] = 0;
    *unterminated = quote != 0;
    *p = s;
    return w;
}

int hpa_jobs_add_line(hpa_jobs *jobs, const char *line, const char *where)
{
    char *words[64];
    int n = 0;
    bool open_quote = false;
    for (const char *p = line; n < 64;) {
        char *w = own(jobs, next_word(&p, &open_quote));
        if (!w)
            break;
        words[n++] = w;
        if (open_quote)
            return hpa_usage_error(NULL, "%s: unterminated quote", where);
    }
    if (n == 0)
        return 0;
    if (strcmp(words[0], "quit") == 0 || strcmp(words[0], "exit") == 0)
        return 1;
    char **argv = (char **)own(jobs, malloc(sizeof(char *) * (size_t)n));
    if (!argv)
        return hpa_usage_error(NULL, "out of memory");
    memcpy(argv, words + 1, sizeof(char *) * (size_t)(n - 1));
    return hpa_jobs_add(jobs, words[0], n - 1, argv, where);
}

int hpa_jobs_add_file(hpa_jobs *jobs, FILE *f, const char *name)
{
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    for (unsigned no = 1; rc == 0 && getline(&line, &cap, f) >= 0; no++) {
        char where[300];
        snprintf(where, sizeof(where), "%s:%u", name, no);
        rc = hpa_jobs_add_line(jobs, line, where);
    }
    free(line);
    return rc == 1 ? 0 : rc;
}

void hpa_jobs_free(hpa_jobs *jobs)
{
    for (size_t i = 0; i < jobs->nowned; i++)
        free(jobs->owned[i]);
    free(jobs->owned);
    free(jobs->v);
    memset(jobs, 0, sizeof(*jobs));
}
