/* Parameters of window_partition: parsed by window_partition.c, read by its CPU and GPU kernels,
 * with the index both kernels share (also compiled as device code by window_partition_gpu.cu). */
#ifndef SCALEMETER_PLUGINS_WINDOW_PARTITION_H
#define SCALEMETER_PLUGINS_WINDOW_PARTITION_H

#include <stdint.h>

#ifdef __CUDACC__
#define PARTITION_HD __host__ __device__
#else
#define PARTITION_HD
#endif

typedef struct partition_params {
    int64_t p; /* the window's side */
} partition_params;

/* Where pixel (y, x) of a C x H x W sample goes in its G x (P P) x C windows, window g =
 * (y / P)(W / P) + x / P, pixel k = (y % P) P + x % P: the offset of its channel 0; its channels
 * follow one apart. */
static inline PARTITION_HD int64_t partition_at(int64_t y, int64_t x, int64_t w, int64_t p,
                                                int64_t c)
{
    int64_t g = (y / p) * (w / p) + x / p, k = (y % p) * p + x % p;
    return (g * p * p + k) * c;
}

#endif /* SCALEMETER_PLUGINS_WINDOW_PARTITION_H */
