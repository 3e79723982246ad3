/* The parameters of select: parsed by select.c, read by its CPU and GPU kernels, with the row
 * both kernels take. */
#ifndef SCALEMETER_PLUGINS_SELECT_H
#define SCALEMETER_PLUGINS_SELECT_H

#include <stdint.h>

#include <scalemeter/kernels.h>

typedef struct select_params {
    int64_t index;
} select_params;

/* The row of each sample's first dimension a layer takes (a negative index counts from the
 * end; infer checked the range). */
static inline int64_t select_row(const sm_layer_io *l)
{
    const select_params *p = l->params;
    return p->index < 0 ? p->index + l->in[0].shape.dim[0] : p->index;
}

#endif /* SCALEMETER_PLUGINS_SELECT_H */
