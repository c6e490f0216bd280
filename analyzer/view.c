/*
 * view.c - the table of views. Until the OpenMP views land (issue 4), user and expert
 * report the machine view's frames; each will be its own view_<name>.c file.
 */
#include "view.h"

#include <string.h>

static const hpa_view views[] = {
    {.name = "user", .help = "the program as the user wrote it (OpenMP: issue 4)"},
    {.name = "expert", .help = "user view plus runtime frames that matter (issue 4)"},
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
