/* The parameters of upsample: parsed by upsample.c, read by its CPU and GPU kernels; the
 * source coordinates both compute with the same code (host and device under CUDA). */
#ifndef SCALEMETER_PLUGINS_UPSAMPLE_H
#define SCALEMETER_PLUGINS_UPSAMPLE_H

#include <stdint.h>

#ifdef __CUDACC__
#define UPSAMPLE_FN static inline __host__ __device__
#else
#define UPSAMPLE_FN static inline
#endif

enum { UPSAMPLE_NEAREST = 0, UPSAMPLE_BILINEAR = 1 };

typedef struct upsample_params {
    int mode;          /* UPSAMPLE_* */
    double scale;      /* > 0: Ho = floor(H scale), Wo = floor(W scale); 0: size */
    int64_t size[2];   /* Ho, Wo where scale is 0 */
    int align_corners; /* bilinear only */
} upsample_params;

/* Source coordinate of output index o along an axis of in -> out elements, as PyTorch's
 * upsample kernels compute it from the sizes (an integer scale gives the same as its factor). */
UPSAMPLE_FN float upsample_source(const upsample_params *p, int64_t o, int64_t in, int64_t out)
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

/* The two input indices and the weight of the second along one axis, for output index o. */
UPSAMPLE_FN void upsample_taps(const upsample_params *p, int64_t o, int64_t in, int64_t out,
                               int64_t *i0, int64_t *i1, float *w1)
{
    float s = upsample_source(p, o, in, out);
    *i0 = (int64_t)s;
    if (*i0 > in - 1)
        *i0 = in - 1;
    *i1 = *i0 + 1 < in ? *i0 + 1 : *i0;
    *w1 = p->mode == UPSAMPLE_BILINEAR ? s - (float)*i0 : 0.0f;
}

#endif /* SCALEMETER_PLUGINS_UPSAMPLE_H */
