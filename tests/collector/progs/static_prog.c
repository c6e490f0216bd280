/* static_prog.c - a statically linked program (built with -static): exits 4. */
#include <stdio.h>

int main(void)
{
    printf("static\n");
    return 4;
}
