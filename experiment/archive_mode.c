/*
 * archive_mode.c - the words of -a (enum hpc_archive_mode), as gprofng's collect and
 * gp-archive take them.
 */
#include <string.h>

#include "experiment.h"

static const struct {
    const char *word;
    unsigned mode;
} modes[] = {
    {"off", HPC_ARCHIVE_OFF},
    {"ldobjects", HPC_ARCHIVE_OBJECTS},
    {"src", HPC_ARCHIVE_OBJECTS | HPC_ARCHIVE_SOURCES},
    {"usedldobjects", HPC_ARCHIVE_OBJECTS | HPC_ARCHIVE_USED},
    {"usedsrc", HPC_ARCHIVE_OBJECTS | HPC_ARCHIVE_SOURCES | HPC_ARCHIVE_USED},
    {"on", HPC_ARCHIVE_OBJECTS | HPC_ARCHIVE_SOURCES}, /* after src: the name of the mode */
};

const char *hpc_archive_mode_name(unsigned mode)
{
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (modes[i].mode == mode)
            return modes[i].word;
    return "?";
}

int hpc_archive_mode_parse(const char *word)
{
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(modes[i].word, word))
            return (int)modes[i].mode;
    return -1;
}
