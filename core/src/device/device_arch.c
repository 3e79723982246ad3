/* The efficiencies a device description leaves out, from what limits a kernel on its
 * architecture (docs/devices.md): FP32 lanes per SM for work on the CUDA cores, the tensor
 * cores' generation for matrix products at tf32, fp16 and bf16. A description's own
 * compute_efficiency_* keys (written by hand or by `fit --device-out`) always win. */
#include <math.h>
#include <string.h>

#include "device/device_file.h"

/* cuDNN's and cuBLAS's fp32 kernels issue one FMA per lane per clock from each SM
 * sub-partition. On an SM of 64 FP32 lanes (Pascal GP100, Volta, Turing, A100) a warp's FMA
 * takes two clocks, leaving issue slots for loads and address arithmetic: cuBLAS SGEMM reaches
 * about 0.85 of the peak there. The second 64 lanes of Ampere GA10x, Ada, Hopper and
 * Blackwell double the peak but not the issue slots (on GA10x and Ada they are shared with
 * INT32 besides): on H100 eager PyTorch's fp32 convolutions reach 0.76 of the 128-lane peak
 * (`fit --device-out` on ../shared/data/h100), which leaves 0.67 for the second 64 lanes. */
#define FIRST_LANES 64
#define FIRST_LANES_EFFICIENCY 0.85
#define MORE_LANES_EFFICIENCY 0.67

static double fp32_efficiency(int lanes)
{
    if (lanes <= FIRST_LANES)
        return FIRST_LANES_EFFICIENCY;
    return (FIRST_LANES * FIRST_LANES_EFFICIENCY + (lanes - FIRST_LANES) * MORE_LANES_EFFICIENCY) /
           lanes;
}

/* Fractions of the dense tensor-core peak that eager PyTorch's convolutions and matrix
 * products reach, per generation (0: the generation has no such precision). Measured on
 * Hopper (H100: TF32 0.44, `fit --device-out` on ../shared/data/h100) and checked on Ampere
 * and Volta against NVIDIA's published DeepLearningExamples figures (A100 TF32 at 0.3, A100
 * and V100 AMP at 0.7, docs/accuracy.md); Turing takes Volta's, Ada Ampere's and Blackwell
 * Hopper's, whose tensor cores they extend. TF32 and
 * BF16 came with Ampere (A100 whitepaper, "TF32", "BF16"). */
static const struct {
    const char *name;
    double eff[SM_N_PRECISIONS]; /* fp32 unused: the lanes decide */
} generations[] = {
    {"volta", {0, 0, 0.7, 0}},       {"turing", {0, 0, 0.7, 0}},
    {"ampere", {0, 0.3, 0.7, 0.7}},  {"ada", {0, 0.3, 0.7, 0.7}},
    {"hopper", {0, 0.44, 0.7, 0.7}}, {"blackwell", {0, 0.44, 0.7, 0.7}},
};
#define N_GENERATIONS ((int)(sizeof generations / sizeof generations[0]))

static const char *const memory_types[] = {"hbm2", "hbm2e", "hbm3", "hbm3e", "gddr6", "gddr6x"};

int sm_device_arch_defaults(sm_device *dev, const int eff_given[SM_N_PRECISIONS], int memory_given,
                            const int peak_line[SM_N_PRECISIONS], sm_status *st)
{
    (void)memory_given; /* streaming kernels reach 0.7 of HBM3 (H100) and no public
                           measurement here tells the other types apart: the default stays */
    if (dev->memory_type[0]) {
        int known = 0;
        for (size_t k = 0; k < sizeof memory_types / sizeof memory_types[0]; k++)
            known |= !strcmp(dev->memory_type, memory_types[k]);
        if (!known)
            return sm_fail(st,
                           "%s: memory_type = %s: expected hbm2, hbm2e, hbm3, hbm3e, gddr6 "
                           "or gddr6x",
                           dev->path, dev->memory_type);
    }
    /* the FP32 peak is SMs x lanes x 2 FLOP x boost clock: a datasheet figure that is not
     * (beyond its rounding) names the wrong part or clock */
    if (dev->sm_count && dev->fp32_lanes && dev->boost_clock > 0 && dev->peak[SM_FP32] > 0) {
        double derived = dev->sm_count * dev->fp32_lanes * 2.0 * dev->boost_clock;
        if (fabs(dev->peak[SM_FP32] / derived - 1) > 0.03)
            return sm_fail(st,
                           "%s:%d: peak_fp32_tflops = %g is not sm_count x "
                           "fp32_lanes_per_sm x 2 x boost_clock_mhz = %.1f TFLOP/s",
                           dev->path, peak_line[SM_FP32], dev->peak[SM_FP32] / 1e12,
                           derived / 1e12);
    }
    if (dev->fp32_lanes && !eff_given[SM_FP32])
        dev->efficiency[SM_FP32] = fp32_efficiency(dev->fp32_lanes);
    if (!dev->tensor_cores[0])
        return 0;
    if (!strcmp(dev->tensor_cores, "none")) {
        /* fp16 on the CUDA cores (GP100's paired half2 FMA): as fp32 */
        if (peak_line[SM_TF32] || peak_line[SM_BF16])
            return sm_fail(st, "%s:%d: a %s peak without tensor cores (tensor_cores = none)",
                           dev->path, peak_line[SM_TF32] ? peak_line[SM_TF32] : peak_line[SM_BF16],
                           peak_line[SM_TF32] ? "tf32" : "bf16");
        if (!eff_given[SM_FP16])
            dev->efficiency[SM_FP16] = dev->efficiency[SM_FP32];
        return 0;
    }
    for (int g = 0; g < N_GENERATIONS; g++) {
        if (strcmp(dev->tensor_cores, generations[g].name) != 0)
            continue;
        for (int p = SM_TF32; p < SM_N_PRECISIONS; p++) {
            if (generations[g].eff[p] == 0 && peak_line[p])
                return sm_fail(st,
                               "%s:%d: peak_%s_tflops on %s tensor cores, which have no "
                               "%s (it came with Ampere)",
                               dev->path, peak_line[p], sm_precision_names[p], dev->tensor_cores,
                               sm_precision_names[p]);
            if (!eff_given[p] && generations[g].eff[p] > 0)
                dev->efficiency[p] = generations[g].eff[p];
        }
        return 0;
    }
    return sm_fail(st,
                   "%s: tensor_cores = %s: expected none, volta, turing, ampere, ada, hopper "
                   "or blackwell",
                   dev->path, dev->tensor_cores);
}
