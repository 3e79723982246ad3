#include "util/precision.h"

#include <string.h>

const char *const sm_precision_names[SM_N_PRECISIONS] = {"fp32", "tf32", "fp16", "bf16"};

int sm_precision_parse(const char *text)
{
    for (int p = 0; p < SM_N_PRECISIONS; p++)
        if (strcmp(text, sm_precision_names[p]) == 0)
            return p;
    return -1;
}
