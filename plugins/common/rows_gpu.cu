/*
 * A bias over the rows of a matrix and its gradient, what cuBLAS's products leave to the layers
 * that project rows (linear, lm_head, attention, window_attention, the recurrent types): adding
 * the bias to every row, and the column sums of the output gradient. Rows are ld floats apart.
 */
#include "gpu_launch.cuh"

__global__ void bias_rows_kernel(float *y, int64_t ld, const float *b, int64_t rows, int64_t cols)
{
    SMK_FOR(i, rows * cols)
    y[(i / cols) * ld + i % cols] += b[i % cols];
}

extern "C" cudaError_t smk_bias_rows(float *y, int64_t ld, const float *b, int64_t rows,
                                     int64_t cols, cudaStream_t s)
{
    if (rows > 0 && cols > 0)
        bias_rows_kernel<<<smk_blocks(rows * cols), SMK_THREADS, 0, s>>>(y, ld, b, rows, cols);
    return cudaGetLastError();
}

/* Blocks of 32 columns x 8 rows of threads: a warp reads 32 adjacent columns of one row
 * (coalesced), each thread sums a strided share of the rows, the 8 partial sums of a column
 * meet in shared memory, and each block adds its column sums with one atomicAdd each. */
#define SUM_COLS 32
#define SUM_ROWS 8

__global__ void column_sums_kernel(float *db, const float *dy, int64_t ld, int64_t rows,
                                   int64_t cols)
{
    __shared__ float part[SUM_ROWS][SUM_COLS];
    int64_t c = (int64_t)blockIdx.x * SUM_COLS + threadIdx.x;
    float s = 0;
    if (c < cols)
        for (int64_t r = (int64_t)blockIdx.y * SUM_ROWS + threadIdx.y; r < rows;
             r += (int64_t)gridDim.y * SUM_ROWS)
            s += dy[r * ld + c];
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        for (int k = 1; k < SUM_ROWS; k++)
            s += part[k][threadIdx.x];
        atomicAdd(db + c, s);
    }
}

extern "C" cudaError_t smk_column_sums(float *db, const float *dy, int64_t ld, int64_t rows,
                                       int64_t cols, cudaStream_t s)
{
    if (cols <= 0)
        return cudaSuccess;
    cudaError_t e = cudaMemsetAsync(db, 0, (size_t)cols * sizeof(float), s);
    if (e != cudaSuccess || rows <= 0)
        return e;
    int64_t col_blocks = (cols + SUM_COLS - 1) / SUM_COLS;
    int64_t row_blocks = (rows + 64 * SUM_ROWS - 1) / (64 * SUM_ROWS); /* >= 64 rows a thread */
    dim3 grid((unsigned)col_blocks, (unsigned)(row_blocks > 1024 ? 1024 : row_blocks));
    column_sums_kernel<<<grid, dim3(SUM_COLS, SUM_ROWS), 0, s>>>(db, dy, ld, rows, cols);
    return cudaGetLastError();
}
