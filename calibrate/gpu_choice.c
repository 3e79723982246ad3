/* Which GPU a rank takes (gpu_choice.h). */
#include "gpu_choice.h"

#include <string.h>

static int listed(const sm_gpu_view *v)
{
    return v->count < SM_GPU_VIEW_MAX ? v->count : SM_GPU_VIEW_MAX;
}

/* A device both views list, or -1: its index in a. */
static int common(const sm_gpu_view *a, const sm_gpu_view *b)
{
    for (int i = 0; i < listed(a); i++)
        for (int j = 0; j < listed(b); j++)
            if (!strcmp(a->ids[i], b->ids[j]))
                return i;
    return -1;
}

static int same(const sm_gpu_view *a, const sm_gpu_view *b)
{
    if (a->count != b->count)
        return 0;
    for (int i = 0; i < listed(a); i++)
        if (strcmp(a->ids[i], b->ids[i]))
            return 0;
    return 1;
}

int sm_gpu_choose(const sm_gpu_view *views, int n, int me, int *device, sm_status *st)
{
    if (views[me].count < 1)
        return sm_fail(st, "no CUDA device: cudaGetDeviceCount found none");
    int disjoint = 1, identical = 1, a = -1, b = -1, shared = -1;
    for (int i = 0; i < n; i++) {
        identical &= same(&views[i], &views[0]);
        for (int j = i + 1; j < n && disjoint; j++)
            if ((shared = common(&views[i], &views[j])) >= 0) {
                disjoint = 0;
                a = i;
                b = j;
            }
    }
    if (disjoint) { /* the launcher gave each rank its own */
        *device = 0;
        return 0;
    }
    if (identical && n <= views[0].count) {
        *device = me;
        return 0;
    }
    if (identical) /* NCCL refuses two ranks on one GPU ("duplicate GPU") */
        return sm_fail(st,
                       "%d ranks on this host share %d GPU%s: start at most one rank per "
                       "GPU (srun --gpus-per-task=1 gives each rank its own)",
                       n, views[0].count, views[0].count == 1 ? "" : "s");
    return sm_fail(st,
                   "local ranks %d and %d of this host both see GPU %s, with other "
                   "devices (CUDA_VISIBLE_DEVICES): give each rank GPUs of its own, or "
                   "every rank all of them",
                   a, b, views[a].ids[shared]);
}
