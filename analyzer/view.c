/*
 * view.c - the table of views. The user and expert views hide the collector's own frames
 * (libhpcollect's main wrapper, interposed functions): the program as it would run
 * without us. The OpenMP parts of these views (issue 4) will be view_<name>.c files
 * whose transforms start from hide_collector_frames().
 */
#include "view.h"

#include <string.h>

/* Drop frames in our own libraries; a stack made only of them is kept whole. */
static unsigned hide_collector_frames(const hpa_view *v, const hpa_path_ctx *ctx,
                                      const hpa_frame *in, unsigned n, hpa_frame *out, unsigned cap)
{
    (void)v;
    unsigned k = 0;
    for (unsigned i = 0; i < n && k < cap; i++)
        if (!hpa_symtab_func(ctx->prof->syms, in[i].func)->collector)
            out[k++] = in[i];
    if (k > 0)
        return k;
    for (k = 0; k < n && k < cap; k++)
        out[k] = in[k];
    return k;
}

static const hpa_view views[] = {
    {.name = "user",
     .help = "the program as the user wrote it (OpenMP: issue 4)",
     .transform = hide_collector_frames},
    {.name = "expert",
     .help = "user view plus runtime frames that matter (issue 4)",
     .transform = hide_collector_frames},
    {.name = "machine", .help = "every frame as recorded"},
};

const hpa_view *hpa_view_find(const char *name)
{
    for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
        if (strcmp(views[i].name, name) == 0)
            return &views[i];
    return NULL;
}

const hpa_view *hpa_view_default(void)
{
    return &views[0];
}

const char *hpa_view_names(void)
{
    return "user|expert|machine";
}
