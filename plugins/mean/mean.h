/* The parameters of mean: parsed by mean.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_MEAN_H
#define SCALEMETER_PLUGINS_MEAN_H

#include <scalemeter/plugin.h>

typedef struct mean_params {
    int64_t axis; /* of the per-sample shape */
    int keepdim;
} mean_params;

/* The input seen as outer x len x inner, len being the axis averaged over. */
static inline void mean_split(const mean_params *p, const sm_shape *in, int64_t *outer,
                              int64_t *len, int64_t *inner)
{
    *outer = *inner = 1;
    for (int i = 0; i < in->ndim; i++)
        if (i < p->axis)
            *outer *= in->dim[i];
        else if (i > p->axis)
            *inner *= in->dim[i];
    *len = in->dim[p->axis];
}

#endif /* SCALEMETER_PLUGINS_MEAN_H */
