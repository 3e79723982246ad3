/* What patch_merge's CPU and GPU kernels share: the input pixel of each output block (also
 * compiled as device code by patch_merge_gpu.cu). */
#ifndef SCALEMETER_PLUGINS_PATCH_MERGE_H
#define SCALEMETER_PLUGINS_PATCH_MERGE_H

#include <stdint.h>

#ifdef __CUDACC__
#define MERGE_HD __host__ __device__
#else
#define MERGE_HD
#endif

/* Channel block q (0 to 3) of output pixel (i, j) is input pixel (*y, *x) = (2i + dh, 2j + dw),
 * (dh, dw) = (0,0), (1,0), (0,1), (1,1): x[0::2, 0::2], x[1::2, 0::2], x[0::2, 1::2],
 * x[1::2, 1::2]. 1 when inside the H x W input, 0 where it is padding (odd H or W). */
static inline MERGE_HD int merge_source(int64_t i, int64_t j, int q, int64_t h, int64_t w,
                                        int64_t *y, int64_t *x)
{
    *y = 2 * i + (q & 1);
    *x = 2 * j + (q >> 1);
    return *y < h && *x < w;
}

#endif /* SCALEMETER_PLUGINS_PATCH_MERGE_H */
