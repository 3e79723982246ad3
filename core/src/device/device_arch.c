/* The efficiencies a device description leaves out, from what limits a kernel on its
 * architecture (docs/devices.md): FP32 lanes per SM for work on the CUDA cores, the tensor
 * cores' generation for matrix products at tf32, fp16 and bf16, the clock the part sustains
 * under its power limit, and the memory type's achievable fraction of the bandwidth. A
 * description's own compute_efficiency_* and memory_efficiency keys (written by hand or by
 * `fit --device-out`) always win. */
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

/* Fractions of the dense tensor-core peak that eager PyTorch's matrix products (eff) and
 * convolutions (conv) reach, per generation (0: the generation has no such precision).
 * Measured on Hopper (H100) and checked on Ampere and Volta against NVIDIA's published
 * DeepLearningExamples figures (A100 and V100 AMP at 0.7, docs/accuracy.md); Turing takes
 * Volta's, Ada Ampere's and Blackwell Hopper's, whose tensor cores they extend. TF32 and BF16
 * came with Ampere (A100 whitepaper, "TF32", "BF16").
 *
 * eff: cuBLAS's matrix products reach the same fraction of the TF32 peak as of the FP16 peak:
 * 403.7 of H100's 494.7 TFLOPS (0.82) against 761.8 of 989.4 (0.77) for large fp32 (TF32) and
 * fp16 products (zzc0721/torch-performance-test-data, database.md), and BERT trained in fp32
 * (TF32) runs at 0.45-0.50 of its fp16 speed on A10, A100, RTX 4090 and H100 alike, whose
 * TF32 peak is half their FP16 peak (Lambda's DeepLearningExamples runs,
 * docs/accuracy-gpus.md): one fraction for both.
 *
 * conv: where a generation's convolutions reach less than its matrix products. At TF32,
 * cuDNN's convolutions reach 0.28 of the A100's peak (NVIDIA's ResNet-50, ResNeXt101 and
 * SE-ResNeXt101 TF32 figures on one A100 come out at 1.01-1.04 of the published rate,
 * docs/accuracy.md; 0.3 before plain element-wise kernels streamed at their own fraction,
 * below) and 0.44 of the H100's (`fit --device-out` on ../shared/data/h100's
 * eager CNN runs). At fp16 and bf16, Hopper doubled the tensor cores' rate per SM over Ampere
 * (4096 dense fp16 FLOP per clock against 2048: 989.4 TFLOPS = 132 x 4096 x 1.83 GHz, 312 =
 * 108 x 2048 x 1.41) but not the shared memory and L2 bandwidth that feed cuDNN's
 * implicit-GEMM convolutions, whose reductions over 64 to 512 channels x 1 or 9 taps are
 * short beside a transformer's. Two independent sources put them at about a third of the
 * bf16 peak: `fit --device-out` on ../shared/data/h100's eager bf16 CNN runs (0.345), and
 * NVIDIA's fused MLPerf ResNet-50 on H100 and H200, whose step times (55.9 and 50.3 ms at
 * batch 400, docs/accuracy.md) differ by 1.11 for 1.43 times the memory bandwidth, so that
 * most of the step is the SMs' (0.35 predicts 55.1 and 45.6 ms, 0.7 46.0 and 35.0). GA100's
 * convolutions fall between: NVIDIA's fused MLPerf ResNet-50 on A100 SXM and A100 PCIe
 * (v2.1-v4.0, 15 systems, docs/accuracy.md) ran 1.17-1.20 times slower than at 0.7, 0.96-1.06
 * at 0.5: 1,024 FLOP a SM clock, where Hopper's 0.35 are 1,325 at its boost clock (the
 * H100's larger shared memory and its tensor memory accelerator feed more).
 *
 * conv_rate: dense tensor FLOP per SM per boost clock at each precision of the part the conv
 * fractions were measured on (A100 SXM: 312 TFLOPS / (108 x 1.41 GHz) = 2,049 at fp16 and
 * bf16, half at TF32; H100 SXM: 989.4 / (132 x 1.98) = 3,786). A part whose tensor cores do
 * less per SM and clock at a precision has the feed to spare: its convolutions reach conv x
 * conv_rate / its own rate, at most its matrix products' fraction. GA102's (A10, RTX A6000:
 * 1,024 at fp16; datasheets' dense peaks) reach 0.7 so, as their matrix products do, where
 * the A100's reach 0.5, and 0.56 at TF32 where the A100's reach 0.28; a part of a higher rate
 * (B200) keeps its generation's fraction. */
