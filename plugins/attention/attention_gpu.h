/*
 * The CUDA kernels of attention (attention_gpu.cu): the masked softmax of the scores with the
 * relative position bias, and its backward pass (the projections' bias: gpu_ops.h). C
 * launchers for attention_gpu.c; each enqueues its kernel on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_ATTENTION_GPU_H
#define SCALEMETER_PLUGINS_ATTENTION_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The scores of every head, rows = sequences x h x S rows of M, in the state's layout (the row
 * of query i of head `head` of sequence t is (t h + head) S + i). */
typedef struct smk_attn_rows {
    int64_t rows, s, m, h;
    int64_t win; /* rel_pos W: table is (2W - 1)^2 x h; 0: no table */
    int causal;  /* row i keeps columns j <= i (M = S) */
} smk_attn_rows;

/* In place, each row of p: p = softmax(p + B) over its unmasked columns, masked ones 0; B the
 * table's entry for (i, j) and the row's head (table NULL: none). */
cudaError_t smk_attn_softmax(float *p, const float *table, smk_attn_rows r, cudaStream_t s);
/* In place, dp (the gradient of P) into that of the scores, dS = P (dP - rowsum(dP P)); with
 * dtable (not NULL) dS also summed into the table's gradient with atomicAdd (the caller zeroes
 * it first). */
cudaError_t smk_attn_softmax_backward(float *dp, const float *p, float *dtable, smk_attn_rows r,
                                      cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
