/*
 * real.h - the libc functions the collector interposes, as the program would have
 * called them (dlsym RTLD_NEXT). Resolved once, before the first signal handler can
 * run; hpc_real_init() is idempotent and cheap after the first call.
 */
#ifndef HPC_COLLECTOR_REAL_H
#define HPC_COLLECTOR_REAL_H

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>

typedef struct hpc_real_fns {
    int (*sigaction)(int, const struct sigaction *, struct sigaction *);
    int (*sigprocmask)(int, const sigset_t *, sigset_t *);
    int (*pthread_sigmask)(int, const sigset_t *, sigset_t *);
    int (*pthread_kill)(pthread_t, int);
    int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    pid_t (*fork)(void);
    int (*execve)(const char *, char *const[], char *const[]);
    int (*posix_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                       const posix_spawnattr_t *, char *const[], char *const[]);
    int (*posix_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);
    int (*system)(const char *);
    void *(*dlopen)(const char *, int);
    int (*dlclose)(void *);
    int (*dl_iterate_phdr)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
    void (*_exit)(int) __attribute__((noreturn));
    void (*_Exit)(int) __attribute__((noreturn));
} hpc_real_fns;

extern hpc_real_fns hpc_real;

/* Resolve every entry (aborts with a message if libc lacks one). NOT signal-safe. */
void hpc_real_init(void);

#endif
