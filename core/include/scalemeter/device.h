/*
 * scalemeter/device.h: predictions without calibration, from a description of the device and
 * its cluster (configs/devices/NAME.ini; the format is in docs/scaling.md).
 *
 * Each layer takes its roofline time, max(FLOPs / peak, bytes / bandwidth) at the file's
 * efficiencies, plus a launch overhead; the backward pass uses the layers' backward FLOPs;
 * gradients are all-reduced in buckets by a ring, hierarchical over the devices of a node and
 * the nodes. sm_predictor_from_device (predict.h) is this with default options.
 */
#ifndef SCALEMETER_DEVICE_H
#define SCALEMETER_DEVICE_H

#include "scalemeter/comm.h"
#include "scalemeter/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SM_DEFAULT_BUCKET_MIB 25.0 /* PyTorch DDP's bucket_cap_mb */
/* The gradient bucket's physical range, in MiB: one 4-byte gradient at least (a smaller bucket
 * holds nothing, and the bucket count overflows), 1 TiB at most (beyond any device's memory). */
#define SM_MIN_BUCKET_MIB (4.0 / 1048576)
#define SM_MAX_BUCKET_MIB 1048576.0
#define SM_BUCKET_MIB_OK(mib) ((mib) >= SM_MIN_BUCKET_MIB && (mib) <= SM_MAX_BUCKET_MIB)

typedef struct sm_device_options {
    const char *precision;  /* "fp32", "tf32", "fp16" or "bf16"; NULL: the file's precision */
    double bucket_mib;      /* gradient bucket in MiB; 0: SM_DEFAULT_BUCKET_MIB */
    int overlap;            /* 1: buckets are all-reduced while the backward pass runs */
    const char *framework;  /* configs/frameworks/NAME.ini or a file whose [framework] replaces
                               the device file's (how kernels are dispatched); NULL: the file's */
    const char *collective; /* the all-reduce: "ring" (the hierarchical ring) or "nccl" (NCCL's
                               choice of algorithm and protocol by message size); NULL: the
                               description's [node] collective, ring where it gives none */
    const char *algorithms, *protocols; /* NCCL_ALGO's and NCCL_PROTO's lists ("Ring,Tree",
                               "Simple"): NCCL's choice among these only, as the variables
                               restrict NCCL; either runs the nccl collective (beside "ring"
                               it is an error); NULL: all */
    const char *shard;      /* "none", "optimizer", "gradients", "full" (memory.h's sm_shard):
                               what the devices divide and the collectives that follow; NULL:
                               none (DDP) */
    const char *checkpoint; /* "none", "selective", "full": the recomputed forward in the
                               backward pass and the activations kept; NULL: none */
    const char *attention;  /* "eager" or "fused" (FlashAttention, scaled_dot_product_attention:
                               no score matrices kept or moved); NULL: the framework's */
    const char *dispatch;   /* "queued" (the host issues kernels while the GPU runs those before:
                               a queue per pass) or "added" (the dispatch adds to each layer's
                               device time); NULL: the framework's host_runs_ahead */
    int compile;            /* 1: the model compiled (torch.compile): the framework's
                               fuse_pointwise on; 0: the framework's own */
    int fp8;                /* 1: a float8 recipe (torchao's Float8Linear, Transformer Engine):
                               the linear products on the fp8 tensor cores, their operands cast,
                               the output projection and the rest at the 16-bit precision, which
                               it needs, on a part with an fp8 peak; 0: none */
    const char *recipe_precision; /* the network's reference recipe's (sm_network.precision),
                               taken where precision is NULL: at it where the part has it, bf16
                               at fp16 on a part without bf16 (autocast's 16 bits before
                               Ampere), else the file's precision; NULL or "": none */
} sm_device_options;

/* The path of a device: name_or_path itself when it is a file, else
 * sm_data_dir()/configs/devices/NAME.ini; one that does not fit in len bytes is an error, as
 * for sm_network_find. */
int sm_device_find(const char *name_or_path, char *path, size_t len, sm_status *st);

int sm_predictor_from_device_opts(const char *name_or_path, const sm_device_options *opt,
                                  sm_predictor **out, sm_status *st);

/* Passes and local update from a coefficient file of `scalemeter fit`, the gradients'
 * all-reduce from a device description (its links, devices per node and collective): a
 * calibration of one node or one device predicting a cluster. opt: bucket_mib, overlap and
 * collective as for a description; a framework is refused, since the passes are measured;
 * precision is not read (check the calibration's with sm_predictor_check_precision, as for
 * sm_predictor_from_coeffs). The fit's t_grad must tell the local update from communication
 * (the ring form, or single-device runs). */
int sm_predictor_from_coeffs_device(const char *coeffs_path, const char *device,
                                    const sm_device_options *opt, sm_predictor **out,
                                    sm_status *st);

/* Devices per node of the description behind a predictor; 0 for a calibration alone, -1 for
 * a NULL p. */
int sm_predictor_devices_per_node(const sm_predictor *p);

/* One device's dense peak (FLOP/s) at the predictor's precision, from the description behind
 * a device model (its peak_<precision>_tflops, or peak_fp32_tflops where that is higher: the
 * element-wise layers and TF32's fallback run at the fp32 rate): the denominator of model
 * FLOPs utilisation.
 * A calibration states no peak: beside a description (sm_predictor_from_coeffs_device), the
 * description's at the calibration's precision, the device the all-reduce runs between being
 * the one calibrated; 0 for a calibration alone; NAN for a NULL p. */
