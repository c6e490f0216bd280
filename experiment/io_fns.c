/*
 * io_fns.c - names and kinds of the traced I/O functions (enum hpc_io_fn), from
 * io_fns.def.
 */
#include "experiment.h"

static const struct {
    const char *name;
    unsigned char cls, act, paradigm;
} fns[HPC_IO_FN_COUNT_] = {
#define HPC_IO_FN(name, class, act, paradigm)                                                      \
    [HPC_IO_FN_##name] = {#name, HPC_IO_CLASS_##class, HPC_IO_ACT_##act, HPC_IO_##paradigm},
#include "io_fns.def"
#undef HPC_IO_FN
};

const char *hpc_io_fn_name(unsigned fn)
{
    return fn && fn < HPC_IO_FN_COUNT_ ? fns[fn].name : NULL;
}

enum hpc_io_class hpc_io_fn_class(unsigned fn)
{
    return fn < HPC_IO_FN_COUNT_ ? fns[fn].cls : HPC_IO_CLASS_OTHER;
}

enum hpc_io_act hpc_io_fn_act(unsigned fn)
{
    return fn < HPC_IO_FN_COUNT_ ? fns[fn].act : HPC_IO_ACT_META;
}

enum hpc_io_paradigm hpc_io_fn_paradigm(unsigned fn)
{
    return fn && fn < HPC_IO_FN_COUNT_ ? fns[fn].paradigm : HPC_IO_POSIX;
}
