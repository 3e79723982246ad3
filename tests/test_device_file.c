/* Device descriptions: the shipped ones load with their datasheet numbers, defaults apply where
 * a field may be left out, and every mistake is one line naming the file and the line, or the
 * missing field. */
#include "../core/src/device/device_file.h"
#include "check.h"
#include "net_file.h"
#include "scalemeter/device.h"

/* A complete description; lines 1-9. */
#define DEVICE_PART "[device]\npeak_fp32_tflops = 10\nmemory_bandwidth_gb_s = 1000\n"
#define NODE_PART                                                                                  \
    "[node]\ndevices_per_node = 8\nintra_node_bandwidth_gb_s = 450\nintra_node_latency_us = 3\n"   \
    "inter_node_bandwidth_gb_s = 50\ninter_node_latency_us = 10\n"

typedef struct error_case {
    const char *text;
    int line; /* the line the message names; 0: none */
    const char *phrase;
} error_case;

static const error_case cases[] = {
    {"[device]\npeak_fp32_tflops = 10\n" NODE_PART, 0,
     "[device] memory_bandwidth_gb_s is missing (memory bandwidth in GB/s)"},
    {DEVICE_PART "[node]\nintra_node_bandwidth_gb_s = 450\nintra_node_latency_us = 3\n"
                 "inter_node_bandwidth_gb_s = 50\ninter_node_latency_us = 10\n",
     0, "[node] devices_per_node is missing"},
    {DEVICE_PART "[node]\ndevices_per_node = 8\nintra_node_bandwidth_gb_s = 450\n"
                 "intra_node_latency_us = 3\ninter_node_bandwidth_gb_s = 50\n",
     0, "[node] inter_node_latency_us is missing"},
    /* the link inside a node, for nodes of two devices or more: as many as devices_per_node
     * says, or as many as max_devices_per_node lets -g take */
    {DEVICE_PART "[node]\ndevices_per_node = 2\ninter_node_bandwidth_gb_s = 50\n"
                 "inter_node_latency_us = 10\n",
     0,
     "[node] intra_node_bandwidth_gb_s is missing (GB/s in one direction between the devices "
     "of a node, needed for a node of two devices or more)"},
    {DEVICE_PART "[node]\ndevices_per_node = 1\nmax_devices_per_node = 8\n"
                 "intra_node_bandwidth_gb_s = 63\ninter_node_bandwidth_gb_s = 50\n"
                 "inter_node_latency_us = 10\n",
     0, "[node] intra_node_latency_us is missing"},
    {"[device]\nprecision = bf16\npeak_fp32_tflops = 10\nmemory_bandwidth_gb_s = 1000\n" NODE_PART,
     0, "[device] peak_bf16_tflops is missing (TFLOP/s, needed for precision = bf16)"},
    {"[device]\npeak_fp32_tflops = 10\nmemory_bandwidth_gb_s = fast\n" NODE_PART, 3,
     "memory_bandwidth_gb_s = fast: expected a number from 0.001"},
    {"[device]\npeak_fp32_tflops = -1\nmemory_bandwidth_gb_s = 1000\n" NODE_PART, 2,
     "peak_fp32_tflops = -1: expected a number from 1e-06"},
    {DEVICE_PART "[node]\ndevices_per_node = 8\nintra_node_bandwidth_gb_s = 0\n"
                 "intra_node_latency_us = 3\ninter_node_bandwidth_gb_s = 50\n"
                 "inter_node_latency_us = 10\n",
     6, "intra_node_bandwidth_gb_s = 0: expected a number from 0.001"},
    {DEVICE_PART "compute_efficiency = 1.5\n" NODE_PART, 4, "compute_efficiency = 1.5"},
    {DEVICE_PART "[node]\ndevices_per_node = 2.5\n", 5,
     "devices_per_node = 2.5: expected an integer from 1 to 4096"},
    {DEVICE_PART "[node]\ndevices_per_node = 0\n", 5, "devices_per_node = 0"},
    /* fp8: its efficiency scales its peak, and its tensor cores came with Ada and Hopper */
    {DEVICE_PART "compute_efficiency_fp8 = 0.5\n" NODE_PART, 4,
     "compute_efficiency_fp8 without peak_fp8_tflops: no prediction at fp8 reads it"},
    {DEVICE_PART "tensor_cores = ampere\npeak_fp8_tflops = 600\n" NODE_PART, 5,
     "peak_fp8_tflops on ampere tensor cores, which have no fp8 (it came with Ada and Hopper)"},
    {DEVICE_PART "tensor_cores = none\npeak_fp8_tflops = 600\n" NODE_PART, 5,
     "peak_fp8_tflops without tensor cores (tensor_cores = none)"},
    {DEVICE_PART "peak_bf16_tflops = 100\npeak_fp8_tflops = 50\n" NODE_PART, 5,
     "peak_fp8_tflops = 50 is below the part's 16-bit peak (100 TFLOP/s)"},
    {DEVICE_PART "peak_fp23_tflops = 10\n" NODE_PART, 4,
     "unknown key 'peak_fp23_tflops' in [device]"},
    {DEVICE_PART "[nodes]\ndevices_per_node = 8\n", 5, "unknown section [nodes]"},
    {DEVICE_PART "peak_fp32_tflops = 20\n" NODE_PART, 4,
     "peak_fp32_tflops given twice (first at line 2)"},
    {"name = x\n" DEVICE_PART NODE_PART, 1, "name outside a section"},
    {DEVICE_PART "this line has no equals sign\n" NODE_PART, 4, "syntax error"},
    {DEVICE_PART "precision = fp8\n" NODE_PART, 4, "precision = fp8: expected fp32, tf32"},
    {DEVICE_PART NODE_PART "[framework]\nfuse_epilogues = yes\n", 11,
     "fuse_epilogues = yes: expected an integer from 0 to 1"},
    {DEVICE_PART NODE_PART "[framework]\nfuse_epilogues = 2\n", 11, "fuse_epilogues = 2"},
    {DEVICE_PART NODE_PART "[framework]\ngrad_bytes_per_weight = 0\n", 11,
     "grad_bytes_per_weight = 0: expected a number from 1 and at most 8"},
    /* 1e-9 bytes priced 25 M gradients at a byte of memory and of all-reduce traffic */
    {DEVICE_PART NODE_PART "[framework]\ngrad_bytes_per_weight = 1e-9\n", 11,
     "grad_bytes_per_weight = 1e-9: expected a number from 1 and at most 8"},
    {DEVICE_PART NODE_PART "collective = mpi\n", 10, "collective = mpi: expected ring"},
    {DEVICE_PART NODE_PART "[framework]\nfuse_bn_relu = 2\n", 11,
     "fuse_bn_relu = 2: expected an integer from 0 to 1"},
    {DEVICE_PART NODE_PART "[framework]\nchannels_last = nhwc\n", 11, "channels_last = nhwc"},
    {DEVICE_PART NODE_PART "[framework]\nnchw_transpose_share = 1.5\n", 11,
     "nchw_transpose_share = 1.5: expected a number from 0 and at most 1"},
    {DEVICE_PART NODE_PART "[framework]\nnchw_matmul_1x1_positions = -1\n", 11,
     "nchw_matmul_1x1_positions = -1: expected an integer from 0 to 1000000000"},
    {DEVICE_PART NODE_PART "[framework]\ntranspose_elements_per_sm_clock = -2\n", 11,
     "transpose_elements_per_sm_clock = -2: expected 0 (none) or a number from 0.001 to 10000"},
    {DEVICE_PART NODE_PART "[framework]\ntranspose_elements_per_sm_clock = 2\n", 11,
     "transpose_elements_per_sm_clock bounds cuDNN's transposes by the SMs, but the "
     "description "},
    {DEVICE_PART NODE_PART "[framework]\nbatchnorm_train_bytes_per_sm_clock = 5\n", 11,
     "batchnorm_train_bytes_per_sm_clock bounds batch norm by the SMs, but the description "},
    {DEVICE_PART NODE_PART "[framework]\nbatchnorm_bf16_train_bytes_per_sm_clock = -2\n", 11,
     "batchnorm_bf16_train_bytes_per_sm_clock = -2: expected 0 (none) or a number from 0.001 to "
     "10000"},
    {DEVICE_PART NODE_PART "[framework]\ngrouped_half_fwd_elements_per_sm_clock = -1\n", 11,
     "grouped_half_fwd_elements_per_sm_clock = -1: expected 0 (none) or a number from 0.001 to "
     "10000"},
    {DEVICE_PART NODE_PART "nvls_efficiency = 1.2\n", 10,
     "nvls_efficiency = 1.2: expected 0 (none) or a number from 0.01 to 1"},
    /* a rate of 1e-300 priced a kernel at an infinite time, and a queue of them at none: 0 (the
     * term off) or from a thousandth */
    {DEVICE_PART NODE_PART "[framework]\npooling_fwd_elements_per_sm_clock = 1e-300\n", 11,
     "pooling_fwd_elements_per_sm_clock = 1e-300: expected 0 (none) or a number from 0.001"},
    /* 1e-300 casts turned autocast's memory model on (1.8 GB more for BERT-base at fp16) */
    {DEVICE_PART NODE_PART "[framework]\nautocast_casts_per_matmul = 1e-300\n", 11,
     "autocast_casts_per_matmul = 1e-300: expected 0 (none) or a number from 0.01 to 100"},
    {DEVICE_PART NODE_PART "nvls_efficiency = 0.001\n", 10,
     "nvls_efficiency = 0.001: expected 0 (none) or a number from 0.01 to 1"},
    {DEVICE_PART "architecture = sm90\n" NODE_PART, 4,
     "architecture = sm90: expected the GPU's generation for NCCL's constants: volta, ampere, "
     "hopper or blackwell"},
    {DEVICE_PART NODE_PART "host_cpu = Intel\n", 10,
     "host_cpu = Intel: expected the node's CPU for NCCL's constants: intel, amd, arm or other"},
    {DEVICE_PART "stream_efficiency = 1.5\n" NODE_PART, 4,
     "stream_efficiency = 1.5: expected a number from 0.0001 and at most 1"},
    {DEVICE_PART "memory_type = hbm9\n" NODE_PART, 4,
     "memory_type = hbm9: expected hbm2, hbm2e, hbm3, hbm3e, gddr6 or gddr6x"},
    {DEVICE_PART "tensor_cores = kepler\n" NODE_PART, 4,
     "tensor_cores = kepler: expected none, volta, turing, ampere, ada, hopper or blackwell"},
    /* NVLS from Hopper on, the generation named by tensor_cores where architecture is left
     * out (an A100 so described took NVLS) */
    {DEVICE_PART "tensor_cores = ampere\n" NODE_PART "nvls_efficiency = 0.85\n", 11,
     "nvls_efficiency = 0.85, but tensor_cores = ampere (line 4) has no NVLink SHARP"},
    {DEVICE_PART "tensor_cores = none\n" NODE_PART "nvls_efficiency = 0.85\n", 11,
     "but tensor_cores = none (line 4) has no NVLink SHARP"},
    /* text after a header was dropped: the key lost, or [node] read as [device] */
    {"[device] peak_fp32_tflops = 10\nmemory_bandwidth_gb_s = 1000\n" NODE_PART, 1,
     "'peak_fp32_tflops = 10' after the header [device]: a section header stands alone"},
    {DEVICE_PART "[node] x\n", 4, "'x' after the header [node]"},
    {"[device][node]\n", 1, "'[node]' after the header [device]"},
    /* '#' comments a line of its own only: after a text it was kept in it ("... # mine"),
     * after a number refused as no number; both say why now */
    {"[device]\ndescription = my part # mine\npeak_fp32_tflops = 10\n", 2,
     "description = my part # mine: '#' begins a comment on a line of its own only; a comment "
     "after a value begins with ';'"},
    {"[device]\nname = #1\n", 2, "name = #1: '#' begins a comment"},
    {"[device]\npeak_fp32_tflops = 10\t# TF\n", 2, "peak_fp32_tflops = 10\\t# TF: '#' begins"},
    /* "[]" made its keys "outside a section (before any [section] header)", the wrong reason */
    {DEVICE_PART "[]\ndevices_per_node = 1\n", 4, "a section header without a name"},
    {DEVICE_PART "[ \t]\ndevices_per_node = 1\n", 4, "a section header without a name"},
    /* C's hexadecimal floats are not the files' decimal: 0x1p9 was read as 512 */
    {"[device]\npeak_fp32_tflops = 10\nmemory_bandwidth_gb_s = 0x1p9\n" NODE_PART, 3,
     "memory_bandwidth_gb_s = 0x1p9: expected a number from 0.001"},
    {"[device]\npeak_fp32_tflops = -0X10\nmemory_bandwidth_gb_s = 1000\n" NODE_PART, 2,
     "peak_fp32_tflops = -0X10: expected a number"},
    /* an efficiency of a precision without its peak was kept and never read */
    {DEVICE_PART "compute_efficiency_tf32 = 0.5\n" NODE_PART, 4,
     "compute_efficiency_tf32 without peak_tf32_tflops: no prediction at tf32 reads it"},
    {DEVICE_PART "conv_efficiency_bf16 = 0.3\n" NODE_PART, 4,
     "conv_efficiency_bf16 without peak_bf16_tflops"},
    /* [framework] base: a shipped framework's name, first in the section (its keys are read
     * where the line stands, and the section's replace them) */
    {DEVICE_PART "[framework]\ndispatch_fwd_us = 3\nbase = fused\n" NODE_PART, 6,
     "base after dispatch_fwd_us (line 5): give base first in [framework]"},
    {DEVICE_PART "[framework]\nbase = ../frameworks/fused\n" NODE_PART, 5,
     "base = ../frameworks/fused: expected the name of a framework of"},
    {DEVICE_PART "[framework]\nbase = fused.ini\n" NODE_PART, 5, "(letters, digits, - and _"},
    {DEVICE_PART "[framework]\nbase =\n" NODE_PART, 5, "base = : expected the name"},
    {DEVICE_PART "[framework]\nbase = no-such-framework\n" NODE_PART, 5,
     "base = no-such-framework: no framework "},
    {DEVICE_PART "[framework]\nbase = fused\nbase = fused\n" NODE_PART, 6,
     "base given twice (first at line 5)"},
    /* CUDA graphs' dispatch is the device's own time a kernel: no host runs ahead of it */
    {DEVICE_PART "[framework]\nbase = cuda-graphs\nhost_runs_ahead = 1\n" NODE_PART, 6,
     "host_runs_ahead = 1 beside dispatch_on_device = 1 ("},
};

