/* Which GPU a rank takes (calibrate/gpu_choice.c), from what the ranks of a host see, without
 * a GPU: 8 ranks under srun --gpus-per-task=1 (one device each, distinct bus ids) take their
 * device 0 where the old check refused "8 ranks on this host share 1 GPU"; mpirun's ranks over
 * the same devices take one each; too many ranks, and ranks that share some devices, are
 * refused on every rank. */
#include <stdio.h>

#include "check.h"
#include "gpu_choice.h"

/* A view of count devices whose bus ids are 0000:NN:00.0 for NN = first, first+1, ... */
static sm_gpu_view view(int count, int first)
{
    sm_gpu_view v = {count, {{0}}};
    for (int i = 0; i < count && i < SM_GPU_VIEW_MAX; i++)
        snprintf(v.ids[i], sizeof v.ids[i], "0000:%02x:00.0", first + i);
    return v;
}

int main(void)
{
    sm_gpu_view v[20];
    sm_status st = {""};
    int device = -1;

    /* srun --gpus-per-task=1 -n 8: each rank its own device, renumbered 0 */
    for (int i = 0; i < 8; i++)
        v[i] = view(1, 0x10 + i);
    for (int me = 0; me < 8; me++) {
        device = -1;
        CHECK_EQ(sm_gpu_choose(v, 8, me, &device, &st), 0);
        CHECK_EQ(device, 0);
    }
    /* --gpus-per-task=2: 4 ranks with 2 devices each, device 0 of their own */
    for (int i = 0; i < 4; i++)
        v[i] = view(2, 0x10 + 2 * i);
    CHECK_EQ(sm_gpu_choose(v, 4, 3, &device, &st), 0);
    CHECK_EQ(device, 0);

    /* mpirun -np 4 on a host of 8: all see the same 8; local rank i takes device i */
    for (int i = 0; i < 4; i++)
        v[i] = view(8, 0x10);
    for (int me = 0; me < 4; me++) {
        CHECK_EQ(sm_gpu_choose(v, 4, me, &device, &st), 0);
        CHECK_EQ(device, me);
    }
    /* one rank alone on a host of 2: device 0 */
    v[0] = view(2, 0x10);
    CHECK_EQ(sm_gpu_choose(v, 1, 0, &device, &st), 0);
    CHECK_EQ(device, 0);

    /* 8 ranks all seeing the same one device: refused, on every rank */
    for (int i = 0; i < 8; i++)
        v[i] = view(1, 0x10);
    for (int me = 0; me < 8; me += 7) {
        CHECK_EQ(sm_gpu_choose(v, 8, me, &device, &st), -1);
        CHECK_STR_EQ(st.msg, "8 ranks on this host share 1 GPU: start at most one rank per GPU "
                             "(srun --gpus-per-task=1 gives each rank its own)");
    }
    /* 3 ranks over 2 shared devices */
    for (int i = 0; i < 3; i++)
        v[i] = view(2, 0x10);
    CHECK_EQ(sm_gpu_choose(v, 3, 1, &device, &st), -1);
    CHECK(strstr(st.msg, "3 ranks on this host share 2 GPUs") == st.msg);

    /* partly shared: ranks 0 and 1 see devices 10,11 and 11,12; rank 2 its own 13 */
    v[0] = view(2, 0x10);
    v[1] = view(2, 0x11);
    v[2] = view(1, 0x13);
    for (int me = 0; me < 3; me++) {
        CHECK_EQ(sm_gpu_choose(v, 3, me, &device, &st), -1);
        CHECK_STR_EQ(st.msg, "local ranks 0 and 1 of this host both see GPU 0000:11:00.0, with "
                             "other devices (CUDA_VISIBLE_DEVICES): give each rank GPUs of its "
                             "own, or every rank all of them");
    }

    /* a rank that sees no device fails; the others keep theirs (agree() fails them after) */
    v[0] = view(1, 0x10);
    v[1] = view(0, 0);
    CHECK_EQ(sm_gpu_choose(v, 2, 1, &device, &st), -1);
    CHECK_STR_EQ(st.msg, "no CUDA device: cudaGetDeviceCount found none");
    CHECK_EQ(sm_gpu_choose(v, 2, 0, &device, &st), 0);
    CHECK_EQ(device, 0);

    /* more devices than are compared: the first SM_GPU_VIEW_MAX decide */
    v[0] = view(20, 0x10);
    v[1] = view(20, 0x10);
    CHECK_EQ(sm_gpu_choose(v, 2, 1, &device, &st), 0);
    CHECK_EQ(device, 1);
    return check_summary();
}
