#!/usr/bin/env python3
"""The zoo's Megatron, BERT-large, Llama 3.2, Llama 3.1 405B and Mistral networks against their
published sizes, by parameter count (docs/accuracy-lm.md, "Other frameworks"): each expected count is worked out here from
the published shapes, and must round to the published size.

Usage: test_lm_zoo_params.py SCALEMETER   (run from the source root)
"""
import json
import subprocess
import sys


def gpt(l, h, v, s, tied):
    """Megatron's GPT: per layer 12 h^2 + 13 h (QKV, projection, 4h MLP with biases, two
    LayerNorms); word and position embeddings; the final LayerNorm; an untied output layer
    adds V h (no bias)."""
    return 12 * l * h * h + 13 * l * h + (v + s) * h + 2 * h + (0 if tied else v * h)


def llama(l, h, heads, kv_heads, ff, v, tied):
    """Hugging Face's LlamaForCausalLM (and MistralForCausalLM, the same modules) from its
    config.json shapes: per layer q_proj and o_proj h^2 each, k_proj and v_proj h x kv each
    (kv = kv_heads x h / heads), gate, up and down h x ff each, two RMSNorm weights of h; the
    embedding V h, the final norm h, and an untied lm_head V h more. No biases."""
    kv = kv_heads * (h // heads)
    return l * (2 * h * h + 2 * h * kv + 3 * h * ff + 2 * h) + v * h + h + (0 if tied else v * h)


# (zoo name, expected, published size in billions, its decimals, and whether the label
# truncates rather than rounds)
CASES = [
    # Narayanan et al. (SC21) P = 12 l h^2 (1 + 13/(12 h) + (V + s)/(12 l h)) = 1,652,226,048,
    # plus the final LayerNorm: the 2021 README table's "1.7"
    ("megatron_gpt_1_7b", gpt(24, 2304, 51200, 2048, True), 1.7, 1, False),
    # the 2024 H100 table's "1.7B" (16 heads, hidden 2048, 24 layers, vocabulary 131,072):
    # 1.754 billion with learned positions, so the label truncates (1.745 with rotary ones
    # would round to it; the table does not say which, models/megatron_gpt_1_7b_h100.ini)
    ("megatron_gpt_1_7b_h100", gpt(24, 2048, 131072, 4096, False), 1.7, 1, True),
    # bert-large-uncased's BertModel: 335,141,888, the BERT paper's "340M" (0.34 billion)
    ("bert_large", 12 * 24 * 1024**2 + 13 * 24 * 1024 + (30522 + 512 + 2) * 1024 + 2 * 1024
     + 1024 * 1024 + 1024, 0.34, 2, False),
    # Llama 3.2's model card: 1B (1.23B) and 3B (3.21B), their LM heads tied; Meta's sizes
    # truncate (8,030,261,248 is "8B", 70.55 billion "70B")
    ("llama3_2_1b", llama(16, 2048, 32, 8, 8192, 128256, True), 1.23, 2, True),
    ("llama3_2_3b", llama(28, 3072, 24, 8, 8192, 128256, True), 3.21, 2, True),
    # Llama 3.1 405B: 126 layers of 16,384 with 128 heads, 8 key/value heads, MLP 53,248
    ("llama3_405b", llama(126, 16384, 128, 8, 53248, 128256, False), 405, 0, True),
    # Mistral 7B v0.3 (vocabulary 32,768): the 7.25B Hugging Face lists for its weights
    ("mistral_7b", llama(32, 4096, 32, 8, 14336, 32768, False), 7.25, 2, False),
]

failures = 0
out = subprocess.run([sys.argv[1], "models", "--format", "json"], check=True,
                     capture_output=True, text=True).stdout
got = {m["model"]: m["weights"] for m in json.loads(out)["models"]}
for name, want, published, places, truncated in CASES:
    if got.get(name) != want:
        print(f"FAIL {name}: {got.get(name)} weights, want {want}")
        failures += 1
    # the hand count itself must be the size the source publishes
    label = (int(want / 10**(9 - places)) / 10**places if truncated
             else round(want / 1e9, places))
    if label != published:
        print(f"FAIL {name}: {want} is not the published {published} billion")
        failures += 1
# the hand formulas against the figures they stand for
if gpt(24, 2304, 51200, 2048, True) - 2 * 2304 != 1652226048:
    print("FAIL Narayanan et al.'s formula")
    failures += 1
if CASES[2][1] != 335141888:
    print("FAIL bert-large-uncased's 335,141,888")
    failures += 1
# the Llama formula against the zoo's Llama 3.1 8B and 70B, Meta's 8,030,261,248 and
# 70,553,706,496
if (llama(32, 4096, 32, 8, 14336, 128256, False) != 8030261248 or
        llama(80, 8192, 64, 8, 28672, 128256, False) != 70553706496):
    print("FAIL the Llama formula against Llama 3.1 8B and 70B")
    failures += 1
print(f"{len(CASES)} networks, {failures} failures")
sys.exit(1 if failures else 0)