double sm_predictor_peak_flops(const sm_predictor *p);

/* One device's power limit (W) from the description behind a predictor (its power_limit_w),
 * beside a calibration too (sm_predictor_from_coeffs_device): what a predicted average power
 * (energy / time) of a device is held to. 0 for a calibration alone or a description that
 * gives none; NAN for a NULL p. */
double sm_predictor_power_limit(const sm_predictor *p);

/* What the all-reduce of the description behind a predictor runs for one gradient bucket of
 * net on layout (the buckets are equal, as the prediction takes them): NCCL's algorithm and
 * protocol for the bucket's size ("nvls_tree", "Simple"), or "ring" and "-" for the ring
 * collective; algorithm "none" on one device, which sends nothing; seconds: that bucket's
 * all-reduce. 0 with *out; 1 when there is none to tell (a calibration alone: its fitted terms
 * have no algorithm); -1 on error. */
int sm_predictor_allreduce(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
                           sm_allreduce_estimate *out, sm_status *st);

/* A device description as `scalemeter devices` lists it (every figure as the file gives it,
 * in its units; 0 or "" where it gives none). */
typedef struct sm_device_info {
    char name[64], description[192], source[256];
    char tensor_cores[16], memory_type[16];
    double peak_tflops[4];     /* dense: fp32, tf32, fp16, bf16 */
    double efficiency[4];      /* what the model takes of each peak (the file's or the
                                  architecture's default) */
    double conv_efficiency[4]; /* the same for convolutions */
    double memory_gib, memory_bandwidth_gb_s, memory_efficiency;
    double boost_clock_mhz, l2_mib, power_limit_w;
    int sm_count, fp32_lanes_per_sm, devices_per_node;
    /* the clock the model takes under dense work: the file's sustained_clock_mhz, else the
     * power model's, else the boost clock (0 where none is known) */
    double sustained_clock_mhz;
    /* the clock the model takes for kernels that draw little power (batch norms, poolings,
     * layer norms, transposes: the framework keys priced per SM and clock), in those keys'
     * unit: the boost clock x 1830 / 1980, at least the sustained clock */
    double light_clock_mhz;
    double launch_overhead_us;
    int max_devices_per_node, inter_node_ports;
    /* [node]: one direction of a device's links inside the node, one network port; a node of
     * one device may give no link inside it: bandwidth 0 and latency NaN */
    double intra_node_bandwidth_gb_s, intra_node_latency_us;
    double inter_node_bandwidth_gb_s, inter_node_latency_us;
    /* [framework]: its name, and the shipped framework it starts from ("" where none) */
    char framework[64], framework_base[64];
    double peak_fp8_tflops; /* dense FP8 products (--fp8); 0: none */
    /* of memory_bandwidth_gb_s, what plain element-wise kernels reach (the file's, else the
     * memory type's: device_arch.c) */
    double stream_efficiency;
    /* 1: the tensor cores named run FP8 products (Ada, Hopper, Blackwell); 0: they do not
     * (none, Volta, Turing, Ampere); -1: the file names none */
    int fp8_tensor_cores;
} sm_device_info;

/* Loads and checks the description name_or_path (sm_device_find) into out. */
int sm_device_describe(const char *name_or_path, sm_device_info *out, sm_status *st);

/* The keys of a device description fitted to measured runs (`scalemeter fit --device-out`). */
typedef struct sm_device_fit_result {
    char base[4096];   /* the description the other keys come from */
    char precision[8]; /* of the runs */
    double dispatch_infer, dispatch_fwd, dispatch_bwd; /* seconds per kernel */
    double dispatch_update;                            /* seconds per parameter tensor */
    /* of the precision's peak: matrix products, and convolutions apart; runs can't tell
     * the two kinds apart, so the fit scales the base's pair by one factor */
    double compute_efficiency, conv_efficiency;
    double memory_efficiency;
    int iterations; /* reclassifications of layers as compute- or memory-bound */
    /* 1: a reclassification changed nothing more; 0: the rounds never settled (they flip
     * between classifications), and the round's description that predicts the runs best
     * is the one kept */
    int settled;
    /* what the runs ask of the larger of the pair and of the memory before the bound of 1
     * (INFINITY: they leave that term no time); above 1 they ran faster than the base's peak
     * or bandwidth allows, and the efficiencies written at 1 predict them slower */
    double compute_asked, memory_asked;
    /* the key compute_asked is of, the largest of the pair and the base's per-kind
     * convolution keys ([framework] conv_bwd_efficiency_fp32, say) */
    char compute_asked_key[48];
} sm_device_fit_result;

struct sm_runs;
/* Fits dispatch and efficiencies of the calibration-free model to runs of one precision
 * (their pass times infer, fwd, bwd, and single-device t_grad), starting from the description
 * base (a name or path) and classifying each layer as compute- or memory-bound anew until the
 * efficiencies settle. */
int sm_device_fit(const struct sm_runs *runs, const sm_registry *reg, const char *base,
                  sm_device_fit_result *out, sm_status *st);
/* Writes base with the fitted keys as a device description at path. */
int sm_device_fit_write(const sm_device_fit_result *fit, const char *source, const char *path,
                        sm_status *st);

#ifdef __cplusplus
}
#endif
#endif