/* Writes text to DIR/NAME and loads it as a description (framework 0) or a framework file
 * (1), for the names taken from the file's; the file goes after. */
static int load_named(const char *dir, const char *name, const char *text, int framework,
                      sm_device *dev, sm_status *st)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        check_fatal(__FILE__, __LINE__, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    int rc = framework ? sm_device_load_framework(path, dev, st) : sm_device_load(path, dev, st);
    unlink(path);
    return rc;
}

/* The counts of one pass that the sm_layer_pass_work tests below share, each adding its own:
 * 100 FLOPs, 60 of them matrix products, 200 backward, 1000 bytes at fp32. */
static sm_metrics pass_counts(void)
{
    return (sm_metrics){.flops = 100, .matmul_flops = 60, .bwd_flops = 200, .bytes = 1000};
}

/* Score passes (plugin.h, ABI 7): an attention that divides its scores and adds a mask in
 * kernels of their own, 2 passes forward and 1 backward. Its 400 score bytes at fp32 are eight
 * reads or writes of every score (four, and two per pass), 25 bytes each at bf16: forward,
 * the score product's write and the context's read are the score products' own (score_bytes
 * 50, beside the 300 other bytes), the softmax and the two passes serial (2 x 25 + 4 x 25 =
 * 150); backward, all doubled but for the passes, which add their own one (600, 100 and 2 x
 * 50 + 2 x 25 = 150). A fused kernel drops them all: every layer's where the framework fuses
 * attention, a layer whose code calls one (scores_fused) where it says nothing, none where it
 * runs its own eagerly. */
static void test_score_passes(void)
{
    sm_device v = {.mask_bytes = 1};
    sm_layer_type attention = {.name = "attention", .traits = SM_TRAIT_MATMUL};
    sm_layer l = {.type = &attention};
    l.m.scores_bytes = 400, l.m.scores_passes_fwd = 2, l.m.scores_passes_bwd = 1;
    sm_metrics m = pass_counts();
    m.scores_bytes = 400;
    sm_layer_work f = sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1);
    sm_layer_work b = sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 1, 1);
    CHECK_EQ(f.bytes, 300);
    CHECK_EQ(f.score_bytes, 50);
    CHECK_EQ(f.serial_bytes, 150);
    CHECK_EQ(b.bytes, 600);
    CHECK_EQ(b.score_bytes, 100);
    CHECK_EQ(b.serial_bytes, 150);
    v.fused_attention = 1;
    f = sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1);
    b = sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 1, 1);
    CHECK_EQ(f.bytes, 300);
    CHECK_EQ(f.serial_bytes, 0);
    CHECK_EQ(b.bytes, 600);
    CHECK_EQ(b.serial_bytes, 0);
    l.m.scores_fused = 1;
    v.fused_attention = SM_ATTENTION_AS_WRITTEN;
    f = sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1);
    CHECK_EQ(f.bytes, 300);
    CHECK_EQ(f.serial_bytes, 0);
    CHECK_EQ(f.score_bytes, 0);
    v.fused_attention = SM_ATTENTION_EAGER;
    f = sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1);
    CHECK_EQ(f.bytes, 300);
    CHECK_EQ(f.score_bytes, 50);
    CHECK_EQ(f.serial_bytes, 150);
    /* fused kernels without dropout (PyTorch's CPU path): a layer with dropout on its
     * probabilities runs eagerly; the dropout adds its own bytes then (a pass, as above) */
    v.fused_attention = SM_ATTENTION_FUSED;
    v.fused_attention_dropout = 0;
    l.saved.scores_mask_elems = 1;
    CHECK(sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1).serial_bytes >= 150);
    v.fused_attention_dropout = 1;
    CHECK_EQ(sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1).serial_bytes, 0);
}

/* The score and context products' seconds (sm_layer_score_seconds): 100 FLOPs and 200 bytes
 * of score matrix, on a part of 100 FLOP/s at fp32 and 1,000 at bf16, each at 0.5 of it, and a
 * DRAM streaming 500 B/s (1,000 at 0.5): 2 s of arithmetic and 0.4 s of traffic at fp32, 0.2 s
 * and 0.4 s at bf16. On a GPU's CUDA cores (fp32) they run one after the other, 2.4 s; on its
 * tensor cores (bf16) the traffic hides the arithmetic, 0.4 s; a CPU (no SMs) overlaps both,
 * 2 s at fp32. */
static void test_score_products(void)
{
    sm_device v = {.sm_count = 10, .memory_bandwidth = 1000, .memory_efficiency = 0.5};
    v.peak[SM_FP32] = 100, v.efficiency[SM_FP32] = 0.5;
    v.peak[SM_BF16] = 1000, v.efficiency[SM_BF16] = 0.5;
    sm_layer_work w = {.score_flops = 100, .score_bytes = 200};
    CHECK_NEAR(sm_layer_score_seconds(&v, SM_FP32, w), 2.4, 1e-12);
    CHECK_NEAR(sm_layer_score_seconds(&v, SM_BF16, w), 0.4, 1e-12);
    CHECK_NEAR(sm_layer_roofline_seconds(&v, SM_FP32, w), 2.4, 1e-12);
    v.sm_count = 0;
    CHECK_NEAR(sm_layer_score_seconds(&v, SM_FP32, w), 2.0, 1e-12);
    CHECK_NEAR(sm_layer_score_seconds(&v, SM_BF16, w), 0.4, 1e-12);
    w.score_flops = w.score_bytes = 0;
    CHECK_NEAR(sm_layer_score_seconds(&v, SM_FP32, w), 0, 1e-12);
}

/* The part the loop's tests run on: 10 SMs at 1 Hz (10 SM clocks a second), the loop at 2
 * elements a SM clock (20 a second), and a DRAM of 1,000 B/s at 0.5 of it (500 B/s). */
static sm_device loop_part(void)
{
    return (sm_device){.sm_count = 10,
                       .sustained_clock = 1,
                       .memory_bandwidth = 1000,
                       .memory_efficiency = 0.5,
                       .broadcast_rate = 2};
}

/* A broadcast pass (plugin ABI 18's scores_broadcast_passes): test_score_passes's attention
 * with one of its two forward passes, its mask's addition, over a broadcast operand, on 10 SMs
 * at 1 Hz (10 SM clocks a second) and a DRAM of 1,000 B/s at 0.5 of it (500 B/s). At bf16 a
 * read or write of every score is 25 bytes, 12.5 scores of 2 bytes: at 2 elements a SM clock
 * the pass takes 12.5 / 20 = 0.625 s, 312.5 bytes at the DRAM's stream where its read and
 * write are 50, so the forward pass's serial bytes are 150 - 50 + 312.5 = 412.5, at inference
 * too; the backward pass has no such pass (150). At fp32, 50 bytes a read, the same 12.5
 * scores and 0.625 s: 300 - 100 + 312.5 = 512.5. At 1,000 elements a clock the pass takes
 * 0.00125 s, 0.625 bytes: its read and write at the DRAM's rate (50) bound it, 150. Without
 * the key, or under a fused kernel, as before. */
