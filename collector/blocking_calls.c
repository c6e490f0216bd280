/*
 * blocking_calls.c - wrappers around the library calls a program blocks in (the table
 * is blocking.def), so that its time off the CPU inside them is charged to the call's
 * stack with the call's reason (thread states: states.h).
 *
 * A wrapper notes the thread's context-switch buffer head, calls the real function and
 * compares the head again: a call that did not block costs two loads and a compare
 * beyond the call itself; one that did reads the records its sleep left
 * (hpc_states_call_end). errno and the return value are the real function's. With
 * thread states off (or a thread the collector does not follow) the wrappers only
 * forward.
 *
 * The real functions are resolved when the library starts (hpc_blocking_init, from the
 * constructor), so a program's signal handler that calls write() never makes us call
 * dlsym; a call that comes before (another library's constructor) resolves its own.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector.h"

/* The next definition of name: resolved once; NULL until then. */
static void *resolve(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!p) {
        p = dlsym(RTLD_NEXT, name);
        __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    }
    return p;
}

#define HPC_BLOCKING(ret, name, state, params, args)                                               \
    static void *next_##name;                                                                      \
    HPC_INTERPOSE ret name params                                                                  \
    {                                                                                              \
        __typeof__(&name) real_ = (__typeof__(&name))resolve(&next_##name, #name);                 \
        unsigned call_;                                                                            \
        hpc_thread_priv *self_ = hpc_states_call_begin(&call_, HPC_MSTATE_##state, (void *)real_); \
        ret ret_ = real_ args;                                                                     \
        if (self_)                                                                                 \
            hpc_states_call_end(self_, call_);                                                     \
        return ret_;                                                                               \
    }
#include "blocking.def"
#undef HPC_BLOCKING

/* ------------------------------------------------- variable arguments, by hand */

/* The mode argument exists only when the flags create a file. */
static bool takes_mode(int flags)
{
    return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE;
}

#define OPEN_WRAPPER(name, pre_params, pre_args)                                                   \
    static void *next_##name;                                                                      \
    HPC_INTERPOSE int name(pre_params const char *path, int flags, ...)                            \
    {                                                                                              \
        mode_t mode = 0;                                                                           \
        if (takes_mode(flags)) {                                                                   \
            va_list ap;                                                                            \
            va_start(ap, flags);                                                                   \
            mode = (mode_t)va_arg(ap, unsigned int);                                               \
            va_end(ap);                                                                            \
        }                                                                                          \
        int (*real)(pre_params const char *, int, ...) = resolve(&next_##name, #name);             \
        unsigned c;                                                                                \
        hpc_thread_priv *t = hpc_states_call_begin(&c, HPC_MSTATE_OTHER_WAIT, (void *)real);       \
        int r = real(pre_args path, flags, mode);                                                  \
        if (t)                                                                                     \
            hpc_states_call_end(t, c);                                                             \
        return r;                                                                                  \
    }
#define COMMA ,
OPEN_WRAPPER(open, , )
OPEN_WRAPPER(open64, , )
OPEN_WRAPPER(openat, int dirfd COMMA, dirfd COMMA)
OPEN_WRAPPER(openat64, int dirfd COMMA, dirfd COMMA)

/* Every fcntl command takes at most one argument, an int or a pointer. */
#define FCNTL_WRAPPER(name)                                                                        \
    static void *next_##name;                                                                      \
    HPC_INTERPOSE int name(int fd, int cmd, ...)                                                   \
    {                                                                                              \
        va_list ap;                                                                                \
        va_start(ap, cmd);                                                                         \
        void *arg = va_arg(ap, void *);                                                            \
        va_end(ap);                                                                                \
        int (*real)(int, int, ...) = resolve(&next_##name, #name);                                 \
        unsigned c;                                                                                \
        hpc_thread_priv *t = hpc_states_call_begin(&c, HPC_MSTATE_OTHER_WAIT, (void *)real);       \
        int r = real(fd, cmd, arg);                                                                \
        if (t)                                                                                     \
            hpc_states_call_end(t, c);                                                             \
        return r;                                                                                  \
    }
FCNTL_WRAPPER(fcntl)
FCNTL_WRAPPER(fcntl64)

/* A futex wait through syscall() (LLVM's OpenMP locks) is a lock wait; every other
 * system call goes straight through (the collector makes many of its own). */
static bool futex_wait(long nr, long op)
{
    if (nr != SYS_futex)
        return false;
    switch (op & FUTEX_CMD_MASK) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
    case FUTEX_WAIT_REQUEUE_PI:
        return true;
    default:
        return false;
    }
}

static void *next_syscall;
HPC_INTERPOSE long syscall(long nr, ...)
{
    va_list ap;
    va_start(ap, nr);
    long a[6];
    for (int i = 0; i < 6; i++) /* as glibc's own syscall(): six registers, used or not */
        a[i] = va_arg(ap, long);
    va_end(ap);
    long (*real)(long, ...) = resolve(&next_syscall, "syscall");
    if (!futex_wait(nr, a[1]))
        return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    unsigned c;
    hpc_thread_priv *t = hpc_states_call_begin(&c, HPC_MSTATE_USER_LOCK, (void *)real);
    long r = real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (t)
        hpc_states_call_end(t, c);
    return r;
}

void hpc_blocking_init(void)
{
#define HPC_BLOCKING(ret, name, state, params, args) resolve(&next_##name, #name);
#include "blocking.def"
#undef HPC_BLOCKING
    static const struct {
        void **slot;
        const char *name;
    } by_hand[] = {{&next_open, "open"},      {&next_open64, "open64"},
                   {&next_openat, "openat"},  {&next_openat64, "openat64"},
                   {&next_fcntl, "fcntl"},    {&next_fcntl64, "fcntl64"},
                   {&next_syscall, "syscall"}};
    for (size_t i = 0; i < sizeof by_hand / sizeof by_hand[0]; i++)
        resolve(by_hand[i].slot, by_hand[i].name);
}