static const struct {
    const char *name;
    double eff[SM_N_PRECISIONS];       /* fp32 unused: the lanes decide */
    double conv[SM_N_PRECISIONS];      /* 0: as eff */
    double conv_rate[SM_N_PRECISIONS]; /* 0: conv whatever the part's rate */
} generations[] = {
    {"volta", {0, 0, 0.7, 0}, {0}, {0}},
    {"turing", {0, 0, 0.7, 0}, {0}, {0}},
    {"ampere", {0, 0.7, 0.7, 0.7}, {0, 0.28, 0.5, 0.5}, {0, 1024.6, 2049, 2049}},
    {"ada", {0, 0.7, 0.7, 0.7}, {0, 0.28, 0, 0}, {0}},
    {"hopper", {0, 0.7, 0.7, 0.7}, {0, 0.44, 0.35, 0.35}, {0, 1893, 3786, 3786}},
    {"blackwell", {0, 0.7, 0.7, 0.7}, {0, 0.44, 0.35, 0.35}, {0, 1893, 3786, 3786}},
};
#define N_GENERATIONS ((int)(sizeof generations / sizeof generations[0]))

/* Fractions of the datasheet bandwidth that memory-bound kernels reach, per memory type:
 * efficiency, every such kernel of a step (batch norms, poolings, reductions, copies), and
 * stream, a plain element-wise one (an activation, a residual addition: one vectorised read of
 * each input, one write), which reaches more.
 *
 * efficiency: HBM3's 0.7 is measured (memory-bound kernels on H100, `fit --device-out` on
 * ../shared/data/h100: 0.687).
 * The others scale it by one public source's copy kernel (chsasank/device-benchmarks,
 * torch copy_ of 2 x 380 MB, read + write counted): HBM 0.79 (V100 HBM2 766/900 GB/s, A100
 * 80GB HBM2e 1490/2039), GDDR6 0.77 (T4 240/320, A10 469/600), GDDR6X 0.87 (RTX 3090
 * 831/936, RTX 4090 912/1008, RTX 4070 Super 411/504). Its one HBM2 and one HBM2e part do
 * not tell those generations apart (0.85 and 0.73 or 0.77, the A100's form not given), so
 * the HBM types share H100's figure; GDDR6 takes 0.7 x 0.77 / 0.79, GDDR6X 0.7 x 0.87 / 0.79.
 *
 * stream: PyTorch's vectorised element-wise kernels on fp32 tensors of 256 MB and more, each
 * timed alone with CUDA events, in NeuSight's training set (tests/data/neusight/streams.csv,
 * docs/ops-neusight.md): 0.88 of the datasheet on a V100 PCIe (HBM2), 0.83 on an A100 PCIe 40
 * GB (HBM2, GA100's controllers, which its 80 GB HBM2e parts share), 0.73 on a T4 (GDDR6),
 * 0.72 on a P100 (HBM2 behind Pascal's controllers: its description says so). GDDR6 beside the
 * T4 and GDDR6X take the copy kernels above (0.77, 0.87); HBM3 and HBM3e what an H100's and
 * an H200's profiled ReLUs and residual additions over tensors of 100 MiB or more reached,
 * 0.91 and 0.89 (tools/stream_rates.py, each kernel timed). On an H100 the whole-step 0.7 was
 * fitted with element-wise kernels inside it, so the Hopper and Blackwell descriptions state
 * stream_efficiency = memory_efficiency until issue 38's refit takes them apart. */
