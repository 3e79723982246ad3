/* The table of the options predict and curve share (predictor_options.h). To add one: a
 * member in predictor_options (or predictor_choice), one entry below; --help follows. */
#include "predictor_options.h"

#include "output.h"

#define AT(member) OPT_AT(predictor_options, member)
#define CHOICE(member) OPT_AT(predictor_options, choice.member)

static const opt_desc predictor_opts[] = {
    {"coeffs", 0, "FILE", opt_string, 0, CHOICE(coeffs),
     "coefficients fitted by `scalemeter fit`, or a name of configs/calibrations/\n"
     "(predict without --device: default, the shipped one-thread CPU calibration)"},
    {"device", 0, "NAME", opt_string, 0, CHOICE(device),
     "calibration-free roofline model of configs/devices/NAME.ini,\n"
     "or of a file (`scalemeter devices` lists those shipped); beside\n"
     "--coeffs: the passes and the update from the calibration, the\n"
     "gradients' all-reduce from the description (its links, devices per\n"
     "node and collective)"},
    {"precision", 0, "P", opt_string, 0, CHOICE(precision),
     "fp32, tf32, fp16 or bf16: --device models it (default: the\n"
     "file's); --coeffs refuses a calibration of another precision"},
    {"framework", 0, "F", opt_string, 0, CHOICE(framework),
     "(--device alone) how kernels are dispatched, and the activations'\n"
     "layout: configs/frameworks/F.ini (pytorch-eager,\n"
     "pytorch-eager-cudnn8, pytorch-channels-last, cuda-graphs, fused,\n"
     "fused-bn-relu) or a file (default: the device file's [framework])"},
    {"overlap", 0, NULL, opt_flag, 0, CHOICE(overlap),
     "all-reduce gradient buckets during the backward pass (with\n"
     "--coeffs alone: a ring-form calibration, its buckets and terms);\n"
     "NVLink nodes hid them so in published runs, PCIe nodes and VMs\n"
     "did not (docs/accuracy-multi-gpu.md)"},
    {"bucket-mib", 0, "M", opt_mib, 0, CHOICE(bucket_mib),
     "(--device) gradient bucket size (default 25, as PyTorch DDP)"},
    {"collective", 0, "C", opt_string, 0, CHOICE(collective),
     "(--device) the all-reduce: ring (the hierarchical ring) or nccl\n"
     "(NCCL's cost model: ring, tree or NVLS, LL, LL128 or Simple,\n"
     "whichever it predicts fastest for the bucket); default: the\n"
     "description's (nccl for the shipped GPUs, ring for the cpu)"},
    {"algorithm", 0, "LIST", opt_string, 0, CHOICE(algorithms),
     "(--device) NCCL's choice among these only, as NCCL_ALGO\n"
     "restricts it: Ring, Tree, NVLS, NVLSTree, comma-separated"},
    {"protocol", 0, "LIST", opt_string, 0, CHOICE(protocols),
     "(--device) likewise, as NCCL_PROTO: LL, LL128, Simple"},
    {"optimizer", 0, "O", opt_string, 0, CHOICE(optimizer),
     "sgd, momentum, adam or adamw: its state in the memory and, with\n"
     "--device alone, in the update's time (default: the framework's;\n"
     "where it names none, as the devices' own, the network's recipe's:\n"
     "adamw for llama3 and vit, momentum where it names none)"},
    {"shard", 0, "S", opt_string, 0, CHOICE(shard),
     "(--device alone) none (DDP), optimizer, gradients or full\n"
     "(ZeRO-1, -2, -3; FSDP's SHARD_GRAD_OP is gradients, FULL_SHARD\n"
     "full): states divided across the devices, and their collectives"},
    {"checkpoint", 0, "C", opt_string, 0, CHOICE(checkpoint),
     "(--device alone) none, selective or full activation\n"
     "checkpointing of the blocks (docs/memory.md)"},
    {"attention", 0, "A", opt_string, 0, CHOICE(attention),
     "(--device alone) every attention layer eager, or fused\n"
     "(FlashAttention, PyTorch's scaled_dot_product_attention: no score\n"
     "matrices kept or moved); default: the framework's fused_attention,\n"
     "else each as the network's code runs it (impl=sdpa fused)"},
    {"compile", 0, NULL, opt_flag, 0, CHOICE(compile),
     "(--device alone) the model compiled (torch.compile): each chain of\n"
     "element-wise work one kernel, eager attention's scaling and mask\n"
     "inside its softmax (the framework's fuse_pointwise; docs/scaling.md);\n"
     "the times only: the memory stays eager's"},
    {"fp8", 0, NULL, opt_flag, 0, CHOICE(fp8),
     "(--device alone, --precision bf16 or fp16) a float8 recipe (torchao's\n"
     "Float8Linear, Transformer Engine): the linear layers' products on\n"
     "the fp8 tensor cores, their operands cast, the output projection\n"
     "and the rest at --precision (docs/precision.md); the times only"},
    {"dispatch", 0, "D", opt_string, 0, CHOICE(dispatch),
     "(--device alone) queued: the host issues each layer's kernels\n"
     "while the GPU runs those before (a queue per pass); added: the\n"
     "dispatch adds to each layer's device time; default: the\n"
     "framework's host_runs_ahead (docs/scaling.md)"},
};

static const opt_desc layout_opts[] = {
    {"gpus-per-node", 'g', "G", opt_int, 4096, AT(gpus_per_node),
     "devices per node (default: the --device description's, else 1);\n"
     "N x G devices in all"},
    {"accumulate", 0, "K", opt_int, 1 << 20, AT(accumulate),
     "gradient accumulation: K micro-batches of --batch per device,\n"
     "forward and backward each, per optimizer step (default 1);\n"
     "t_step = K (t_fwd + t_bwd) + t_grad, one all-reduce and update\n"
     "per step (--overlap: behind the last backward pass); --shard full\n"
     "gathers and reduce-scatters every micro-batch (FSDP's default)"},
    {"image", 0, "S", opt_int, 1 << 20, AT(image),
     "an image network's input height and width (default: the file's)"},
    {"seq", 0, "S", opt_int, 1 << 24, AT(seq),
     "a sequence network's length in tokens (default: the file's)"},
    {"dataset", 0, "D", opt_dataset, MAX_DATASET, AT(dataset),
     "samples per epoch (default 1281167, ImageNet's training set)"},
    {"tokens", 0, "T", opt_tokens, 0, AT(tokens),
     "(a sequence network) tokens per epoch, with K, M, B (or G), T, P\n"
     "for powers of 1000, either case (300M, 2.5B, 15T): ceil(T /\n"
     "(global batch x S)) steps"},
    {"epochs", 0, "E", opt_int, MAX_EPOCHS, AT(epochs),
     "also the time to train for E epochs (t_train = E x t_epoch)"},
};

void predictor_option_groups(predictor_options *o, opt_group out[PREDICTOR_OPTION_GROUPS])
{
    out[0] = (opt_group)OPT_GROUP("the predictor", predictor_opts, o);
    out[1] = (opt_group)OPT_GROUP("layout and data", layout_opts, o);
}

const char *predictor_options_problem(predictor_options *o)
{
    const char *problem = predictor_choice_problem(&o->choice);
    if (!problem && o->image && o->seq)
        problem = "--image and --seq: one of the two (--image for an image network, --seq for "
                  "a sequence network)";
    else if (!problem && o->dataset && o->tokens)
        problem = "--dataset and --tokens: one of the two (samples, or a sequence network's "
                  "tokens)";
    if (!o->accumulate)
        o->accumulate = 1;
    return problem;
}
