/* The efficiencies a device description leaves out, from what limits a kernel on its
 * architecture (docs/devices.md): FP32 lanes per SM for work on the CUDA cores, the tensor
 * cores' generation for matrix products at tf32, fp16 and bf16, and the memory type's
 * achievable fraction of the bandwidth. A description's own compute_efficiency_* and
 * memory_efficiency keys (written by hand or by `fit --device-out`) always win. */
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

/* Fractions of the datasheet bandwidth that streaming kernels reach, per memory type. HBM3's
 * 0.7 is measured (streaming kernels on H100, `fit --device-out` on ../shared/data/h100: 0.687).
 * The others scale it by one public source's copy kernel (chsasank/device-benchmarks,
 * torch copy_ of 2 x 380 MB, read + write counted): HBM 0.79 (V100 HBM2 766/900 GB/s, A100
 * 80GB HBM2e 1490/2039), GDDR6 0.77 (T4 240/320, A10 469/600), GDDR6X 0.87 (RTX 3090
 * 831/936, RTX 4090 912/1008, RTX 4070 Super 411/504). Its one HBM2 and one HBM2e part do
 * not tell those generations apart (0.85 and 0.73 or 0.77, the A100's form not given), so
 * the HBM types share H100's figure; GDDR6 takes 0.7 x 0.77 / 0.79, GDDR6X 0.7 x 0.87 / 0.79. */
static const struct {
    const char *name;
    double efficiency;
} memory_types[] = {{"hbm2", 0.7},  {"hbm2e", 0.7},  {"hbm3", 0.7},
                    {"hbm3e", 0.7}, {"gddr6", 0.68}, {"gddr6x", 0.77}};
#define N_MEMORY_TYPES ((int)(sizeof memory_types / sizeof memory_types[0]))

int sm_device_arch_defaults(sm_device *dev, const int eff_given[SM_N_PRECISIONS], int memory_given,
                            const int peak_line[SM_N_PRECISIONS], sm_status *st)
{
    if (dev->memory_type[0]) {
        int m = 0;
        while (m < N_MEMORY_TYPES && strcmp(dev->memory_type, memory_types[m].name) != 0)
            m++;
        if (m == N_MEMORY_TYPES)
            return sm_fail(st,
                           "%s: memory_type = %s: expected hbm2, hbm2e, hbm3, hbm3e, gddr6 "
                           "or gddr6x",
                           dev->path, dev->memory_type);
        if (!memory_given)
            dev->memory_efficiency = memory_types[m].efficiency;
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
    if (dev->tensor_cores[0] && !strcmp(dev->tensor_cores, "none")) {
        /* fp16 on the CUDA cores (GP100's paired half2 FMA): as fp32 */
        if (peak_line[SM_TF32] || peak_line[SM_BF16])
            return sm_fail(st, "%s:%d: a %s peak without tensor cores (tensor_cores = none)",
                           dev->path, peak_line[SM_TF32] ? peak_line[SM_TF32] : peak_line[SM_BF16],
                           peak_line[SM_TF32] ? "tf32" : "bf16");
        if (!eff_given[SM_FP16])
            dev->efficiency[SM_FP16] = dev->efficiency[SM_FP32];
    } else if (dev->tensor_cores[0]) {
        int g = 0;
        while (g < N_GENERATIONS && strcmp(dev->tensor_cores, generations[g].name) != 0)
            g++;
        if (g == N_GENERATIONS)
            return sm_fail(st,
                           "%s: tensor_cores = %s: expected none, volta, turing, ampere, ada, "
                           "hopper or blackwell",
                           dev->path, dev->tensor_cores);
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
    }
    return 0;
}