static const struct {
    const char *name;
    double efficiency, stream;
} memory_types[] = {{"hbm2", 0.7, 0.88},  {"hbm2e", 0.7, 0.83},  {"hbm3", 0.7, 0.91},
                    {"hbm3e", 0.7, 0.89}, {"gddr6", 0.68, 0.77}, {"gddr6x", 0.77, 0.87}};
#define N_MEMORY_TYPES ((int)(sizeof memory_types / sizeof memory_types[0]))

/* The sustained clock under dense tensor and FP32 work: the board holds its power limit P
 * with a static part (leakage, memory, board) and a dynamic part C V^2 f, V rising with f
 * in the DVFS range, so P = N_SM (s + k f^3) per SM (f in GHz) below the boost clock.
 * Hopper's s and k come from two parts at their limits: H100 SXM at 700 W holds 1830 MHz
 * (132 SMs; the clock NVIDIA's dense tensor peak is quoted at: 989.4 TFLOPS = 132 x 4096
 * FLOP x 1.83 GHz, H100 whitepaper) and H100 PCIe at 350 W 1390 MHz (114 SMs; measured under
 * load: 1395 MHz, Chips and Cheese, "Nvidia's H100: Funny L2, and Tons of Bandwidth", 2023;
 * 1384 MHz average, reanimator/bee benchmark-clock-calibration.md). That puts 25% of the
 * SXM's 700 W in the static part; a generation with one measured point takes that share:
 * A100 SXM at 400 W holds 1305 MHz under DGEMM (108 SMs; the clock NVIDIA's HPL Rpeak takes,
 * glennklockwood.com/garden/peak-FLOPS), T4 at 70 W about 900 MHz (40 SMs;
 * mlcommons/inference_results_v0.5#20, nvidia-smi under load). The Ampere model puts the
 * A10 (72 SMs, 150 W) at 974 MHz; its measured cuBLAS fp16 54-56 of 125 TFLOPS (chsasank/
 * device-benchmarks) at H100's 0.79 of the peak at a held clock says about 950. Ada's s and k
 * come from two parts as Hopper's do, each clock from its cuBLAS products' fraction of the
 * peak over the H100 SXM's 0.79 (761-797 of 989.4 TFLOPS; zzc0721/torch-performance-test-data,
 * database.md): L40S (AD102, 142 SMs, 350 W) 264-269 of 362 TFLOPS at fp16 and bf16, 0.74 of
 * the peak, 0.74 / 0.79 x 2520 MHz = 2360 MHz; L4 (AD104, 58 SMs, 72 W) 1190 MHz, its
 * description's sustained_clock_mhz (52.5-59.4 of 121 TFLOPS, 0.46, issue #120 of the same
 * repository; the database's own L4 row, 0.57-0.59, says 1500 MHz and puts the RTX 6000 Ada
 * 35 MHz higher). One Ada point with Hopper's static share did not carry to the other (from
 * the L4's, the L40S at 1.6 GHz); the two put 43% of the L40S's power in the static part and
 * the RTX 6000 Ada (AD102, 142 SMs, 300 W) at 2143 MHz, the RTX 4090 (128 SMs, 450 W) at its
 * boost clock. Volta, Blackwell and Pascal have no such measurement here: no model (a
 * description may give sustained_clock_mhz). */
typedef struct operating_point {
    double watts;
    int sms;
    double mhz;
} operating_point;

/* the H100 SXM's boost clock, which the H100 and H200 profiled held under load */
#define HOPPER_BOOST_MHZ 1980

static const struct {
    const char *name;
    /* parts at their power limits, SMs and the clocks they hold there; a generation of one
     * (second.watts 0) takes Hopper's static share */
    operating_point at, second;
} power_points[] = {
    {"hopper", {700, 132, 1830}, {350, 114, 1390}}, /* first: its static share is the others' */
    {"ampere", {400, 108, 1305}, {0, 0, 0}},
    {"turing", {70, 40, 900}, {0, 0, 0}},
    {"ada", {350, 142, 2360}, {72, 58, 1190}},
};
#define N_POWER_POINTS ((int)(sizeof power_points / sizeof power_points[0]))
/* the H100 SXM at 700 W, Hopper's first point: the clock the per-SM-clock keys are written at */
#define HOPPER_SXM (power_points[0].at)

