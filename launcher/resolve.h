/*
 * resolve.h - find the program to run the way the shell does, before anything is made.
 */
#ifndef HPC_LAUNCHER_RESOLVE_H
#define HPC_LAUNCHER_RESOLVE_H

#include <stddef.h>

/*
 * Resolve `prog`: a name with '/' is used as is, else PATH is searched (as execvp does;
 * an unset PATH means "/usr/local/bin:/usr/bin:/bin"). On success writes the path into
 * out and returns 0. Otherwise prints the shell's message
 * ("hpcollect: prog: command not found", "...: No such file or directory",
 * "...: Permission denied", "...: Is a directory") and returns the shell's status:
 * 127 (not found) or 126 (found, not executable).
 */
int hpc_resolve_program(const char *prog, char *out, size_t cap);

#endif
