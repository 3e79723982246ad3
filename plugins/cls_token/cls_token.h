/* The parameters of cls_token: parsed by cls_token.c, with the initial token its CPU and GPU
 * kernels share. */
#ifndef SCALEMETER_PLUGINS_CLS_TOKEN_H
#define SCALEMETER_PLUGINS_CLS_TOKEN_H

#include <string.h>

#include <scalemeter/kernels.h>

typedef struct cls_token_params {
    int unused; /* no parameters; the host allocates params_size bytes */
} cls_token_params;

/* The token starts at 0, as torchvision's VisionTransformer initialises class_token. */
static inline void cls_token_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    memset(w, 0, (size_t)l->n_w * sizeof *w);
}

#endif /* SCALEMETER_PLUGINS_CLS_TOKEN_H */