/* s and k through two operating points: P / N = s + k f^3 at both */
static void two_points(operating_point a, operating_point b, double *s, double *k)
{
    double pa = a.watts / a.sms, pb = b.watts / b.sms, fa = a.mhz / 1e3, fb = b.mhz / 1e3;
    *k = (pa - pb) / (fa * fa * fa - fb * fb * fb);
    *s = pa - *k * fa * fa * fa;
}

/* s (W per SM) and k (W per SM per GHz^3) of a generation's model; -1 where it has none. */
static int power_model(const char *generation, double *s, double *k)
{
    double s_hopper, k_hopper;
    two_points(HOPPER_SXM, power_points[0].second, &s_hopper, &k_hopper);
    double static_share = s_hopper / (HOPPER_SXM.watts / HOPPER_SXM.sms);
    for (int g = 0; g < N_POWER_POINTS; g++) {
        if (strcmp(generation, power_points[g].name) != 0)
            continue;
        operating_point p = power_points[g].at;
        if (power_points[g].second.watts > 0) {
            two_points(p, power_points[g].second, s, k);
            return 0;
        }
        double per_sm = p.watts / p.sms, f = p.mhz / 1e3;
        *s = static_share * per_sm;
        *k = (per_sm - *s) / (f * f * f);
        return 0;
    }
    return -1;
}

/* The model's sustained clock (MHz) of sms SMs at watts, at most boost_mhz; 0 where the
 * static part alone exceeds the limit. */
static double model_clock(double s, double k, int sms, double watts, double boost_mhz)
{
    double dynamic = watts / sms - s;
    if (dynamic <= 0)
        return 0;
    double mhz = 1e3 * cbrt(dynamic / k);
    return mhz < boost_mhz ? mhz : boost_mhz;
}

/* The part each generation's default efficiencies were measured on (they include its own
 * sustained clock), whose sustained/boost ratio normalises the others': Hopper's on H100
 * SXM, Ampere's on A100 SXM (DeepLearningExamples), Volta's on V100 SXM2; Blackwell takes
 * Hopper's efficiencies, Ada Ampere's, Turing and Pascal Volta's. */
static const struct {
    const char *name, *model;
    operating_point part; /* mhz: the boost clock */
} references[] = {
    {"hopper", "hopper", {700, 132, HOPPER_BOOST_MHZ}},
    {"blackwell", "hopper", {700, 132, HOPPER_BOOST_MHZ}},
    {"ampere", "ampere", {400, 108, 1410}},
    {"ada", "ampere", {400, 108, 1410}},
    {"volta", "volta", {300, 80, 1530}},
    {"turing", "volta", {300, 80, 1530}},
    {"none", "volta", {300, 80, 1530}},
};
#define N_REFERENCES ((int)(sizeof references / sizeof references[0]))

/* sustained / boost of the part the generation's efficiencies come from; 1 without a model */
static double reference_ratio(const char *generation)
{
    for (int r = 0; r < N_REFERENCES; r++) {
        double s, k;
        if (strcmp(generation, references[r].name) != 0 || power_model(references[r].model, &s, &k))
            continue;
        operating_point p = references[r].part;
        return model_clock(s, k, p.sms, p.watts, p.mhz) / p.mhz;
    }
    return 1;
}

double sm_device_sustained_clock(const sm_device *dev)
{
    if (dev->sustained_clock > 0)
        return dev->sustained_clock;
    double s, k;
    if (!dev->tensor_cores[0] || !dev->sm_count || dev->boost_clock <= 0 || dev->power_limit <= 0 ||
        power_model(dev->tensor_cores, &s, &k))
        return dev->boost_clock;
    return 1e6 * model_clock(s, k, dev->sm_count, dev->power_limit, dev->boost_clock / 1e6);
}