static void test_broadcast_pass(void)
{
    sm_device v = loop_part();
    v.mask_bytes = 1;
    sm_layer_type attention = {.name = "attention", .traits = SM_TRAIT_MATMUL};
    sm_layer l = {.type = &attention};
    l.m.scores_bytes = 400, l.m.scores_passes_fwd = 2, l.m.scores_passes_bwd = 1;
    l.m.scores_broadcast_passes = 1;
    sm_metrics m = pass_counts();
    m.scores_bytes = 400;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1).serial_bytes, 412.5, 1e-9);
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 0).serial_bytes, 412.5, 1e-9);
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 1, 1).serial_bytes, 150, 1e-9);
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 1, SM_FP32, 0, 1).serial_bytes, 512.5, 1e-9);
    v.broadcast_rate = 1000;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1).serial_bytes, 150, 1e-9);
    v.broadcast_rate = 0;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1).serial_bytes, 150, 1e-9);
    v.broadcast_rate = 2;
    v.fused_attention = 1;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1).serial_bytes, 0, 1e-9);
}

/* An element-wise layer over a broadcast input (sm_layer's broadcast, plugin ABI 18): 100
 * output elements a sample, batch 2, 1,000 bytes, on 10 SMs at 1 Hz at 2 elements a SM clock:
 * 200 / 20 = 10 s forward, so its bytes stream at 100 B/s, under the DRAM's 500 (1,000 B/s at
 * 0.5), which the roofline takes. Backward, and without the flag or the key, the DRAM's. */
static void test_broadcast_layer(void)
{
    sm_device v = loop_part();
    sm_layer_type mul = {.name = "mul", .traits = SM_TRAIT_ELEMENTWISE};
    sm_layer l = {.type = &mul, .broadcast = 1};
    l.m.output_elems = 100;
    sm_metrics m = {.flops = 200, .bwd_flops = 400, .bytes = 1000};
    sm_layer_work f = sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1);
    CHECK_NEAR(f.bytes, 1000, 1e-9);
    CHECK_NEAR(f.sm_stream, 100, 1e-9);
    CHECK_NEAR(sm_layer_stream(&v, f), 100, 1e-9);
    CHECK_NEAR(sm_layer_stream(&v, sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 0)), 100, 1e-9);
    CHECK_NEAR(sm_layer_stream(&v, sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 1, 1)), 500, 1e-9);
    l.broadcast = 0;
    CHECK_NEAR(sm_layer_stream(&v, sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1)), 500, 1e-9);
    l.broadcast = 1;
    v.broadcast_rate = 0;
    CHECK_NEAR(sm_layer_stream(&v, sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1)), 500, 1e-9);
}

/* Plain element-wise kernels (an activation, a residual addition, a product of same-shaped
 * inputs) stream at the part's stream_efficiency, every other memory-bound layer at its
 * memory_efficiency: a DRAM of 1,000 B/s at 0.5 (500 B/s) and 0.8 for plain kernels (800 B/s),
 * forward and backward. A batch norm and a layer norm stay at 500; a product over a broadcast
 * input keeps its SMs' 100 B/s and its backward the step's 500 (test_broadcast_layer); a part
 * whose stream_efficiency is unset (0: a description built by hand) streams them at 500. */
static void test_stream_layers(void)
{
    sm_device v = loop_part();
    v.stream_efficiency = 0.8;
    sm_metrics m = {.flops = 200, .bwd_flops = 400, .bytes = 1000};
    static const struct {
        uint32_t traits;
        int broadcast;
        double stream;
    } kinds[] = {{SM_TRAIT_ACTIVATION, 0, 800},
                 {SM_TRAIT_RESIDUAL, 0, 800},
                 {SM_TRAIT_ELEMENTWISE, 0, 800},
                 {SM_TRAIT_ELEMENTWISE, 1, 100},
                 {SM_TRAIT_NORMALISATION | SM_TRAIT_BATCH_STATISTICS, 0, 500},
                 {SM_TRAIT_NORMALISATION, 0, 500},
                 {0, 0, 500}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        sm_layer_type t = {.name = "t", .traits = kinds[i].traits};
        sm_layer l = {.type = &t, .broadcast = kinds[i].broadcast};
        l.m.output_elems = 100;
        for (int backward = 0; backward <= 1; backward++) {
            double want = kinds[i].broadcast && backward ? 500 : kinds[i].stream;
            CHECK_NEAR(sm_layer_stream(&v, sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, backward, 1)),
                       want, 1e-9);
        }
    }
    sm_layer_type relu = {.name = "relu", .traits = SM_TRAIT_ACTIVATION};
    sm_layer l = {.type = &relu};
    v.stream_efficiency = 0;
    CHECK_NEAR(sm_layer_stream(&v, sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1)), 500, 1e-9);
}

/* Copies of non-contiguous views (plugin ABI 19's copy_elems_fwd and _bwd): a layer of 1,000
 * streamed bytes at fp32 (batch 2) that copies 10 elements a sample forward and 30 backward, on
 * 10 SMs at 1 Hz at 2 elements a SM clock (20 a second) and a DRAM of 1,000 B/s at 0.5 (500
 * B/s). Forward at fp32 the copy's 20 elements are a read and a write of 80 bytes, which leave
 * the streamed bytes (840) for a kernel of 1 s, 500 bytes at the DRAM's stream; at bf16, 40
 * bytes a read of the 500 streamed (420 left), the same 1 s. Backward at fp32, the pass's 2,000
 * bytes less the 60 elements' 480 (1,520), 3 s: 1,500. At 1,000 elements a clock the copy's
 * read and write at the DRAM's rate bound it (160), and so without the key; under a fused
 * attention kernel an attention layer (of scores) makes none, any other layer its own. */
static void test_view_copies(void)
{
    sm_device v = loop_part();
    sm_layer_type type = {.name = "copying", .traits = SM_TRAIT_MATMUL};
    sm_layer l = {.type = &type};
    l.m.copy_elems_fwd = 10, l.m.copy_elems_bwd = 30;
    sm_metrics m = pass_counts();
    sm_layer_work f = sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1);
    CHECK_NEAR(f.bytes, 840, 1e-9);
    CHECK_NEAR(f.serial_bytes, 500, 1e-9);
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 0).serial_bytes, 500, 1e-9);
    sm_layer_work h = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 1);
    CHECK_NEAR(h.bytes, 420, 1e-9);
    CHECK_NEAR(h.serial_bytes, 500, 1e-9);
    sm_layer_work b = sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 1, 1);
    CHECK_NEAR(b.bytes, 1520, 1e-9);
    CHECK_NEAR(b.serial_bytes, 1500, 1e-9);
    v.broadcast_rate = 1000;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1).serial_bytes, 160, 1e-9);
    v.broadcast_rate = 0;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1).serial_bytes, 160, 1e-9);
    v.broadcast_rate = 2;
    v.fused_attention = 1;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1).serial_bytes, 500, 1e-9);
    l.m.scores_bytes = 400, m.scores_bytes = 400;
    sm_layer_work a = sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1);
    CHECK_NEAR(a.bytes, 600, 1e-9);
    CHECK_NEAR(a.serial_bytes, 0, 1e-9);
}

/* Bias gradients summed in reduction kernels of their own (plugin ABI 20's bias_grad_elems and
 * bias_grad_sums): a layer whose backward pass sums 50 elements of its output's gradient a
 * sample (batch 2: 100 elements) in 2 sums, on 10 SMs at 1 Hz (10 SM clocks a second) and a
 * DRAM of 1,000 B/s at 0.5 (500 B/s), at 5 SM clocks a sum (2 x 5 / 10 = 1 s) and 2 elements
 * a SM clock for 32-bit gradients and 4 for 16-bit: 1 + 100 / 20 = 6 s at fp32 (their read,
 * 400 bytes, takes 0.8 s at the DRAM's rate), 1 + 100 / 40 = 3.5 s at bf16; without the
 * 16-bit key, 6 s at bf16 too. At 1,000 elements a clock the read bounds them: 1.8 s at fp32,
 * 1.4 s at bf16 (200 bytes); without the sums' clocks, 0.8 s. Nothing forward, nothing
 * without the key, nothing where the framework fuses epilogues (cuBLASLt sums them in the
 * weight gradient's). */
static void test_bias_grads(void)
{
    sm_device v = loop_part();
    v.bias_grad_rate[0] = 2, v.bias_grad_rate[1] = 4, v.bias_grad_sum_clocks = 5;
    sm_layer_type type = {.name = "summing", .traits = SM_TRAIT_MATMUL};
    sm_layer l = {.type = &type};
    l.m.bias_grad_elems = 50, l.m.bias_grad_sums = 2;
    sm_metrics m = pass_counts();
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 1, 1).sm_seconds, 6, 1e-12);
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 1, 1).sm_seconds, 3.5, 1e-12);
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1).sm_seconds, 0, 1e-12);
    v.bias_grad_rate[1] = 0;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 1, 1).sm_seconds, 6, 1e-12);
    v.bias_grad_rate[0] = v.bias_grad_rate[1] = 1000;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 1, 1).sm_seconds, 1.8, 1e-12);
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 1, 1).sm_seconds, 1.4, 1e-12);
    v.bias_grad_sum_clocks = 0;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 1, 1).sm_seconds, 0.8, 1e-12);
    v.fuse_epilogues = 1;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 1, 1).sm_seconds, 0, 1e-12);
    v.fuse_epilogues = 0, v.bias_grad_rate[0] = v.bias_grad_rate[1] = 0;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 1, 1).sm_seconds, 0, 1e-12);
}

/* A float8 recipe (sm_device's fp8_products, predict --fp8; plugin ABI 22's linear fields): a
 * layer of 2 products of 20 FLOPs a sample reading 5 elements and writing 6, with 10 weights,
 * at batch 2 of pass_counts (60 of its 100 FLOPs matrix products, 120 of 200 backward). At
 * bf16 forward, 40 of the 60 run in fp8 and 20 stay; backward, 80 of the 120 (each product's
 * two gradients). torchao's casts (roofline_utils.py): forward an amax read and a cast of 2 + 2
 * bytes an input element, 6 a weight: 6 x 2 x 5 + 6 x 10 = 120 serial bytes, and 3 kernels
 * each for input and weight, 12 for the 2 products; backward 6 x 2 x 6 = 72 bytes, 6 kernels.
 * Compiled, the amax of an activation rides its producer: 4 x 10 + 60 = 100 and 48 bytes, 10
 * and 4 kernels. The fp8 FLOPs at the fp8 peak of 200 FLOP/s and the bf16 products' fraction,
 * 0.5: 40 / 100 = 0.4 s; at a description's own 0.8, 0.25 s. Nothing for the output
 * projection, nor without the option, nor at a part without an fp8 peak. */
