/*
 * Which GPU a rank measures on, from what each rank of its host sees (cuda_device.c gathers
 * it; no CUDA here, so that tests decide without a GPU):
 *
 *   - the ranks see disjoint devices (srun --gpus-per-task=1, or a CUDA_VISIBLE_DEVICES of
 *     its own per rank): each takes its device 0;
 *   - they all see the same devices (mpirun, srun --gres=gpu:8): local rank i takes device
 *     i, and more ranks than devices is refused, since NCCL refuses two ranks on one GPU and
 *     their timings would mix;
 *   - anything between (two ranks share some of their devices) is refused.
 *
 * A device is named by its PCI bus id, the same whatever CUDA_VISIBLE_DEVICES or Slurm's
 * cgroup renumber. Every rank decides the same from the same views, so that all fail together.
 */
#ifndef SCALEMETER_GPU_CHOICE_H
#define SCALEMETER_GPU_CHOICE_H

#include "scalemeter/scalemeter.h"

#define SM_GPU_VIEW_MAX 16 /* devices of one rank that are compared */

/* The devices one rank sees, in CUDA's order: count (possibly more than are listed) and the
 * PCI bus ids of the first SM_GPU_VIEW_MAX ("0000:3b:00.0"). */
typedef struct sm_gpu_view {
    int count;
    char ids[SM_GPU_VIEW_MAX][20];
} sm_gpu_view;

/* Local rank me of the n ranks of a host, views[i] what local rank i sees: 0 with the
 * device it takes (an index among its own devices), or -1 saying why none (on every rank
 * alike, apart from a rank that sees no device at all). */
int sm_gpu_choose(const sm_gpu_view *views, int n, int me, int *device, sm_status *st);

#endif
