/* Files the library reads may come on the standard input: "-" names it on a command line. */
#include <stdio.h>
#include <string.h>

#include "util/util.h"

FILE *sm_input_open(const char **path)
{
    if (strcmp(*path, "-") != 0)
        return fopen(*path, "r");
    *path = "<stdin>"; /* what messages call it */
    return stdin;
}

void sm_input_close(FILE *f)
{
    if (f && f != stdin)
        fclose(f);
}
