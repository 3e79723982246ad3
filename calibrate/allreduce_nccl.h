/*
 * ncclAllReduce as one more implementation of the all-reduce benchmark (allreduce.h; listed in
 * allreduce_impls.c where CUDA, cuDNN and NCCL were found). Each rank's buffer lives on its own
 * GPU (cuda_device.h picks it), a run only enqueues the all-reduce on the rank's stream, and
 * wait synchronises that stream, so the driver times what NCCL's own tests time.
 */
#ifndef SCALEMETER_ALLREDUCE_NCCL_H
#define SCALEMETER_ALLREDUCE_NCCL_H

#include "allreduce.h"

int sm_nccl_impl_open(void **ctx, size_t max_count, MPI_Comm comm, const sm_allreduce_options *opt,
                      sm_status *st);
int sm_nccl_impl_load(void *ctx, const float *host, size_t count, sm_status *st);
int sm_nccl_impl_run(void *ctx, size_t count, sm_status *st);
int sm_nccl_impl_wait(void *ctx, sm_status *st);
int sm_nccl_impl_store(void *ctx, float *host, size_t count, sm_status *st);
void sm_nccl_impl_close(void *ctx);

#endif