static void test_fp8_products(void)
{
    sm_device v = {
        .memory_bandwidth = 1000, .memory_efficiency = 0.5, .fp8_products = 1, .peak_fp8 = 200};
    v.peak[SM_BF16] = 100, v.efficiency[SM_BF16] = 0.5;
    sm_layer_type type = {.name = "products", .traits = SM_TRAIT_MATMUL};
    sm_layer l = {.type = &type};
    l.m.linear_products = 2, l.m.linear_flops = 20, l.m.linear_input_elems = 5;
    l.m.linear_output_elems = 6, l.m.weights = 10;
    sm_metrics m = pass_counts();
    sm_layer_work f = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 1);
    sm_layer_work b = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 1, 1);
    CHECK_NEAR(f.fp8_flops, 40, 1e-12);
    CHECK_NEAR(f.matmul_flops, 20, 1e-12);
    CHECK_NEAR(f.serial_bytes, 120, 1e-12);
    CHECK_NEAR(b.fp8_flops, 80, 1e-12);
    CHECK_NEAR(b.matmul_flops, 40, 1e-12);
    CHECK_NEAR(b.serial_bytes, 72, 1e-12);
    CHECK_EQ(sm_layer_fp8_kernels(&v, &l, 0), 12);
    CHECK_EQ(sm_layer_fp8_kernels(&v, &l, 1), 6);
    CHECK_NEAR(sm_layer_compute_seconds(&v, SM_BF16, (sm_layer_work){.fp8_flops = 40}), 0.4, 1e-12);
    v.fp8_efficiency = 0.8;
    CHECK_NEAR(sm_layer_compute_seconds(&v, SM_BF16, (sm_layer_work){.fp8_flops = 40}), 0.25,
               1e-12);
    v.fuse_pointwise = 1;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 1).serial_bytes, 100, 1e-12);
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 1, 1).serial_bytes, 48, 1e-12);
    CHECK_EQ(sm_layer_fp8_kernels(&v, &l, 0), 10);
    CHECK_EQ(sm_layer_fp8_kernels(&v, &l, 1), 4);
    l.output_projection = 1;
    f = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 1);
    CHECK_NEAR(f.fp8_flops, 0, 1e-12);
    CHECK_NEAR(f.matmul_flops, 60, 1e-12);
    CHECK_NEAR(f.serial_bytes, 0, 1e-12);
    CHECK_EQ(sm_layer_fp8_kernels(&v, &l, 0), 0);
    l.output_projection = 0, v.fp8_products = 0;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 1).fp8_flops, 0, 1e-12);
    v.fp8_products = 1, v.peak_fp8 = 0;
    CHECK_NEAR(sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 1, 1).fp8_flops, 0, 1e-12);
    /* the shipped descriptions' dense FP8 peaks: twice their bf16 (the datasheets' "with
     * sparsity" figures halved), none on a part before Ada and Hopper */
    sm_status st;
    sm_device dev;
    static const struct {
        const char *name;
        double fp8;
    } peaks[] = {{"h100", 1978.9e12},   {"h100-pcie", 1513e12},    {"h200", 1978.9e12},
                 {"b200", 4500e12},     {"l4", 242.5e12},          {"l40s", 733e12},
                 {"rtx4090", 330.3e12}, {"rtx6000-ada", 728.5e12}, {"a100", 0}};
    for (size_t k = 0; k < sizeof peaks / sizeof *peaks; k++) {
        char path[96];
        snprintf(path, sizeof path, "configs/devices/%s.ini", peaks[k].name);
        CHECK_MSG(sm_device_load(path, &dev, &st) == 0, "%s: %s", path, st.msg);
        CHECK_NEAR(dev.peak_fp8, peaks[k].fp8, 1e3);
    }
}

/* An eager softmax computed in fp32 at 16-bit activations (plugin ABI 8's scores_softmax): 10
 * scores a pass with 2 score passes, scores_bytes 4 x (4 + 2 x 2) x 10 = 320. What PyTorch's
 * own kernels move for one score (tools/torch_rope_bytes.py --softmax, torch's ops in bfloat16:
 * a cast up, an fp32 softmax, a cast down, 20 bytes forward and 24 backward where a bf16
 * softmax moves 4 and 6), 16 more forward and 18 backward, at bf16 in either form and at fp16
 * for Meta's x.float(); Hugging Face's softmax(dtype=float32) at fp16 is one kernel reading
 * fp16 and writing fp32 and the cast back (SoftMax.cpp's half_to_float): 8 and 10. They are
 * serial bytes, in inference too; at fp32, and under a fused kernel, none. Under autocast
 * (autocast_casts_per_matmul above 0) every softmax is Hugging Face's form, the plugin's
 * SM_SOFTMAX_NATIVE too: CUDA autocast runs softmax with dtype=float32 (ATen's
 * autocast_mode.cpp, fp32_set_opt_dtype). */
static double softmax_serial_more_on(const sm_device *v, int form, sm_precision p, int backward,
                                     int train)
{
    sm_layer_type attention = {.name = "attention", .traits = SM_TRAIT_MATMUL};
    sm_layer l = {.type = &attention};
    l.m.scores_bytes = 320, l.m.scores_passes_fwd = 2, l.m.scores_passes_bwd = 1;
    sm_metrics m = pass_counts();
    m.scores_bytes = 320;
    sm_device cast = *v;
    cast.autocast_casts = 0; /* the reference: a cast model's 16-bit softmax */
    double native = sm_layer_pass_work(&cast, &l, &m, 1, p, backward, train).serial_bytes;
    l.m.scores_softmax = form;
    return sm_layer_pass_work(v, &l, &m, 1, p, backward, train).serial_bytes - native;
}

static double softmax_serial_more(int form, sm_precision p, int backward, int train, int fused)
{
    sm_device v = {.mask_bytes = 1, .fused_attention = fused};
    return softmax_serial_more_on(&v, form, p, backward, train);
}

static void test_autocast_softmax(void)
{
    sm_device amp = {.mask_bytes = 1, .autocast_casts = 2};
    CHECK_EQ(softmax_serial_more_on(&amp, SM_SOFTMAX_NATIVE, SM_BF16, 0, 1), 160);
    CHECK_EQ(softmax_serial_more_on(&amp, SM_SOFTMAX_NATIVE, SM_BF16, 1, 1), 180);
    CHECK_EQ(softmax_serial_more_on(&amp, SM_SOFTMAX_NATIVE, SM_FP16, 0, 1), 80);
    CHECK_EQ(softmax_serial_more_on(&amp, SM_SOFTMAX_NATIVE, SM_FP16, 1, 0), 100);
    CHECK_EQ(softmax_serial_more_on(&amp, SM_SOFTMAX_FLOAT, SM_FP16, 0, 1), 160);
    CHECK_EQ(softmax_serial_more_on(&amp, SM_SOFTMAX_NATIVE, SM_TF32, 0, 1), 0);
    amp.fused_attention = 1;
    CHECK_EQ(softmax_serial_more_on(&amp, SM_SOFTMAX_NATIVE, SM_BF16, 1, 1), 0);
}

static void test_softmax_fp32(void)
{
    for (int form = SM_SOFTMAX_FLOAT; form <= SM_SOFTMAX_DTYPE; form++) {
        CHECK_EQ(softmax_serial_more(form, SM_BF16, 0, 1, 0), 160);
        CHECK_EQ(softmax_serial_more(form, SM_BF16, 1, 1, 0), 180);
        CHECK_EQ(softmax_serial_more(form, SM_BF16, 0, 0, 0), 160);
        CHECK_EQ(softmax_serial_more(form, SM_FP32, 0, 1, 0), 0);
        CHECK_EQ(softmax_serial_more(form, SM_TF32, 1, 1, 0), 0);
        CHECK_EQ(softmax_serial_more(form, SM_BF16, 0, 1, 1), 0);
        CHECK_EQ(softmax_serial_more(form, SM_FP16, 1, 1, 1), 0);
    }
    CHECK_EQ(softmax_serial_more(SM_SOFTMAX_FLOAT, SM_FP16, 0, 1, 0), 160);
    CHECK_EQ(softmax_serial_more(SM_SOFTMAX_FLOAT, SM_FP16, 1, 1, 0), 180);
    CHECK_EQ(softmax_serial_more(SM_SOFTMAX_DTYPE, SM_FP16, 0, 1, 0), 80);
    CHECK_EQ(softmax_serial_more(SM_SOFTMAX_DTYPE, SM_FP16, 1, 1, 0), 100);
}

/* A layer computing in fp32 at 16-bit activations (plugin ABI 7's upcast_bytes): its casts are
 * kernels of their own, serial whatever its arithmetic; at fp32 there are none. */
static void test_upcast_serial(void)
{
    sm_device v = {.mask_bytes = 1};
    sm_layer_type rope = {.name = "rope", .traits = SM_TRAIT_ATTENTION};
    sm_layer l = {.type = &rope};
    sm_metrics m = pass_counts();
    m.serial_bytes = 200, m.upcast_bytes = 300;
    sm_layer_work f = sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 0, 1);
    sm_layer_work b = sm_layer_pass_work(&v, &l, &m, 1, SM_BF16, 1, 1);
    CHECK_EQ(f.bytes, 400);        /* 1000 / 2 - 100 */
    CHECK_EQ(f.serial_bytes, 400); /* 200 / 2 + 300 */
    CHECK_EQ(b.bytes, 800);
    CHECK_EQ(b.serial_bytes, 800);
    f = sm_layer_pass_work(&v, &l, &m, 1, SM_FP32, 0, 1);
    CHECK_EQ(f.bytes, 800);
    CHECK_EQ(f.serial_bytes, 200);
}

/* A layer norm under autocast (SM_TRAIT_AUTOCAST_FP32, autocast_casts_per_matmul above 0) runs
 * in fp32 at bf16 and fp16: its 1000 bytes do not halve (tools/torch_autocast_norm.py: 8 bytes
 * an element forward and 12 backward under autocast, as at fp32, where bf16 moves 4 and 6); in
 * a cast model, or without the trait, they do. */
