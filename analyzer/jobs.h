/*
 * jobs.h - the list of commands one hpanalyze call runs, from its command line, from
 * `-script FILE` and from standard input, as er_print takes them.
 *
 * A script or stdin holds one command per line with its arguments, separated by blanks;
 * "double" or 'single' quotes keep blanks inside an argument (C++ names); a '#' starting a
 * word begins a comment; blank lines are skipped; `quit` or `exit` ends the list.
 * Every line is checked before anything runs, so a bad script fails (exit 2) with
 * "FILE:LINE: ..." before any output, as a bad command line does.
 */
#ifndef HPA_JOBS_H
#define HPA_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "commands.h"

typedef struct hpa_job {
    const hpa_command *cmd;
    int argc;
    char **argv;
} hpa_job;

typedef struct hpa_jobs {
    size_t n, cap;
    hpa_job *v;
    char **owned; /* strings read from scripts, freed with the list */
    size_t nowned, owned_cap;
} hpa_jobs;

/* Append a command with its arguments (not copied: they must outlive the list).
 * `where` names the source for messages ("script.txt:3", NULL = command line).
 * Returns 0 or HPA_EXIT_USAGE after a message (unknown command, wrong argument count). */
int hpa_jobs_add(hpa_jobs *jobs, const char *name, int argc, char **argv, const char *where);

/* The same, copying the argv array (not the strings): for arrays that change later. */
int hpa_jobs_add_copy(hpa_jobs *jobs, const char *name, int argc, char *const *argv);

/*
 * Split one line into words and append it as a command. Returns 0 (added, or nothing on
 * the line), 1 for quit/exit, or HPA_EXIT_USAGE after a message naming `where`.
 */
int hpa_jobs_add_line(hpa_jobs *jobs, const char *line, const char *where);

/* Every line of f (named name in messages). Returns 0 or HPA_EXIT_USAGE. */
int hpa_jobs_add_file(hpa_jobs *jobs, FILE *f, const char *name);

void hpa_jobs_free(hpa_jobs *jobs);

#endif
