#!/usr/bin/env python3
"""tests/data/reference/saved_tensors.json (tools/torch_saved_tensors.py, PyTorch's record of
what autograd keeps) against counts derived by hand from the networks' shapes and what each layer
type saves (docs/memory-reference.md): if the script or a regeneration goes wrong, these differ.
Needs no torch.

Usage: test_saved_tensors_reference.py   (run from the source root)
"""
import glob
import json
import os
import sys

F32, I64 = 4, 8
failures = 0


def check(what, got, want):
    global failures
    if got != want:
        print(f"FAIL {what}: got {got}, want {want}")
        failures += 1


with open("tests/data/reference/saved_tensors.json") as f:
    ref = json.load(f)
models = ref["models"]
check("batches", ref["batches"], [1, 2])
# The Llama 3 models and Mistral 7B are left out: their fp32 weights alone (32, 282, 1,623 and
# 29 GB) exceed the 24 GiB of the machines the reference is made on; their layers' declarations
# are checked by tests/test_llama.c against PyTorch's record of a small block.
TOO_BIG = {"llama3_8b", "llama3_70b", "llama3_405b", "mistral_7b"}
# Nor Llama 3.2's 1B and 3B (recorded after the reference was made; the same layer types as
# above, their sizes checked by tests/test_lm_zoo_params.py)
TOO_BIG |= {"llama3_2_1b", "llama3_2_3b"}
# Not yet recorded: the Megatron GPT networks and bert_large (tools/torch_saved_tensors.py
# builds no Megatron module, and the reference was made before bert_large); their counts are
# checked against the published sizes by tests/test_lm_zoo_params.py.
TOO_BIG |= {"megatron_gpt_1_7b", "megatron_gpt_1_7b_h100", "bert_large"}
# Nor DeepLearningExamples' ResNeXt101-32x4d and SE-ResNeXt101-32x4d (no torchvision builder;
# tests/test_dle_zoo_params.py counts them by hand): their layer types are all in networks above
# (regnet_y's blocks have the same squeeze-and-excitation).
TOO_BIG |= {"resnext101_32x4d", "se_resnext101_32x4d"}
zoo = sorted(os.path.basename(p)[:-4] for p in glob.glob("models/*.ini"))
check("networks: the whole zoo", sorted(models), [m for m in zoo if m not in TOO_BIG])


def saved(name, batch=1):
    return models[name]["batches"][str(batch)]


# Every image network's input is N x 3 x 224 x 224 float32, saved by its first conv.
for name in (m for m in zoo if m not in TOO_BIG):
    if name in ("bert_base", "gpt2"):
        continue
    for n in (1, 2):
        check(f"{name} batch {n} input_bytes", saved(name, n)["input_bytes"],
              n * 3 * 224 * 224 * F32)
        check(f"{name} batch {n} input saved", saved(name, n)["input_saved"], True)
check("bert_base input", saved("bert_base")["input_bytes"], 128 * I64)
check("gpt2 input", saved("gpt2", 2)["input_bytes"], 2 * 1024 * I64)


def basic_block(c, hw, downsample, conv1_new):
    """BN: input + save_mean + save_invstd; in-place ReLU: BN's output (twice: after bn1, after
    the residual add); conv1 saves its input only where no ReLU saved it (after the max pool)."""
    x = c * hw * hw * F32
    bn = x + 2 * c * F32
    return 2 * bn + 2 * x + (bn if downsample else 0) + (x if conv1_new else 0)


# resnet18, batch 1: conv1's input; bn1 on 64 x 112²; relu; max pool's int64 indices (its input
# is relu's storage); four stages of two BasicBlocks; fc's input, the 512 pooled values.
r18 = (3 * 224 * 224 * F32 + (64 * 112 * 112 * F32 + 2 * 64 * F32) + 64 * 112 * 112 * F32
       + 64 * 56 * 56 * I64
       + basic_block(64, 56, False, True) + basic_block(64, 56, False, False)
       + basic_block(128, 28, True, False) + basic_block(128, 28, False, False)
       + basic_block(256, 14, True, False) + basic_block(256, 14, False, False)
       + basic_block(512, 7, True, False) + basic_block(512, 7, False, False)
       + 512 * F32)