static void test_autocast_fp32(void)
{
    sm_device amp = {.mask_bytes = 1, .autocast_casts = 2}, cast = {.mask_bytes = 1};
    sm_layer_type ln = {.name = "ln", .traits = SM_TRAIT_NORMALISATION | SM_TRAIT_AUTOCAST_FP32};
    sm_layer_type bn = {.name = "bn", .traits = SM_TRAIT_NORMALISATION};
    sm_layer l = {.type = &ln}, b = {.type = &bn};
    sm_metrics m = pass_counts();
    CHECK_EQ(sm_layer_pass_work(&amp, &l, &m, 1, SM_BF16, 0, 1).bytes, 1000);
    CHECK_EQ(sm_layer_pass_work(&amp, &l, &m, 1, SM_FP16, 1, 1).bytes, 2000);
    CHECK_EQ(sm_layer_pass_work(&cast, &l, &m, 1, SM_BF16, 0, 1).bytes, 500);
    CHECK_EQ(sm_layer_pass_work(&amp, &b, &m, 1, SM_BF16, 0, 1).bytes, 500);
    CHECK_EQ(sm_layer_pass_work(&amp, &l, &m, 1, SM_FP32, 0, 1).bytes, 1000);
}

/* A dropout over a layer's own activations (plugin.h's mask_elems beyond scores_mask_elems:
 * nn.Dropout's), in training alone, a kernel of its own: forward it reads the input and writes
 * the output and a 1-byte mask, backward it reads the gradient and the mask and writes the
 * gradient. 10 mask elements a sample at batch 3: 3 x 10 x (2 + 2 + 1) = 150 bytes either
 * pass at bf16, 3 x 10 x (4 + 4 + 1) = 270 at fp32, none at inference; an attention layer
 * whose masks are all its probabilities' adds none of these. */
static void test_own_dropout(void)
{
    sm_device v = {.mask_bytes = 1};
    sm_layer_type dropout = {.name = "dropout"};
    sm_layer l = {.type = &dropout};
    l.saved.mask_elems = 10;
    sm_metrics m = {0};
    CHECK_EQ(sm_layer_pass_work(&v, &l, &m, 3, SM_BF16, 0, 1).serial_bytes, 150);
    CHECK_EQ(sm_layer_pass_work(&v, &l, &m, 3, SM_BF16, 1, 1).serial_bytes, 150);
    CHECK_EQ(sm_layer_pass_work(&v, &l, &m, 3, SM_FP32, 0, 1).serial_bytes, 270);
    CHECK_EQ(sm_layer_pass_work(&v, &l, &m, 3, SM_BF16, 0, 0).serial_bytes, 0);
    CHECK_EQ(sm_layer_pass_work(&v, &l, &m, 3, SM_BF16, 0, 1).bytes, 0);
    l.saved.scores_mask_elems = 10; /* an attention's: priced with its scores */
    CHECK_EQ(sm_layer_pass_work(&v, &l, &m, 3, SM_BF16, 0, 1).serial_bytes, 0);
}

/* What one pass of an attention layer asks of the device (sm_layer_pass_work), by hand from
 * its metrics: 100 FLOPs of which 60 matrix products (20 the score product, as many the
 * context product), 200 backward, 1000 bytes at fp32 of which 400 the score matrices (four
 * passes over them: written, the softmax's read and write, read back). bf16 halves the bytes
 * and the backward pass doubles them. Eager attention's score and context products are
 * kernels of their own (score_flops 40 and score_bytes 2 x 50 forward, 80 and 200 backward,
 * where each has two products), and so are its softmax (half the score bytes) and, in
 * training, the dropout on the probabilities: 10 probabilities per sample at batch 2, each
 * read and written at 2 bytes with a 1-byte mask, 2 x 10 x 5 = 100 bytes in either pass. A
 * fused kernel drops the score bytes and recomputes the score product in the backward pass
 * (the matrix share of the backward FLOPs, 0.6 x 200, plus 20). */
/* [framework] base = NAME (configs/frameworks/NAME.ini): the base's keys, then the section's in
 * their place; the convolutions' fractions of the peak at the part's clock. */
static void test_framework_base(void)
{
    sm_status st;
    sm_device own, pcie, dev;
    /* the section's keys replace the base's, the others stand; the base names the framework */
    const char *text = "[device]\npeak_fp32_tflops = 66.9\nmemory_bandwidth_gb_s = 3350\n"
                       "sm_count = 132\nboost_clock_mhz = 1980\n[framework]\n"
                       "base = pytorch-eager-hopper\nkernel_device_us = 2\n" NODE_PART;
    CHECK_EQ(sm_device_load(net_file(text), &dev, &st), 0);
    CHECK_NEAR(dev.kernel_device, 2e-6, 1e-15);
    CHECK_EQ(dev.host_runs_ahead, 1);
    CHECK(dev.transpose_sm_elements > 0 && dev.conv_pass > 0);
    CHECK_STR_EQ(dev.framework, "pytorch-eager-hopper");
    CHECK_STR_EQ(dev.framework_base, "pytorch-eager-hopper");
    /* its keys bound batch norm by the SMs: a part without them is refused at the base's line */
    const char *no_sms = net_file("[device]\npeak_fp32_tflops = 66.9\nmemory_bandwidth_gb_s = "
                                  "3350\n[framework]\nbase = pytorch-eager-hopper\n" NODE_PART);
    CHECK_EQ(sm_device_load(no_sms, &dev, &st), -1);
    CHECK_CONTAINS(st.msg, "pytorch-eager-hopper.ini:");
    CHECK_CONTAINS(st.msg, no_sms);
    CHECK_CONTAINS(st.msg, "give the part's sm_count and boost_clock_mhz");
    /* a framework file is a base itself */
    CHECK_EQ(sm_device_load("configs/devices/h100.ini", &dev, &st), 0);
    const char *fw = net_file("[framework]\nbase = fused\ndispatch_fwd_us = 3\n");
    CHECK_EQ(sm_device_load_framework(fw, &dev, &st), -1);
    CHECK_CONTAINS(st.msg, ":2: base in a framework file");
    /* The H100 PCIe holds 1,390 MHz under its 350 W, the H100 SXM the framework's convolutions
     * were measured on 1,830 of 1,980 (device_arch.c's two operating points): the PCIe card's
     * reach (1390 / 1755) / (1830 / 1980) of the SXM's fractions of their peaks; the h100
     * gives its own compute efficiencies, measured at its own clock, and keeps them. */
    CHECK_EQ(sm_device_load("configs/devices/h100.ini", &own, &st), 0);
    CHECK_EQ(sm_device_load("configs/devices/h100-pcie.ini", &pcie, &st), 0);
    double factor = (1390.0 / 1755) / (1830.0 / 1980);
    for (int p = 0; p < SM_N_PRECISIONS; p++)
        for (int k = 0; k < 4; k++) {
            double sxm = own.conv_kind_efficiency[p][k / 2][k % 2];
            CHECK(sxm > 0);
            CHECK_NEAR(pcie.conv_kind_efficiency[p][k / 2][k % 2], sxm * factor, 1e-9);
        }
    /* the same from --framework pytorch-eager-hopper in place of its own; none from one that
     * gives none */
    CHECK_EQ(sm_device_load_framework("configs/frameworks/pytorch-eager-hopper.ini", &pcie, &st),
             0);
    CHECK_NEAR(pcie.conv_kind_efficiency[SM_BF16][0][0],
               own.conv_kind_efficiency[SM_BF16][0][0] * factor, 1e-9);
    CHECK_STR_EQ(pcie.framework_base, "");
    CHECK_EQ(sm_device_load_framework("configs/frameworks/pytorch-eager.ini", &pcie, &st), 0);
    CHECK_NEAR(pcie.conv_kind_efficiency[SM_BF16][0][0], 0, 0);
}

static void test_pass_work(void)
{
    sm_device v = {.mask_bytes = 1};
    sm_layer_type attention = {.name = "attention", .traits = SM_TRAIT_MATMUL};
    sm_layer_type conv = {.name = "conv2d", .traits = SM_TRAIT_CONVOLUTION};
    sm_layer l = {.type = &attention}, c = {.type = &conv};
    sm_metrics m = pass_counts();
    m.scores_bytes = 400, m.scores_flops = 20;
    sm_layer_work f = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 1);
    sm_layer_work b = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 1, 1);
    CHECK_EQ(f.matmul_flops, 20);
    CHECK_EQ(f.score_flops, 40);
    CHECK_EQ(f.vector_flops, 40);
    CHECK_EQ(f.bytes, 300);
    CHECK_EQ(f.score_bytes, 100);
    CHECK_EQ(f.serial_bytes, 100);
    CHECK_EQ(b.matmul_flops, 40);
    CHECK_EQ(b.score_flops, 80);
    CHECK_EQ(b.vector_flops, 80);
    CHECK_EQ(b.bytes, 600);
    CHECK_EQ(b.score_bytes, 200);
    CHECK_EQ(b.serial_bytes, 200);
    /* with dropout on the probabilities: training adds it, inference does not */
    l.m.scores_bytes = 200;
    l.saved.scores_mask_elems = 10;
    f = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 1);
    b = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 1, 1);
    CHECK_EQ(f.serial_bytes, 200);
    CHECK_EQ(b.serial_bytes, 300);
    CHECK_EQ(sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 0).serial_bytes, 100);
    /* the roofline: 5.4 s of arithmetic (20 matrix FLOPs at 50 FLOP/s, 40 vector at 8) against
     * 300 overlapped bytes at 100 B/s (3 s), then 200 serial bytes (2 s), then the score
     * products: 40 FLOPs (0.8 s) against their 100 bytes (1 s) */
    sm_device r = v;
    r.peak[SM_FP32] = 10;
    r.peak[SM_BF16] = 100;
    r.efficiency[SM_FP32] = 0.8;
    r.efficiency[SM_BF16] = 0.5;
    r.memory_bandwidth = 200;
    r.memory_efficiency = 0.5;
    CHECK_NEAR(sm_layer_roofline_seconds(&r, SM_BF16, f), 5.4 + 2 + 1, 1e-12);
    CHECK_NEAR(sm_layer_score_seconds(&r, SM_BF16, f), 1, 1e-12);
    f.bytes = 1000; /* memory-bound: 10 s, then 2 and 1 */
    CHECK_NEAR(sm_layer_roofline_seconds(&r, SM_BF16, f), 13, 1e-12);
    f.score_flops = 100; /* score products bound by their arithmetic: 2 s */
    CHECK_NEAR(sm_layer_score_seconds(&r, SM_BF16, f), 2, 1e-12);
    l.saved.scores_mask_elems = 0;
    v.fused_attention = 1;
    f = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 1);
    b = sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 1, 1);
    CHECK_EQ(f.matmul_flops, 60);
    CHECK_EQ(f.score_flops, 0);
    CHECK_EQ(f.vector_flops, 40);
    CHECK_EQ(f.bytes, 300);
    CHECK_EQ(f.score_bytes, 0);
    CHECK_EQ(f.serial_bytes, 0);
    CHECK_EQ(b.matmul_flops, 140);
    CHECK_EQ(b.vector_flops, 80);
    CHECK_EQ(b.bytes, 600);
    f = sm_layer_pass_work(&v, &l, &m, 2, SM_FP32, 0, 1);
    CHECK_EQ(f.bytes, 600);
    CHECK_EQ(f.conv_flops, 0);
    /* a convolution's matrix products are its own kind, at conv_efficiency */
    v.fused_attention = 0;
    sm_metrics mc = pass_counts();
    f = sm_layer_pass_work(&v, &c, &mc, 2, SM_BF16, 0, 1);
    CHECK_EQ(f.matmul_flops, 0);
    CHECK_EQ(f.conv_flops, 60);
    CHECK_EQ(f.vector_flops, 40);
    /* the attention's 20 matrix FLOPs beside its score products at 100 x 0.5 and 40 vector
     * FLOPs at 10 x 0.8, or 60 as a convolution's at 100 x 0.25: 0.4 + 5 and 2.4 + 5 seconds */
    v.peak[SM_FP32] = 10;
    v.peak[SM_BF16] = 100;
    v.efficiency[SM_FP32] = 0.8;
    v.efficiency[SM_BF16] = 0.5;
    v.conv_efficiency[SM_BF16] = 0.25;
    CHECK_NEAR(
        sm_layer_compute_seconds(&v, SM_BF16, sm_layer_pass_work(&v, &l, &m, 2, SM_BF16, 0, 1)),
        5.4, 1e-12);
    CHECK_NEAR(
        sm_layer_compute_seconds(&v, SM_BF16, sm_layer_pass_work(&v, &c, &mc, 2, SM_BF16, 0, 1)),
        7.4, 1e-12);
}

