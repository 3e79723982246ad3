/*
 * Small helpers shared by the CPU kernels of the plugins (plugins/NAME/NAME_cpu.c): vectorised
 * sums, column sums, the dropout hash, initial weight scaling, buffer sizes. Header-only and
 * static, so every plugin stays one self-contained shared object. Geometry (elements, dims) is
 * kernels.h's, for both backends.
 */
#ifndef SCALEMETER_PLUGINS_CPU_UTIL_H
#define SCALEMETER_PLUGINS_CPU_UTIL_H

#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <scalemeter/kernels.h>

/* Sums with 8 partial sums, one per SIMD lane: the compiler may not reorder a float sum
 * itself, so a plain loop runs one addition at a time; this one vectorises. */
static inline float cpu_dot(const float *restrict a, const float *restrict b, int64_t n)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            acc[k] += a[i + k] * b[i + k];
    float s = 0;
    for (; i < n; i++)
        s += a[i] * b[i];
    return s + ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

static inline float cpu_sum(const float *restrict a, int64_t n)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            acc[k] += a[i + k];
    float s = 0;
    for (; i < n; i++)
        s += a[i];
    return s + ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/* sum of (a[i] - c)^2 */
static inline float cpu_sq_dev(const float *restrict a, float c, int64_t n)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            acc[k] += (a[i + k] - c) * (a[i + k] - c);
    float s = 0;
    for (; i < n; i++)
        s += (a[i] - c) * (a[i] - c);
    return s + ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/* sum of a[i] (b[i] - c) */
static inline float cpu_dot_dev(const float *restrict a, const float *restrict b, float c,
                                int64_t n)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            acc[k] += a[i + k] * (b[i + k] - c);
    float s = 0;
    for (; i < n; i++)
        s += a[i] * (b[i] - c);
    return s + ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/* y += a x */
static inline void cpu_axpy(float *restrict y, const float *restrict x, float a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* Bytes of a count of floats, for work_size and state_size: SIZE_MAX when the count overflowed
 * (sm_mul saturates) or the bytes do not fit in a size_t (kernels.h: more than addressable). */
/* Row-wise softmax of a rows x cols matrix of scores, in place; causal: row i keeps its first
 * i + 1 entries and the rest become 0 (a decoder's mask, cols = rows). */
static inline void cpu_softmax_rows(float *a, int64_t rows, int64_t cols, int causal)
{
    for (int64_t i = 0; i < rows; i++) {
        float *row = a + i * cols;
        int64_t len = causal ? i + 1 : cols;
        float mx = row[0];
        for (int64_t j = 1; j < len; j++)
            mx = row[j] > mx ? row[j] : mx;
        float sum = 0;
        for (int64_t j = 0; j < len; j++)
            sum += row[j] = expf(row[j] - mx);
        for (int64_t j = 0; j < len; j++)
            row[j] /= sum;
        for (int64_t j = len; j < cols; j++)
            row[j] = 0;
    }
}

static inline size_t cpu_float_bytes(int64_t floats)
{
    int64_t bytes = sm_mul(floats, (int64_t)sizeof(float));
    return bytes == SM_OVERFLOW || (uint64_t)bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

/* din += dout, element by element: the backward pass of every layer that copies its input. */
static inline void cpu_accumulate(float *restrict din, const float *restrict dout, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        din[i] += dout[i];
}

/* out[j] = sum over the rows of m[i ld + j], j < cols: a bias's gradient (summed in row order,
 * so the same every run). */
static inline void cpu_column_sums(const float *m, int64_t rows, int64_t cols, int64_t ld,
                                   float *out)
{
    memset(out, 0, (size_t)cols * sizeof *out);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            out[j] += m[i * ld + j];
}

/* A counter-based random number (splitmix64 of seed and index): the same mask for the same seed
 * and element, with no state to carry. */
static inline uint64_t cpu_hash(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Scales the host's uniform [-1, 1) weights to U(-bound, bound): PyTorch's default for
 * convolutions and linear layers, bound = 1 / sqrt(fan_in) (kaiming_uniform_ with a = sqrt(5)). */
static inline void cpu_scale(float *w, int64_t n, float bound)
{
    for (int64_t i = 0; i < n; i++)
        w[i] *= bound;
}

#endif