check("resnet18 batch 1 saved_bytes", saved("resnet18")["saved_bytes"], r18)
check("resnet18 int64", saved("resnet18")["by_dtype"]["int64"], 64 * 56 * 56 * I64)
# batch 2 doubles all but save_mean/save_invstd: 8 bytes per BN channel
bn_channels = 64 + 4 * 64 + 5 * 128 + 5 * 256 + 5 * 512
check("resnet18 batch 2", saved("resnet18", 2)["saved_bytes"], 2 * r18 - 2 * F32 * bn_channels)

# VGG16: five max pools, int64 indices of their outputs; vgg16_bn adds, per conv, BN's input
# (the conv output, which in vgg16 only the in-place ReLU saves) and 8 bytes per channel.
pools = 64 * 112 ** 2 + 128 * 56 ** 2 + 256 * 28 ** 2 + 512 * 14 ** 2 + 512 * 7 ** 2
check("vgg16 int64", saved("vgg16")["by_dtype"]["int64"], pools * I64)
check("vgg16_bn int64", saved("vgg16_bn")["by_dtype"]["int64"], pools * I64)
convs = [(64, 224)] * 2 + [(128, 112)] * 2 + [(256, 56)] * 3 + [(512, 28)] * 3 + [(512, 14)] * 3
check("vgg16_bn - vgg16", saved("vgg16_bn")["saved_bytes"] - saved("vgg16")["saved_bytes"],
      sum(c * hw * hw * F32 + 2 * c * F32 for c, hw in convs))
# Inception v3 at 224: max pools on 64 x 109², 192 x 52², 288 x 25², 768 x 12² (3x3, stride 2)
check("inception_v3 int64", saved("inception_v3")["by_dtype"]["int64"],
      (64 * 54 ** 2 + 192 * 25 ** 2 + 288 * 12 ** 2 + 768 * 5 ** 2) * I64)
check("densenet121 int64", saved("densenet121")["by_dtype"]["int64"], 64 * 56 * 56 * I64)
check("mobilenet_v2 no int64", "int64" in saved("mobilenet_v2")["by_dtype"], False)

# ViT-B/16, S = 197 tokens of E = 768, 12 heads. Per layer: two LayerNorms (input + mean + rstd),
# attention (in_proj input copy, q, k^T, v, out_proj input: 5 S E; softmax S² per head; a float64
# scalar), mlp.0's input S E, GELU's input and mlp.3's input 4 S E each. Around: conv_proj's input
# (the image), the final LayerNorm, the head's input (x[:, 0], a view of the whole sequence).
S, E = 197, 768
ln = S * E * F32 + 2 * S * F32
layer = 2 * ln + 5 * S * E * F32 + 12 * S * S * F32 + 8 + S * E * F32 + 2 * 4 * S * E * F32
check("vit_b_16 batch 1", saved("vit_b_16")["saved_bytes"],
      12 * layer + 3 * 224 * 224 * F32 + ln + S * E * F32)
check("vit_b_16 float64", saved("vit_b_16")["by_dtype"]["float64"], 12 * 8)

# BERT-base, S = 128: attention (q, k^T, v; softmax and dropout outputs; scalar), its dropout
# mask (float32 on CPU), query's input (key and value share it), output.dense and
# intermediate.dense inputs, two LayerNorms, two dropouts (mask), GELU's and output.dense's inputs
# 4 S E. Embeddings: the ids, LayerNorm, dropout; pooler: dense (x[:, 0] keeps the sequence),
# tanh's output of 768.
S = 128
ln = S * E * F32 + 2 * S * F32
probs = 12 * S * S * F32
layer = (3 * S * E * F32 + 2 * probs + 8 + probs + S * E * F32 + 2 * S * E * F32 + 2 * ln
         + 2 * S * E * F32 + 2 * 4 * S * E * F32)
check("bert_base batch 1", saved("bert_base")["saved_bytes"],
      12 * layer + S * I64 + ln + S * E * F32 + S * E * F32 + E * F32)

# GPT-2 small, S = 1024: attention (c_attn's 3 S E output, softmax and dropout outputs, a float32
# scalar), attn_dropout's mask, ln_1/ln_2, c_attn/c_proj/c_fc inputs S E, mlp.c_proj's input
# 4 S E, gelu_new's four tensors of 4 S E and three float64 scalars, two dropout masks. Around:
# token ids and position ids (1 x S whatever the batch), drop's mask, ln_f, lm_head's input.
S = 1024
ln = S * E * F32 + 2 * S * F32
probs = 12 * S * S * F32
block = (2 * ln + 3 * S * E * F32 + 2 * probs + 4 + probs + 3 * S * E * F32 + 4 * S * E * F32
         + 4 * 4 * S * E * F32 + 24 + 2 * S * E * F32)
