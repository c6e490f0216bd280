/*
 * view.h - stack transforms between recorded frames and reported frames (--view).
 *
 * A view rewrites one call stack (root first, symbolized) before any report sums it.
 * The machine view reports frames as recorded. The OpenMP user and expert views
 * (issue 4) plug in here: they may drop runtime frames, splice the encountering thread's
 * stack above a worker's outlined function, or add pseudo frames such as <OMP-wait>
 * from the sample's state (ctx->bucket->state). Views never see individual samples.
 */
#ifndef HPA_VIEW_H
#define HPA_VIEW_H

#include "profile.h"

typedef struct hpa_view {
    const char *name;
    const char *help;
    /*
     * Rewrite in[0..n) into out (cap entries; cap >= 2 * n + 8). Returns the number of
     * frames written. NULL: frames are reported as recorded.
     */
    unsigned (*transform)(const struct hpa_view *v, const hpa_path_ctx *ctx, const hpa_frame *in,
                          unsigned n, hpa_frame *out, unsigned cap);
} hpa_view;

/* The OpenMP views (view_omp.c), and what they need of loading. */
extern const hpa_view hpa_view_omp_user, hpa_view_omp_expert;
extern const hpa_load_hooks hpa_view_omp_hooks;

/* The load hooks of all views, for hpa_profile_load. */
const hpa_load_hooks *hpa_view_load_hooks(void);

/* The view named name ("user", "expert", "machine"), or NULL. */
const hpa_view *hpa_view_find(const char *name);
/* The default view. */
const hpa_view *hpa_view_default(void);
/* Names of all views, for --help: "user|expert|machine". */
const char *hpa_view_names(void);

#endif
