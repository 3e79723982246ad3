/* Parameters of window_departition: parsed by window_departition.c, read by its CPU and GPU
 * kernels, with the index both kernels share (also compiled as device code by
 * window_departition_gpu.cu). */
#ifndef SCALEMETER_PLUGINS_WINDOW_DEPARTITION_H
#define SCALEMETER_PLUGINS_WINDOW_DEPARTITION_H

#include <stdint.h>

#ifdef __CUDACC__
#define DEPARTITION_HD __host__ __device__
#else
#define DEPARTITION_HD
#endif

typedef struct departition_params {
    int64_t p;      /* the window's side */
    int64_t hp, wp; /* windows down and across */
} departition_params;

/* Where pixel (y, x) of the C x (h P) x (w P) output comes from in its G x (P P) x C windows,
 * window g = (y / P) w + x / P, pixel k = (y % P) P + x % P: the offset of its channel 0; its
 * channels follow one apart. */
static inline DEPARTITION_HD int64_t departition_at(const departition_params *p, int64_t y,
                                                    int64_t x, int64_t c)
{
    int64_t g = (y / p->p) * p->wp + x / p->p, k = (y % p->p) * p->p + x % p->p;
    return (g * p->p * p->p + k) * c;
}

#endif /* SCALEMETER_PLUGINS_WINDOW_DEPARTITION_H */
