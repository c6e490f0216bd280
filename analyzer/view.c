/*
 * view.c - the table of views. The user and expert views (view_omp.c) hide the
 * collector's trampolines and internal functions (thread_start; interposers such as
 * pthread_create or MPI_Send stay, as the functions the program called), the MPI
 * library's frames below an MPI call (the call is a leaf) and the OpenMP runtime's frames, and show
 * OpenMP threads under the construct's call path; the machine view reports frames as recorded, ours
 * included.
 */
#include "view.h"

#include <string.h>

static const hpa_view machine = {.name = "machine", .help = "every frame as recorded"};

static const hpa_view *const views[] = {&hpa_view_omp_user, &hpa_view_omp_expert, &machine};

const hpa_view *hpa_view_find(const char *name)
{
    for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
        if (strcmp(views[i]->name, name) == 0)
            return views[i];
    return NULL;
}

const hpa_load_hooks *hpa_view_load_hooks(void)
{
    return &hpa_view_omp_hooks; /* the only views that need them */
}

const hpa_view *hpa_view_default(void)
{
    return views[0];
}

const char *hpa_view_names(void)
{
    return "user|expert|machine";
}
