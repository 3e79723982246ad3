/*
 * The geometry of a row normalisation, shared by layernorm, groupnorm and rmsnorm, by their CPU
 * kernels, their GPU host code and the CUDA kernels all three run (norm_rows_gpu.cu): `rows`
 * rows of `len` values, each normalised on its own (centred: y = (x - mean) rstd, else
 * y = x rstd with rstd = 1 / sqrt(mean(x^2) + eps)), then scaled by gamma and shifted by beta.
 *
 *   layernorm   a row is the last dims of a sample (stride 1), or with channels=true the C
 *               values of one pixel (stride H W); a gamma per value of the row
 *   groupnorm   a row is one group of C / groups channels of a sample (stride 1); a gamma per
 *               channel, so seg = spatial consecutive values share one
 *   rmsnorm     a row is the last dim (stride 1), not centred; a gamma per value, no beta
 *
 * Plain C, and host and device code under nvcc, so every side computes one layout.
 */
#ifndef SCALEMETER_PLUGINS_NORM_ROWS_H
#define SCALEMETER_PLUGINS_NORM_ROWS_H

#include <stdint.h>

#ifdef __CUDACC__
#define NORM_ROWS_FN static inline __host__ __device__
#else
#define NORM_ROWS_FN static inline
#endif

typedef struct norm_rows {
    int64_t rows;       /* normalised on their own: batch x per_sample */
    int64_t len;        /* values per row */
    int64_t stride;     /* between a row's values: 1, or the spatial size (layernorm channels) */
    int64_t per_sample; /* rows per sample */
    int64_t sample;     /* values per sample */
    int64_t seg;        /* consecutive values of a row that share one gamma and beta */
    int64_t groups;     /* row r's first gamma is (r % groups) (len / seg) */
    int centred;        /* subtract the mean (layernorm, groupnorm); rmsnorm does not */
} norm_rows;

/* Offset of the first value of row r: rows are contiguous with stride 1; with a stride, row
 * i of a sample starts at its i-th value. */
NORM_ROWS_FN int64_t norm_rows_base(const norm_rows *g, int64_t r)
{
    return g->stride == 1 ? r * g->len : r / g->per_sample * g->sample + r % g->per_sample;
}

/* The gamma (and beta) of value i of row r. */
NORM_ROWS_FN int64_t norm_rows_param(const norm_rows *g, int64_t r, int64_t i)
{
    return (r % g->groups) * (g->len / g->seg) + i / g->seg;
}

/* gammas (and betas) in all: one per value of a row, or one per channel (groupnorm). */
NORM_ROWS_FN int64_t norm_rows_params(const norm_rows *g) { return g->groups * (g->len / g->seg); }

/* Floats of state per row, written by a training forward: the mean and rstd, or rstd alone. */
NORM_ROWS_FN int64_t norm_rows_stats(const norm_rows *g) { return g->centred ? 2 : 1; }

#endif
