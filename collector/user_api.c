/*
 * user_api.c - the collector API of include/hpcollect.h: what a program calls to mark
 * phases (hpc_sample) and to record only some of its run (hpc_pause, hpc_resume). The
 * program references these weakly, so it also runs without the collector, where they
 * are null and the header's macros skip the calls.
 */
#include "collector.h"

HPCOLLECT_API void hpc_sample(const char *label)
{
    if (hpc_P.active)
        hpcollect_sample_point(HPC_SAMPLE_API, label ? label : "");
}

HPCOLLECT_API void hpc_pause(void)
{
    if (hpc_P.active)
        hpcollect_pause(HPC_SAMPLE_PAUSE);
}

HPCOLLECT_API void hpc_resume(void)
{
    if (hpc_P.active)
        hpcollect_resume(HPC_SAMPLE_RESUME);
}