/* Kernels that draw little of the board's power (batch norms, poolings, layer norms, layout
 * transposes: bound by their SMs' issue, reductions and latency, not by their matrix units)
 * leave the power limit unreached and run at the boost clock: the H100 and H200 profiled held
 * their 1980 MHz through whole training steps (docs/ops-h100-h200.md), and an H100 PCIe at 350
 * W runs eager ResNet-50's memory-bound steps faster than its 1390 MHz under dense work says
 * (docs/accuracy-gpus.md). The framework keys that price those kernels per SM and clock were
 * measured on those parts and written at the 1830 MHz the model gives the H100 SXM, so the
 * clock they are taken at is the boost clock in that unit, boost x 1830 / 1980 (the H100's and
 * H200's 1830 MHz themselves), and never below the clock under dense work: a part the model
 * holds at its boost clock there (no power model) keeps it. */
double sm_device_light_clock(const sm_device *dev)
{
    double dense = sm_device_sustained_clock(dev);
    double light = dev->boost_clock * HOPPER_SXM.mhz / HOPPER_BOOST_MHZ;
    return light > dense ? light : dense;
}

/* The lowest clock a model may give, as device_file.c's lowest clock key: below every GPU's
 * (nvidia-smi's supported clocks: V100 135 MHz, A100 210). */
#define MIN_CLOCK_HZ 100e6

/* What the defaults are multiplied by: the part's sustained/boost over that of the part the
 * generation's efficiencies were measured on; -1 with a message where the power limit is
 * below the model's static power. */
static double clock_factor(const sm_device *dev, int power_line, sm_status *st)
{
    double s = 0, k = 0;
    /* without a clock of its own or the figures its model needs, the part is taken to hold
     * its reference's */
    int modelled = dev->sm_count && dev->power_limit > 0 && dev->tensor_cores[0] &&
                   !power_model(dev->tensor_cores, &s, &k);
    if (dev->boost_clock <= 0 || (dev->sustained_clock <= 0 && !modelled))
        return 1;
    double clock = sm_device_sustained_clock(dev);
    if (clock <= 0)
        return sm_fail(st,
                       "%s:%d: power_limit_w = %g is below the static power the model takes "
                       "for %d %s SMs (%.0f W): no clock sustains it",
                       dev->path, power_line, dev->power_limit, dev->sm_count, dev->tensor_cores,
                       s * dev->sm_count);
    /* a limit just above the static power left a clock no GPU runs at, as the loader refuses a
     * given one (device_file.c): 175.4 W for 132 Hopper SMs held 82 MHz and made every layer
     * 20 times slower */
    if (clock < MIN_CLOCK_HZ)
        return sm_fail(st,
                       "%s:%d: power_limit_w = %g leaves %d %s SMs %.0f MHz in the model, below "
                       "any GPU's lowest clock (100 MHz): give the board's limit (at least "
                       "%.0f W here), or sustained_clock_mhz",
                       dev->path, power_line, dev->power_limit, dev->sm_count, dev->tensor_cores,
                       clock / 1e6, ceil(dev->sm_count * (s + k * 1e-3)));
    return clock / dev->boost_clock / reference_ratio(dev->tensor_cores);
}

/* The index of name in generations, or N_GENERATIONS. */
static int generation_of(const char *name)
{
    int g = 0;
    while (g < N_GENERATIONS && strcmp(name, generations[g].name) != 0)
        g++;
    return g;
}

/* The index of name in memory_types, or N_MEMORY_TYPES. */
static int memory_type_of(const char *name)
{
    int m = 0;
    while (m < N_MEMORY_TYPES && strcmp(name, memory_types[m].name) != 0)
        m++;
    return m;
}

