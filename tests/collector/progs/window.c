/* window.c - burn SECONDS (default 1.2) of CPU in one thread, for -t windows. */
#include <stdlib.h>

#include "burn.h"

int main(int argc, char **argv)
{
    burn_cpu(argc > 1 ? atof(argv[1]) : 1.2);
    return 0;
}