int main(void)
{
    sm_status st;
    sm_device dev;
    char path_buf[4096];
    test_pass_work();
    test_framework_base();
    test_own_dropout();
    test_score_passes();
    test_score_products();
    test_broadcast_pass();
    test_broadcast_layer();
    test_view_copies();
    test_bias_grads();
    test_fp8_products();
    test_stream_layers();
    test_upcast_serial();
    test_softmax_fp32();
    test_autocast_softmax();
    test_autocast_fp32();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *path = net_file(cases[i].text);
        st.msg[0] = '\0';
        CHECK_EQ(sm_device_load(path, &dev, &st), -1);
        char where[96];
        if (cases[i].line)
            snprintf(where, sizeof where, "%s:%d: ", path, cases[i].line);
        else
            snprintf(where, sizeof where, "%s: ", path);
        CHECK_CONTAINS(st.msg, where);
        CHECK_CONTAINS(st.msg, cases[i].phrase);
        CHECK(strchr(st.msg, '\n') == NULL);
    }

    /* a '#' inside a word is text (NVIDIA/nccl#1752), and ';' after a blank a comment */
    const char *path =
        net_file("[device]\nsource = NVIDIA/nccl#1752 ; the issue\n"
                 "peak_fp32_tflops = 10 ; TF\nmemory_bandwidth_gb_s = 1000\n" NODE_PART);
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_STR_EQ(dev.source, "NVIDIA/nccl#1752");

    /* The fields that may be left out take the documented defaults. */
    path = net_file(DEVICE_PART NODE_PART);
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_NEAR(dev.compute_efficiency, 0.5, 0);
    CHECK_NEAR(dev.memory_efficiency, 0.7, 0);
    CHECK_NEAR(dev.stream_efficiency, 0.7, 0); /* no memory_type: memory_efficiency's */
    CHECK_NEAR(dev.launch_overhead, 5e-6, 0);
    CHECK_EQ(dev.inter_ports, 1);
    CHECK_EQ(dev.precision, SM_FP32);
    CHECK_EQ(dev.fuse_epilogues, 0);
    CHECK_EQ(dev.fuse_bn_relu, 0);
    CHECK_EQ(dev.channels_last, 0);   /* NCHW, PyTorch's default memory format */
    CHECK_NEAR(dev.grad_bytes, 4, 0); /* fp32 gradients, as DDP under AMP */
    CHECK_EQ(dev.collective, SM_COLLECTIVE_RING);
    CHECK_NEAR(dev.nvls_efficiency, 0, 0);    /* no NVLink SHARP */
    CHECK_EQ(dev.generation, SM_GPU_UNKNOWN); /* NCCL's per-generation caps left out */
    CHECK_EQ(dev.host, SM_HOST_OTHER);        /* NCCL's values for a host not AMD's */
    CHECK_CONTAINS(dev.name, "sm_test_net_"); /* the file's name */
    /* units: TFLOP/s, GB/s and microseconds into SI */
    CHECK_NEAR(dev.peak[SM_FP32], 10e12, 1e-15);
    CHECK_NEAR(dev.memory_bandwidth, 1000e9, 1e-15);
    CHECK_NEAR(dev.intra.latency, 3e-6, 1e-15);

    /* plain element-wise kernels: memory_type's fraction (GDDR6: 0.77 beside the step's 0.68,
     * device_arch.c), never below the description's memory_efficiency, the key as given */
    path = net_file(DEVICE_PART "memory_type = gddr6\n" NODE_PART);
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_NEAR(dev.memory_efficiency, 0.68, 1e-12);
    CHECK_NEAR(dev.stream_efficiency, 0.77, 1e-12);
    path = net_file(DEVICE_PART "memory_type = gddr6\nmemory_efficiency = 0.9\n" NODE_PART);
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_NEAR(dev.stream_efficiency, 0.9, 1e-12);
    path = net_file(DEVICE_PART "memory_type = hbm2\nstream_efficiency = 0.72\n" NODE_PART);
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_NEAR(dev.stream_efficiency, 0.72, 1e-12);

    /* NCCL's generation from the tensor cores where architecture is left out (Ada's is
     * Ampere's, NCCL going by compute capability), and unknown where neither is given */
    path = net_file(DEVICE_PART "tensor_cores = ada\n" NODE_PART);
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_EQ(dev.generation, SM_GPU_AMPERE);
    path = net_file(DEVICE_PART "tensor_cores = hopper\n" NODE_PART "nvls_efficiency = 0.85\n");
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_EQ(dev.generation, SM_GPU_HOPPER);

    /* The name of a description or framework that gives none: its file's, less the final
     * .ini alone (cut at the first dot, h100-v1.5.ini was h100-v1, and .hidden.ini an empty
     * name); a file named .ini keeps its whole name, as a network's does, never an empty one. */
    char dir[] = "/tmp/sm_test_names_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    static const struct {
        const char *file, *name;
    } names[] = {{"h100-v1.5.ini", "h100-v1.5"},
                 {".hidden.ini", ".hidden"},
                 {".ini", ".ini"},
                 {"a.b.c", "a.b.c"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        CHECK_EQ(load_named(dir, names[i].file, DEVICE_PART NODE_PART, 0, &dev, &st), 0);
        CHECK_STR_EQ(dev.name, names[i].name);
        CHECK_EQ(load_named(dir, names[i].file, "[framework]\ndispatch_fwd_us = 3\n", 1, &dev, &st),
                 0);
        CHECK_STR_EQ(dev.framework, names[i].name);
    }
    rmdir(dir);

    /* A node of one device (a PCIe card alone in its server) has no link inside it: the file
     * need not give one, and -g takes one device. */
    path = net_file(DEVICE_PART "[node]\ndevices_per_node = 1\ninter_node_bandwidth_gb_s = 50\n"
                                "inter_node_latency_us = 10\n");
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_EQ(dev.max_devices_per_node, 1);
    CHECK_NEAR(dev.intra.bandwidth, 0, 0);
    CHECK_EQ(sm_device_check_layout(&dev, 2, &st), -1);
    /* listed (`scalemeter devices`) as no link: null, not 0 GB/s and 0 us */
    sm_device_info info;
    CHECK_EQ(sm_device_describe(path, &info, &st), 0);
    CHECK_NEAR(info.intra_node_bandwidth_gb_s, 0, 0);
    CHECK(isnan(info.intra_node_latency_us));
    path = net_file(DEVICE_PART "[node]\ndevices_per_node = 1\nmax_devices_per_node = 1\n"
                                "inter_node_bandwidth_gb_s = 50\ninter_node_latency_us = 10\n");
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);

    /* The shipped descriptions, by name. Dense datasheet peaks: the H100's 989 TF (TF32) and
     * 1,979 TF (BF16) are sparse figures; half of them are dense. */
    static const struct {
        const char *name;
        double tf32, bf16, bandwidth;
        int per_node;
        sm_collective collective;
        double nvls; /* NVLink SHARP: Hopper's NVSwitch */
        sm_gpu_generation generation;
        sm_host_cpu host; /* DGX-1 and DGX H100/H200: Intel Xeon; DGX A100: AMD EPYC */
    } shipped[] = {
        {"v100", 0, 0, 900e9, 8, SM_COLLECTIVE_NCCL, 0, SM_GPU_VOLTA, SM_HOST_INTEL},
        {"a100", 156e12, 312e12, 2039e9, 8, SM_COLLECTIVE_NCCL, 0, SM_GPU_AMPERE, SM_HOST_AMD},
        {"h100", 494.7e12, 989.4e12, 3350e9, 8, SM_COLLECTIVE_NCCL, 0.85, SM_GPU_HOPPER,
         SM_HOST_INTEL},
        {"h200", 494.7e12, 989.4e12, 4800e9, 8, SM_COLLECTIVE_NCCL, 0.85, SM_GPU_HOPPER,
         SM_HOST_INTEL},
        {"cpu", 0, 0, 204.8e9, 2, SM_COLLECTIVE_RING, 0, SM_GPU_UNKNOWN, SM_HOST_OTHER}};
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        char file[4096];
        CHECK_EQ(sm_device_find(shipped[i].name, file, sizeof file, &st), 0);
        CHECK_EQ(sm_device_load(file, &dev, &st), 0);
        CHECK_NEAR(dev.peak[SM_TF32], shipped[i].tf32, 1e-12);
        CHECK_NEAR(dev.peak[SM_BF16], shipped[i].bf16, 1e-12);
        CHECK_NEAR(dev.memory_bandwidth, shipped[i].bandwidth, 1e-12);
        CHECK_EQ(dev.devices_per_node, shipped[i].per_node);
        CHECK_EQ(dev.collective, shipped[i].collective);
        CHECK_NEAR(dev.nvls_efficiency, shipped[i].nvls, 0);
        CHECK_EQ(dev.generation, shipped[i].generation);
        CHECK_EQ(dev.host, shipped[i].host);
        sm_predictor *p;
        CHECK_EQ(sm_predictor_from_device(shipped[i].name, &p, &st), 0);
        sm_predictor_free(p);
    }

    /* The clock each part sustains under dense work (device_arch.c's power model, by hand):
     * Hopper's s = 1.3284 W and k = 0.64855 W/GHz^3 per SM from H100 SXM (700 W, 132 SMs,
     * 1830 MHz) and H100 PCIe (350 W, 114 SMs, 1390 MHz); Ampere's from A100 SXM (400 W, 108
     * SMs, 1305 MHz) at Hopper's static share 0.2505: s = 0.9278, k = 1.2490. A100 PCIe 40 GB
     * at 250 W: cbrt((250 / 108 - 0.9278) / 1.2490) = 1.0355 GHz; A10 (150 W, 72 SMs):
     * cbrt((2.0833 - 0.9278) / 1.2490) = 0.9744 GHz. The T4 is the Turing anchor (900 MHz),
     * the L4 gives its own (1190 MHz); Volta has no model: the boost clock. Ada's s and k
     * through L40S (350 W / 142 SMs = 2.46479 W at 2.36 GHz) and L4 (72 / 58 = 1.24138 W at
     * 1.19 GHz): k = 1.22341 / (13.14426 - 1.68516) = 0.106763, s = 2.46479 - 0.106763 x
     * 13.14426 = 1.06147; RTX 6000 Ada (300 W, 142 SMs) cbrt((2.11268 - 1.06147) / 0.106763)
     * = 2.1433 GHz; RTX 4090 (450 W, 128) cbrt(22.987) = 2.843 GHz, above its 2520 MHz boost:
     * the boost clock. */
    static const struct {
        const char *name;
        double mhz;
    } clocks[] = {
        {"h100", 1830}, {"h100-pcie", 1390}, {"a100", 1305},         {"a100-pcie-40gb", 1035.5},
        {"a10", 974.4}, {"t4", 900},         {"l4", 1190},           {"v100", 1530},
        {"l40s", 2360}, {"rtx4090", 2520},   {"rtx6000-ada", 2143.3}};
    for (size_t i = 0; i < sizeof clocks / sizeof *clocks; i++) {
        char file[4096];
        CHECK_EQ(sm_device_find(clocks[i].name, file, sizeof file, &st), 0);
        CHECK_EQ(sm_device_load(file, &dev, &st), 0);
        CHECK_NEAR(sm_device_sustained_clock(&dev) / 1e6, clocks[i].mhz, 5e-4);
    }
    /* The clock the per-SM-clock keys are taken at: the boost clock x 1830 / 1980 (the keys'
     * unit: measured on an H100 and an H200 holding 1980 MHz, written at 1830), at least the
     * clock under dense work. H100 1980 x 1830 / 1980 = 1830; H100 PCIe 1755 x 0.924242 =
     * 1622.05 (1390 dense); A100 PCIe 40 GB 1410 x 0.924242 = 1303.18 (1035.5); A10 1695 x
     * 0.924242 = 1566.59 (974.4); L4 2040 x 0.924242 = 1885.45 (its given 1190); A100 SXM
     * 1303.18 below its dense 1305; V100 (no power model) 1414.09 below its boost, 1530. */
    static const struct {
        const char *name;
        double mhz;
    } light[] = {{"h100", 1830},   {"h100-pcie", 1622.05}, {"a100-pcie-40gb", 1303.18},
                 {"a10", 1566.59}, {"l4", 1885.45},        {"a100", 1305},
                 {"v100", 1530}};
    for (size_t i = 0; i < sizeof light / sizeof *light; i++) {
        char file[4096];
        CHECK_EQ(sm_device_find(light[i].name, file, sizeof file, &st), 0);
        CHECK_EQ(sm_device_load(file, &dev, &st), 0);
        CHECK_NEAR(sm_device_light_clock(&dev) / 1e6, light[i].mhz, 5e-3);
    }
    /* a description's own efficiency stands: it was measured at the part's own clock */
    path = net_file("[device]\npeak_fp32_tflops = 8.1\npeak_fp16_tflops = 65\n"
                    "memory_bandwidth_gb_s = 320\nsm_count = 40\nboost_clock_mhz = 1590\n"
                    "fp32_lanes_per_sm = 64\ntensor_cores = turing\npower_limit_w = 70\n"
                    "compute_efficiency_fp16 = 0.6\n" NODE_PART);
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_NEAR(dev.efficiency[SM_FP16], 0.6, 0);
    CHECK_NEAR(dev.conv_efficiency[SM_FP16], 0.6, 0); /* its convolutions' too */
    CHECK_NEAR(dev.efficiency[SM_FP32], 0.85 * 900 / 1590, 1e-4);

    /* Hopper's convolutions at fp16 and bf16: 0.35 of the peak at H100 SXM's sustained clock
     * (device_arch.c), the matrix products 0.7; an explicit conv key wins, and a part with a
     * lower clock takes both at its ratio. h100-pcie holds 1390 of 1755 MHz where the SXM
     * holds 1830 of 1980: 0.35 x (1390 / 1755) / (1830 / 1980) = 0.29993. */
    CHECK_EQ(sm_device_find("h100-pcie", path_buf, sizeof path_buf, &st), 0);
    CHECK_EQ(sm_device_load(path_buf, &dev, &st), 0);
    CHECK_NEAR(dev.conv_efficiency[SM_BF16], 0.35 * (1390.0 / 1755) / (1830.0 / 1980), 2e-3);
    CHECK_NEAR(dev.efficiency[SM_BF16], 0.7 * (1390.0 / 1755) / (1830.0 / 1980), 2e-3);
    /* at tf32 Hopper's convolutions take 0.44, its matrix products 0.7, at the same ratio */
    CHECK_NEAR(dev.conv_efficiency[SM_TF32], 0.44 * (1390.0 / 1755) / (1830.0 / 1980), 2e-3);
    CHECK_NEAR(dev.efficiency[SM_TF32], 0.7 * (1390.0 / 1755) / (1830.0 / 1980), 2e-3);
    path = net_file("[device]\npeak_fp32_tflops = 66.9\npeak_bf16_tflops = 989.4\n"
                    "memory_bandwidth_gb_s = 3350\ntensor_cores = hopper\n"
                    "conv_efficiency_bf16 = 0.3\n" NODE_PART);
    CHECK_EQ(sm_device_load(path, &dev, &st), 0);
    CHECK_NEAR(dev.conv_efficiency[SM_BF16], 0.3, 0);
    CHECK_NEAR(dev.efficiency[SM_BF16], 0.7, 0);
    CHECK_NEAR(dev.conv_efficiency[SM_FP16], 0.35, 0);

    /* Ampere's convolutions by the tensor cores' rate a SM and clock (device_arch.c): 0.5 of
     * the fp16 peak and 0.28 of TF32's on GA100's 2,049 dense fp16 FLOP a SM and clock (312
     * TFLOPS / (108 x 1.41 GHz)), the matrix products 0.7. No power limit, so no clock model:
     * the fractions as they stand. At GA100's rate, 0.5 and 0.28; at three quarters of it (234
     * TFLOPS: 1,536.7), 0.5 x 2,049 / 1,536.7 = 0.6667 and 0.28 x 4 / 3 = 0.3733; at half (156:
     * GA102's 1,024 a SM and clock), 1.0 and 0.56, the first bounded by the products' 0.7. */
    static const struct {
        double fp16, conv16, conv32;
    } ampere[] = {{312, 0.5, 0.28},
                  {234, 0.5 * 2049 / (234e12 / (108 * 1.41e9)), 0.28 * 4 / 3},
                  {156, 0.7, 0.56}};
    for (size_t i = 0; i < sizeof ampere / sizeof *ampere; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "[device]\npeak_fp32_tflops = 19.5\npeak_tf32_tflops = %g\n"
                 "peak_fp16_tflops = %g\nmemory_bandwidth_gb_s = 2039\nsm_count = 108\n"
                 "boost_clock_mhz = 1410\ntensor_cores = ampere\n" NODE_PART,
                 ampere[i].fp16 / 2, ampere[i].fp16);
        path = net_file(text);
        CHECK_EQ(sm_device_load(path, &dev, &st), 0);
        CHECK_NEAR(dev.conv_efficiency[SM_FP16], ampere[i].conv16, 1e-3);
        CHECK_NEAR(dev.conv_efficiency[SM_TF32], ampere[i].conv32, 1e-3);
        CHECK_NEAR(dev.efficiency[SM_FP16], 0.7, 0);
    }
    /* the shipped a100 (the reference, at its own clock) and a10 (GA102, half GA100's rate a
     * SM and clock: its convolutions at its products' fraction at fp16, 0.56 / 0.7 of it at
     * TF32) */
    CHECK_EQ(sm_device_find("a100", path_buf, sizeof path_buf, &st), 0);
    CHECK_EQ(sm_device_load(path_buf, &dev, &st), 0);
    CHECK_NEAR(dev.conv_efficiency[SM_BF16], 0.5, 1e-3);
    CHECK_EQ(sm_device_find("a10", path_buf, sizeof path_buf, &st), 0);
    CHECK_EQ(sm_device_load(path_buf, &dev, &st), 0);
    CHECK_NEAR(dev.conv_efficiency[SM_FP16], dev.efficiency[SM_FP16], 1e-9);
    CHECK_NEAR(dev.conv_efficiency[SM_TF32] / dev.efficiency[SM_TF32], 0.56 / 0.7, 1e-3);

    /* The shipped frameworks' layouts: eager PyTorch NCHW unless told (pytorch-channels-last,
     * as DeepLearningExamples' AMP configs say memory_format: nhwc); NVIDIA's MLPerf ResNet-50
     * code NHWC (--conv-layout NHWC) in the three frameworks that stand for it. */
    static const struct {
        const char *file;
        int channels_last;
    } frameworks[] = {{"configs/frameworks/pytorch-eager.ini", 0},
                      {"configs/frameworks/pytorch-channels-last.ini", 1},
                      {"configs/frameworks/cuda-graphs.ini", 1},
                      {"configs/frameworks/fused.ini", 1},
                      {"configs/frameworks/fused-bn-relu.ini", 1}};
    for (size_t i = 0; i < sizeof frameworks / sizeof *frameworks; i++) {
        CHECK_EQ(sm_device_load_framework(frameworks[i].file, &dev, &st), 0);
        CHECK_EQ(dev.channels_last, frameworks[i].channels_last);
    }
    /* What bounds batch norm and cuDNN's transposes, and which convolutions it transposes:
     * pytorch-eager-kernels.ini gives them (an H200's and an H100's profiles,
     * docs/ops-h200.md, docs/ops-h100-h200.md); a framework loaded after it that gives less
     * is back to what it gives, not left with them: pytorch-eager.ini cuDNN 9's rule at the
     * DRAM's rate, pytorch-eager-cudnn8.ini every transpose. */
    CHECK_EQ(sm_device_load("configs/devices/h100.ini", &dev, &st), 0); /* SMs and a clock */
    CHECK_EQ(sm_device_load_framework("configs/frameworks/pytorch-eager-kernels.ini", &dev, &st),
             0);
    CHECK_EQ(dev.channels_last, 0);
    CHECK_NEAR(dev.nchw_transpose_share, 1, 0);
    CHECK(dev.nchw_matmul_positions > 0 && dev.transpose_sm_elements > 0);
    CHECK(dev.batchnorm_sm_bytes[0][0] > 0 && dev.batchnorm_sm_bytes[1][0] > 0);
    /* PyTorch's own bf16 kernel streams less than cuDNN's, as it did on the H200 */
    CHECK(dev.batchnorm_sm_bytes[1][0] < dev.batchnorm_sm_bytes[0][0]);
    CHECK(dev.batchnorm_sm_bytes[1][1] < dev.batchnorm_sm_bytes[0][1]);
    CHECK_EQ(sm_device_load_framework("configs/frameworks/pytorch-eager.ini", &dev, &st), 0);
    CHECK_NEAR(dev.nchw_transpose_share, 1, 0);
    CHECK_EQ(dev.nchw_matmul_positions, 196);
    CHECK_NEAR(dev.transpose_sm_elements, 0, 0);
    CHECK_NEAR(dev.batchnorm_sm_bytes[0][0], 0, 0);
    CHECK_EQ(sm_device_load_framework("configs/frameworks/pytorch-eager-cudnn8.ini", &dev, &st), 0);
    CHECK_EQ(dev.nchw_matmul_positions, 0);
    CHECK_NEAR(dev.transpose_sm_elements, 0, 0);
    /* the h100's own eager framework prices convolutions by kind and pass (docs/devices.md),
     * its 1 x 1 ones at fp32 below its k x k ones, as the H100's profiles ran them, and at
     * fp16 since its second lease profiled fp16; a framework loaded after it that gives none
     * leaves conv_efficiency alone to price them */
    sm_device own;
    CHECK_EQ(sm_device_load("configs/devices/h100.ini", &own, &st), 0);
    CHECK(own.host_runs_ahead == 1);
    CHECK(own.conv_kind_efficiency[SM_FP32][1][0] > 0 &&
          own.conv_kind_efficiency[SM_FP32][1][0] < own.conv_kind_efficiency[SM_FP32][0][0]);
    CHECK(own.conv_kind_efficiency[SM_FP16][0][0] > 0);
    CHECK_EQ(sm_device_load_framework("configs/frameworks/pytorch-eager.ini", &own, &st), 0);
    for (int p = 0; p < SM_N_PRECISIONS; p++)
        for (int k = 0; k < 4; k++)
            CHECK(own.conv_kind_efficiency[p][k / 2][k % 2] == 0);
    for (int k = 0; k < 2; k++)
        CHECK(dev.batchnorm_sm_bytes[k][0] == 0 && dev.batchnorm_sm_bytes[k][1] == 0);
    /* Attention: eager PyTorch runs each layer as the network's code does (torchvision's ViT
     * and Hugging Face's models call scaled_dot_product_attention); Megatron-LM's 2021 code and
     * NVIDIA's BERT (pretraining, and SQuAD as Lambda's benchmark runs it) their own eager
     * attention, torchtitan and Megatron-Core their own
     * fused kernels. */
    static const struct {
        const char *file;
        int attention;
    } attention[] = {{"configs/frameworks/pytorch-eager.ini", SM_ATTENTION_AS_WRITTEN},
                     {"configs/frameworks/megatron.ini", SM_ATTENTION_EAGER},
                     {"configs/frameworks/dle-bert.ini", SM_ATTENTION_EAGER},
                     {"configs/frameworks/dle-squad.ini", SM_ATTENTION_EAGER},
                     {"configs/frameworks/dle-squad-fp32.ini", SM_ATTENTION_EAGER},
                     {"configs/frameworks/torchtitan.ini", SM_ATTENTION_FUSED},
                     {"configs/frameworks/megatron-core.ini", SM_ATTENTION_FUSED}};
    for (size_t i = 0; i < sizeof attention / sizeof *attention; i++) {
        CHECK_EQ(sm_device_load_framework(attention[i].file, &dev, &st), 0);
        CHECK_EQ(dev.fused_attention, attention[i].attention);
        CHECK_EQ(dev.fused_attention_dropout, 1);
    }
    /* a framework file goes through the same reader; a comment may follow a header */
    CHECK_EQ(sm_device_load_framework(net_file("[framework] dispatch_fwd_us = 3\n"), &dev, &st),
             -1);
    CHECK_CONTAINS(st.msg, ":1: 'dispatch_fwd_us = 3' after the header [framework]");
    CHECK_EQ(sm_device_load_framework(net_file("[framework]  ; eager\ndispatch_fwd_us = 3\n"), &dev,
                                      &st),
             0);
    /* PyTorch's CPU scaled_dot_product_attention takes no dropout */
    CHECK_EQ(sm_device_load("configs/devices/cpu.ini", &dev, &st), 0);
    CHECK_EQ(dev.fused_attention_dropout, 0);
    CHECK_EQ(dev.fused_attention, SM_ATTENTION_AS_WRITTEN);
    /* and a framework put on it keeps what its kernels keep: PyTorch's CPU dropout's float
     * mask, no library workspace, no context (a --framework once reset them to CUDA's) */
    CHECK_EQ(sm_device_load_framework("configs/frameworks/pytorch-eager.ini", &dev, &st), 0);
    CHECK_EQ(dev.fused_attention_dropout, 0);
    CHECK_EQ(dev.mask_bytes, 4);
    CHECK_EQ(dev.workspace + dev.conv_workspace + dev.context, 0);

    sm_predictor *p;
    CHECK_EQ(sm_predictor_from_device("no_such_device", &p, &st), -1);
    CHECK_CONTAINS(st.msg, "unknown device 'no_such_device'");
    CHECK_EQ(sm_predictor_from_device("tests/data/curve/missing.ini", &p, &st), -1);
    CHECK_CONTAINS(st.msg, "unknown device 'tests/data/curve/missing.ini'");

    /* The shipped fusing framework on torchvision's ResNet-50: all 53 BatchNorm2d modules are
     * fed by a convolution, and the ReLU runs 49 times (after the stem and three times in each
     * of the 16 bottlenecks: after bn1, bn2 and the residual addition), so 102 layers fuse. */
    sm_registry *reg;
    sm_network *net;
    CHECK_EQ(sm_device_load_framework("configs/frameworks/fused.ini", &dev, &st), 0);
    CHECK_EQ(dev.fuse_epilogues, 1);
    CHECK_NEAR(dev.grad_bytes, 2, 0); /* fp16 gradients, as NVIDIA's MLPerf code reduces them */
    if (sm_registry_open(&reg, &st) || sm_network_load(reg, "resnet50", NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    unsigned char fused[1024];
    CHECK(net->n_layers <= (int)sizeof fused);
    CHECK_EQ(sm_network_fused(&dev, net, fused), 0);
    int n_fused = 0, n_norms = 0, n_relus = 0, n_gradients = 0;
    for (int i = 0; i < net->n_layers; i++) {
        n_fused += fused[i] != 0;
        n_gradients += fused[i] == SM_FUSED_GRADIENT;
        n_norms += !strcmp(net->layers[i].type->name, "batchnorm2d");
        n_relus += !strcmp(net->layers[i].type->name, "relu");
    }
    CHECK_EQ(n_norms, 53);
    CHECK_EQ(n_relus, 49);
    CHECK_EQ(n_fused, 102);
    /* the ReLU after each of the 16 bottlenecks' sums keeps its gradient */
    CHECK_EQ(n_gradients, 16);
    dev.fuse_epilogues = 0;
    n_fused = 0;
    CHECK_EQ(sm_network_fused(&dev, net, fused), 0);
    for (int i = 0; i < net->n_layers; i++)
        n_fused += fused[i] != 0;
    CHECK_EQ(n_fused, 0);
    /* The same code across nodes (configs/frameworks/fused-bn-relu.ini): the 53 norms run as
     * kernels, and every ReLU follows a norm (after the stem, bn1 and bn2 of each bottleneck)
     * or a residual addition of bn3's output (16 additions, fused with their ReLU into a
     * BN-add-ReLU kernel): 49 + 16 = 65 layers fuse. */
    CHECK_EQ(sm_device_load_framework("configs/frameworks/fused-bn-relu.ini", &dev, &st), 0);
    CHECK_EQ(dev.fuse_bn_relu, 1);
    CHECK_EQ(dev.fuse_epilogues, 0);
    int n_adds = 0, n_fused_norms = 0;
    n_fused = 0;
    CHECK_EQ(sm_network_fused(&dev, net, fused), 0);
    for (int i = 0; i < net->n_layers; i++) {
        n_fused += fused[i] != 0;
        n_adds += !strcmp(net->layers[i].type->name, "add");
        n_fused_norms += fused[i] && !strcmp(net->layers[i].type->name, "batchnorm2d");
    }
    CHECK_EQ(n_adds, 16);
    CHECK_EQ(n_fused_norms, 0);
    CHECK_EQ(n_fused, 65);
    sm_network_free(net);
    /* An identity (EfficientNet's stochastic depth at p = 0, nn.Identity) between a norm and
     * the addition of its output launches nothing: the addition and the ReLU after it still
     * ride in the norm's BN-add-ReLU kernel, as without it (they ran before). */
    const char *residual = "[network]\nname = sd\ninput = 4x8x8\n[layers]\n"
                           "conv = conv2d out=4 kernel=1\nbn = batchnorm2d\nsd = identity\n"
                           "add = add from=sd,conv\nrelu = relu\n";
    if (sm_network_load(reg, net_file(residual), NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    CHECK_EQ(sm_network_fused(&dev, net, fused), 0);
    CHECK_EQ(fused[0] + fused[1] + fused[2], 0);
    CHECK_EQ(fused[3], 1);
    CHECK_EQ(fused[4], 1);
    sm_network_free(net);
    /* Broadcast inputs (plugin ABI 18's SM_TRAIT_ELEMENTWISE): torchvision's EfficientNet-B0
     * scales each of its 16 blocks' expanded maps by its squeeze-and-excitation's C x 1 x 1
     * (16 products over a smaller input) and adds 9 shortcuts of the block's own shape (no
     * broadcast); nothing else is element-wise. */
    if (sm_network_load(reg, "efficientnet_b0", NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    int n_broadcast = 0, n_broadcast_muls = 0;
    for (int i = 0; i < net->n_layers; i++) {
        n_broadcast += net->layers[i].broadcast;
        n_broadcast_muls += net->layers[i].broadcast && !strcmp(net->layers[i].type->name, "mul");
    }
    CHECK_EQ(n_broadcast, 16);
    CHECK_EQ(n_broadcast_muls, 16);
    sm_network_free(net);
    sm_registry_free(reg);

    unlink(net_file_path);
    return check_summary();
}
