/*
 * sample_point.h - a sample point recorded through the collector's API
 * (hpcollect_sample_point), looked up at run time: without the collector it is skipped,
 * so a ground-truth program runs plain as well. Header-only (-Itests/include).
 */
#ifndef SAMPLE_POINT_H
#define SAMPLE_POINT_H

#include <dlfcn.h>

static inline void sample_point(const char *label)
{
    void (*fn)(unsigned, const char *) =
        (void (*)(unsigned, const char *))dlsym(RTLD_DEFAULT, "hpcollect_sample_point");
    if (fn)
        fn(3 /* HPC_SAMPLE_API */, label);
}

#endif /* SAMPLE_POINT_H */
