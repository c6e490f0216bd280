/*
 * blocking_calls.c - wrappers around the library calls a program blocks in (the BLOCKING
 * lines of interpose.def, and fcntl by hand: it takes variable arguments; open, openat,
 * close, fclose and stdio's formatted calls are the I/O tracer's, io.c, with the same
 * part), so that a thread's time off the CPU inside them is charged to
 * the call's stack with the call's reason (thread states: states.h).
 *
 * A wrapper notes the thread's context-switch buffer head, calls the real function and
 * compares the head again: a call that did not block costs two loads and a compare
 * beyond the call itself; one that did reads the records its sleep left
 * (hpc_states_call_end). errno and the return value are the real function's. With
 * thread states off, in a thread the collector does not follow, or in the collector's own
 * work (its guard, interpose.h), the wrappers only forward.
 *
 * The OpenMP runtime's lock waits (futex system calls through syscall(), not wrapped:
 * the collector makes its own) are followed by the OpenMP tool's mutex callbacks instead
 * (ompt/cb_sync.c).
 */
#include <stdarg.h>

#include "collector.h"
#include "interpose.h"

/* interpose.def's lines, each made into a wrapper if it is BLOCKING(state, args), into
 * nothing otherwise. The line's body macro leaves its parenthesis open and the name,
 * return type and parameters that follow complete the call. */
#define HPC_FN(name, ret, params, body)        HPC_MAKE_##body name, ret, params)
#define HPC_MAKE_BLOCKING(state, args)         HPC_BLOCKING_WRAPPER(state, args,
#define HPC_MAKE_HAND(file)                    HPC_MAKE_NOTHING(
#define HPC_MAKE_HAND_ONLY(file)               HPC_MAKE_NOTHING(
#define HPC_MAKE_REAL                          HPC_MAKE_NOTHING(
#define HPC_MAKE_TRACED(kind, args)            HPC_MAKE_NOTHING(
#define HPC_MAKE_TRACED_VOID(kind, args)       HPC_MAKE_NOTHING(
#define HPC_MAKE_NOTHING(...)
#define HPC_BLOCKING_WRAPPER(state, args, name, ret, params)                                       \
    HPC_INTERPOSE ret name params                                                                  \
    {                                                                                              \
        hpc_real_init();                                                                           \
        unsigned call_;                                                                            \
        hpc_thread_priv *self_ =                                                                   \
            hpc_states_call_begin(&call_, HPC_MSTATE_##state, (void *)HPC_REAL(name));             \
        ret ret_ = HPC_REAL(name) args;                                                            \
        if (self_)                                                                                 \
            hpc_states_call_end(self_, call_);                                                     \
        return ret_;                                                                               \
    }
#include "interpose.def"
#undef HPC_FN

/* ------------------------------------------------- variable arguments, by hand */

/* Every fcntl command takes at most one argument, an int or a pointer. */
#define FCNTL_WRAPPER(name)                                                                        \
    HPC_INTERPOSE int name(int fd, int cmd, ...)                                                   \
    {                                                                                              \
        hpc_real_init();                                                                           \
        va_list ap;                                                                                \
        va_start(ap, cmd);                                                                         \
        void *arg = va_arg(ap, void *);                                                            \
        va_end(ap);                                                                                \
        unsigned c;                                                                                \
        hpc_thread_priv *t =                                                                       \
            hpc_states_call_begin(&c, HPC_MSTATE_OTHER_WAIT, (void *)HPC_REAL(name));              \
        int r = HPC_REAL(name)(fd, cmd, arg);                                                      \
        if (t)                                                                                     \
            hpc_states_call_end(t, c);                                                             \
        return r;                                                                                  \
    }
FCNTL_WRAPPER(fcntl)
FCNTL_WRAPPER(fcntl64)