/* TF32 allows tensor cores, it does not force them: cuDNN and cuBLAS may still run their fp32
 * kernels on the CUDA cores, and choose them where they are faster. On GA102 and Ada the
 * TF32 tensor cores are no faster per clock than the 128 FP32 lanes (RTX 4090: 82.6 TFLOP/s
 * each), and the generation's TF32 fraction (0.28, A100's convolutions) would make tf32 slower
 * than fp32 (RTX 4090: 23.1 against 62.8 achievable). So a default TF32 efficiency reaches at
 * least the fp32 rate; a description's own key stands. */
static void tf32_at_least_fp32(sm_device *dev, int eff_default, int conv_default)
{
    double tf32 = dev->peak[SM_TF32], fp32 = dev->peak[SM_FP32];
    if (!(tf32 > 0 && fp32 > 0))
        return;
    if (eff_default && dev->efficiency[SM_FP32] > 0)
        dev->efficiency[SM_TF32] =
            fmax(dev->efficiency[SM_TF32], fp32 * dev->efficiency[SM_FP32] / tf32);
    if (conv_default && dev->conv_efficiency[SM_FP32] > 0)
        dev->conv_efficiency[SM_TF32] =
            fmax(dev->conv_efficiency[SM_TF32], fp32 * dev->conv_efficiency[SM_FP32] / tf32);
}

/* The generation's convolution fraction at precision p for this part: more, up to its matrix
 * products' fraction, where its tensor cores do less per SM and clock than the reference's
 * (conv_rate, above). */
static double conv_fraction(const sm_device *dev, int g, int p)
{
    double conv = generations[g].conv[p], ref = generations[g].conv_rate[p];
    double per_sm_clock = dev->sm_count && dev->boost_clock > 0
                              ? dev->peak[p] / (dev->sm_count * dev->boost_clock)
                              : 0;
    /* within 1% is the reference's rate: the datasheets round their peaks (H100 PCIe's 756
     * TFLOPS over 114 SMs at 1,755 MHz are 3,779 a SM and clock) */
    if (!(ref > 0) || !(per_sm_clock > 0) || per_sm_clock >= 0.99 * ref)
        return conv;
    return fmin(generations[g].eff[p], conv * ref / per_sm_clock);
}

int sm_device_tensor_cores_known(const char *name)
{
    return !strcmp(name, "none") || generation_of(name) < N_GENERATIONS;
}

int sm_device_memory_type_known(const char *name) { return memory_type_of(name) < N_MEMORY_TYPES; }

int sm_device_has_fp8(const char *tensor_cores)
{
    /* the Ada and Hopper whitepapers' fourth-generation tensor cores first ran E4M3 and E5M2
     * products; Blackwell's fifth keeps them */
    return !strcmp(tensor_cores, "ada") || !strcmp(tensor_cores, "hopper") ||
           !strcmp(tensor_cores, "blackwell");
}

const char *sm_device_tensor_cores_nccl(const char *tensor_cores)
{
    /* NCCL's tuning tables go by compute capability (src/graph/tuning.cc): below 8.0 Volta's
     * (Turing, 7.5), below 9.0 Ampere's (Ada, 8.9) */
    static const char *const nccl[][2] = {{"volta", "volta"},   {"turing", "volta"},
                                          {"ampere", "ampere"}, {"ada", "ampere"},
                                          {"hopper", "hopper"}, {"blackwell", "blackwell"}};
    for (size_t k = 0; k < sizeof nccl / sizeof nccl[0]; k++)
        if (!strcmp(tensor_cores, nccl[k][0]))
            return nccl[k][1];
    return NULL;
}