g1 = 12 * block + 2 * S * I64 + S * E * F32 + ln + S * E * F32
check("gpt2 batch 1", saved("gpt2")["saved_bytes"], g1)
check("gpt2 batch 2", saved("gpt2", 2)["saved_bytes"], 2 * g1 - S * I64 - 12 * (4 + 24))

# tests/data/reference/torch2/saved_tensors.json: the same tool under PyTorch 2.5.1 and
# transformers 4.46.3 (--hf), the networks whose attention runs scaled_dot_product_attention.
with open("tests/data/reference/torch2/saved_tensors.json") as f:
    ref2 = json.load(f)
check("torch2 version", ref2["torch"].split(".")[0], "2")
CNNS2 = ["convnext_tiny", "densenet121", "efficientnet_b0", "googlenet", "inception_v3",
         "mnasnet0_5", "mobilenet_v3_large", "regnet_x_400mf", "resnet50", "shufflenet_v2_x1_0",
         "squeezenet1_0"]
check("torch2 networks", sorted(ref2["models"]), sorted(["bert_base", "gpt2", "vit_b_16"] + CNNS2))
check("torch2 transformers", ref2.get("transformers", "").split(".")[0], "4")


def saved2(name, batch=1):
    return ref2["models"][name]["batches"][str(batch)]


# ViT-B/16's nn.MultiheadAttention, called with need_weights=False, keeps the in_proj input, the
# packed q, k, v (3 S E), the fused kernel's output, which out_proj reads (S E), and its fp32
# log-sum-exp of each of 12 S rows: no probabilities, no float64 scale. The rest of the layer is
# as under 1.13.
S = 197
ln = S * E * F32 + 2 * S * F32
layer = 2 * ln + 5 * S * E * F32 + 12 * S * F32 + S * E * F32 + 2 * 4 * S * E * F32
for n in (1, 2):
    check(f"vit_b_16 batch {n}, PyTorch 2", saved2("vit_b_16", n)["saved_bytes"],
          n * (12 * layer + 3 * 224 * 224 * F32 + ln + S * E * F32))

# Hugging Face's BERT and GPT-2 call scaled_dot_product_attention with dropout 0.1, which the
# CPU runs on its math path: at batch 2 what it keeps is eager attention's, as under 1.13, but
# for scalars (BERT's 96 bytes of float64 scales, GPT-2's 288 and 48 of constants: under 400
# bytes). At batch 1 alone GPT-2 keeps 6 bytes per pair of positions more in each of its 12
# blocks (float32, not a per-head count: mask-sized tensors whose source was not traced; the
# model leaves them out, -2.5% there), less a 4-byte scalar and 288 bytes of float64 constants
# that 1.13 kept.
for name in ("bert_base", "gpt2"):
    check(f"{name} batch 2, PyTorch 2 math path within 400 bytes of 1.13 eager",
          abs(saved2(name, 2)["saved_bytes"] - saved(name, 2)["saved_bytes"]) < 400, True)
check("gpt2 batch 1, PyTorch 2 against 1.13",
      saved2("gpt2")["saved_bytes"] - saved("gpt2")["saved_bytes"],
      12 * (6 * 1024 * 1024 - 4) - 288)

# torchvision's CNNs under PyTorch 2 keep what they kept under 1.13 but for one tensor: the
# input of the global average pool to 1 x 1 (adaptive_avg_pool2d runs a mean there, whose
# backward PyTorch 2 gives the sizes alone), C x H x W fp32 of the last feature map where no
# other layer keeps it; none where one does (ResNet's ReLU keeps its output, MNASNet's mean
# reads a ReLU's output).
GLOBAL_POOL_INPUT = {"efficientnet_b0": 1280 * 7 * 7, "googlenet": 1024 * 7 * 7,
                     "inception_v3": 2048 * 5 * 5, "mobilenet_v3_large": 960 * 7 * 7,
                     "convnext_tiny": 768 * 7 * 7}
for name in CNNS2:
    for n in (1, 2):
        check(f"{name} batch {n}, PyTorch 2 against 1.13",
              saved(name, n)["saved_bytes"] - saved2(name, n)["saved_bytes"],
              n * GLOBAL_POOL_INPUT.get(name, 0) * F32)

if failures:
    sys.exit(f"{failures} check(s) failed")
print("all checks passed")
