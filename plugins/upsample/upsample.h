/* The parameters of upsample: parsed by upsample.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_UPSAMPLE_H
#define SCALEMETER_PLUGINS_UPSAMPLE_H

#include <stdint.h>

enum { UPSAMPLE_NEAREST = 0, UPSAMPLE_BILINEAR = 1 };

typedef struct upsample_params {
    int mode;          /* UPSAMPLE_* */
    double scale;      /* > 0: Ho = floor(H scale), Wo = floor(W scale); 0: size */
    int64_t size[2];   /* Ho, Wo where scale is 0 */
    int align_corners; /* bilinear only */
} upsample_params;

/* Source coordinate of output index o along an axis of in -> out elements, as PyTorch's
 * upsample kernels compute it from the sizes (an integer scale gives the same as its factor). */
static inline float upsample_source(const upsample_params *p, int64_t o, int64_t in, int64_t out)
{
    if (p->mode == UPSAMPLE_NEAREST) {
        int64_t i = (int64_t)((float)o * ((float)in / (float)out));
        return (float)(i < in - 1 ? i : in - 1);
    }
    if (p->align_corners)
        return out > 1 ? (float)o * (float)(in - 1) / (float)(out - 1) : 0.0f;
    float s = ((float)o + 0.5f) * ((float)in / (float)out) - 0.5f;
    return s < 0 ? 0.0f : s;
}

#endif /* SCALEMETER_PLUGINS_UPSAMPLE_H */