int sm_device_arch_defaults(sm_device *dev, const int eff_given[SM_N_PRECISIONS], int memory_given,
                            const int peak_line[SM_N_PRECISIONS], int power_line, int clock_line,
                            sm_status *st)
{
    /* the loader refused a name not in the tables at its line (device_file.c, set_field) */
    int m = memory_type_of(dev->memory_type);
    if (m < N_MEMORY_TYPES && !memory_given)
        dev->memory_efficiency = memory_types[m].efficiency;
    /* a plain element-wise kernel streams at least as well as the step's memory-bound
     * kernels on the whole; a part of no known memory type (a CPU) as they do */
    if (dev->stream_efficiency < 0)
        dev->stream_efficiency = m < N_MEMORY_TYPES
                                     ? fmax(memory_types[m].stream, dev->memory_efficiency)
                                     : dev->memory_efficiency;
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
    /* a sustained clock is one the boost clock bounds */
    if (clock_line && dev->boost_clock <= 0)
        return sm_fail(st, "%s:%d: sustained_clock_mhz without boost_clock_mhz to bound it",
                       dev->path, clock_line);
    /* every digit: %g's six made 1980.0001 "1980 is above boost_clock_mhz = 1980" */
    if (clock_line && dev->sustained_clock > dev->boost_clock)
        return sm_fail(st, "%s:%d: sustained_clock_mhz = %.15g is above boost_clock_mhz = %.15g",
                       dev->path, clock_line, dev->sustained_clock / 1e6, dev->boost_clock / 1e6);
    int from_arch[SM_N_PRECISIONS] = {0}, conv_from_arch[SM_N_PRECISIONS] = {0};
    if (dev->fp32_lanes && !eff_given[SM_FP32]) {
        dev->efficiency[SM_FP32] = fp32_efficiency(dev->fp32_lanes);
        from_arch[SM_FP32] = 1;
    }
    int g = generation_of(dev->tensor_cores);
    if (dev->tensor_cores[0] && !strcmp(dev->tensor_cores, "none")) {
        /* fp16 on the CUDA cores (GP100's paired half2 FMA): as fp32 */
        if (peak_line[SM_TF32] || peak_line[SM_BF16])
            return sm_fail(st, "%s:%d: a %s peak without tensor cores (tensor_cores = none)",
                           dev->path, peak_line[SM_TF32] ? peak_line[SM_TF32] : peak_line[SM_BF16],
                           peak_line[SM_TF32] ? "tf32" : "bf16");
        if (!eff_given[SM_FP16]) {
            dev->efficiency[SM_FP16] = dev->efficiency[SM_FP32];
            from_arch[SM_FP16] = from_arch[SM_FP32];
        }
    } else if (g < N_GENERATIONS) { /* "" and "none" are not generations */
        for (int p = SM_TF32; p < SM_N_PRECISIONS; p++) {
            if (generations[g].eff[p] == 0 && peak_line[p])
                return sm_fail(st,
                               "%s:%d: peak_%s_tflops on %s tensor cores, which have no "
                               "%s (it came with Ampere)",
                               dev->path, peak_line[p], sm_precision_names[p], dev->tensor_cores,
                               sm_precision_names[p]);
            if (!eff_given[p] && generations[g].eff[p] > 0) {
                dev->efficiency[p] = generations[g].eff[p];
                from_arch[p] = 1;
            }
            /* a description's own compute_efficiency_P was measured on its convolutions too */
            if (!eff_given[p] && dev->conv_efficiency[p] < 0 && generations[g].conv[p] > 0) {
                dev->conv_efficiency[p] = conv_fraction(dev, g, p);
                conv_from_arch[p] = 1;
            }
        }
    }
    /* the defaults were measured at another part's sustained clock; a description's own
     * efficiencies were measured at its own */
    double factor = clock_factor(dev, power_line, st);
    if (factor < 0)
        return -1;
    for (int p = 0; p < SM_N_PRECISIONS; p++) {
        /* a framework's convolution fractions were measured where the defaults were */
        dev->conv_kind_scale[p] = eff_given[p] ? 1 : factor;
        if (from_arch[p])
            dev->efficiency[p] = fmin(1, dev->efficiency[p] * factor);
        if (conv_from_arch[p]) {
            dev->conv_efficiency[p] = fmin(1, dev->conv_efficiency[p] * factor);
        } else if (dev->conv_efficiency[p] < 0) {
            dev->conv_efficiency[p] = dev->efficiency[p];
            conv_from_arch[p] = from_arch[p];
        }
    }
    tf32_at_least_fp32(dev, from_arch[SM_TF32], conv_from_arch[SM_TF32]);
    return 0;
}
