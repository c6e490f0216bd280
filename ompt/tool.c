/*
 * tool.c - the OMPT entry point: ompt_start_tool, initialize, finalize.
 *
 * An OpenMP 5 runtime (LLVM libomp) looks up ompt_start_tool in the process when it
 * initializes; ours is exported from libhpcollect.so, which hpcollect preloads. We accept
 * unless collection is off in this process (hpcollect_self() is NULL for the initial
 * thread, e.g. a -F off descendant), so such a process runs with no tool at all. GNU
 * libgomp never calls it: without OMPT the program still runs and is sampled, and the
 * reports fall back to the machine view (runtime.c says which runtime ran).
 */
#include <stdlib.h>
#include <string.h>

#include "omptool.h"

/* The one exported OMPT symbol. */
HPCOLLECT_API ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                        const char *runtime_version);

static unsigned start_version;
static char start_runtime[128];

bool omptool_register(ompt_callbacks_t event, ompt_callback_t cb)
{
    ompt_set_result_t r = omptool_g.set_callback(event, cb);
    return r != ompt_set_error && r != ompt_set_never;
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
    (void)initial_device_num, (void)tool_data;
    omptool_g.set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    omptool_g.get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    if (omptool_g.set_callback == NULL)
        return 0; /* not a usable OMPT: stay out of the way */
    /* Read once: for the benchmark of the context cache (bench/omp_bench.sh). */
    omptool_g.no_context_cache = strcmp(hpcollect_settings_get()->omp_context, "unwind") == 0;
    omptool_register_parallel();
    omptool_register_sync();
    omptool_register_work();
    omptool_g.active = true;
    omptool_note_llvm_runtime(start_version, start_runtime, (const void *)lookup);
    return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    omptool_g.active = false;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
    if (hpcollect_self() == NULL)
        return NULL;
    start_version = omp_version;
    if (runtime_version != NULL) {
        strncpy(start_runtime, runtime_version, sizeof start_runtime - 1);
        start_runtime[sizeof start_runtime - 1] = '\0';
    }
    return &result;
}
