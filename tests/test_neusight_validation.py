#!/usr/bin/env python3
"""tools/neusight_validation.py, which docs/accuracy-neusight.md comes from: the keys and values
Hugging Face's causal LMs return at inference, and the document's prose against its own tables.

The cache, worked out by hand from transformers 4.38.1 (NeuSight's setup.py pins it):
GPT2Attention splits its fused c_attn output into q, k and v and returns present = (key,
value), views (view, permute) of that output, so the whole 3 S E tensor of a layer stays alive
(a 2-layer GPT2LMHeadModel of E 64 at batch 2, S 16: the returned key's storage holds 6144
floats, 2 x 3 x 16 x 64); OPTAttention's _shape copies them (.contiguous()), 2 S E. fp32.

With the binary, the model's inference memory with the networks' returned keys and values
(kv_cache=true) less without them is held to the hand count, and the tool is run into a
temporary file and the "Fixed costs" bullet's figures are held to the per-sample table's H100
training rows, and the README's comparison with NeuSight's own predictions to the document's
table.

Usage: test_neusight_validation.py [SCALEMETER]   (run from the source root)
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, "tools")
import neusight_validation as tool  # noqa: E402

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: {got!r}, want {want!r}")


# "GPT-3 XL" (24 layers of 3072) at batch 8, S 2048: 3 x 24 x 3072 x 2048 x 8 x 4 bytes
check("gpt3_xl cache", tool.cache_bytes("gpt3_xl", 8, 2048), 14_495_514_624)
# "GPT-3 2.7B" (32 of 2560): 3 x 32 x 2560 x 2048 x 8 x 4
check("gpt3_27 cache", tool.cache_bytes("gpt3_27", 8, 2048), 16_106_127_360)
# GPT-2 large (36 of 1280) at batch 8, S 1024: 3 x 36 x 1280 x 1024 x 8 x 4
check("gpt2_large cache", tool.cache_bytes("gpt2_large", 8, 1024), 4_529_848_320)
# OPT-1.3B (24 of 2048), copies of k and v: 2 x 24 x 2048 x 2048 x 8 x 4
check("opt_1_3b cache", tool.cache_bytes("opt_1_3b", 8, 2048), 6_442_450_944)
# BertForSequenceClassification returns none
check("bert_large cache", tool.cache_bytes("bert_large", 16, 512), 0)
# beside the model's peak, all layers' but the last: 23 of 24
check("gpt3_xl beside the peak", tool.cache_beside_peak("gpt3_xl", 8, 2048),
      14_495_514_624 * 23 // 24)

# NeuSight's summarize.py: |label - pred| / label * 100
check("ape over", tool.ape(110.0, 100.0), 10.0)
check("ape under", tool.ape(45.0, 50.0), 10.0)

if len(sys.argv) > 1:
    # the model's own count (kv_cache=true in the networks, plugin ABI 21) against the hand
    # count: the inference total with the keys and values less without them. "GPT-3 XL" at
    # batch 8 peaks in its last attention (scores and probabilities, 2 x 8 x 24 x 2048^2 x 4 =
    # 6.4 GB, above the 3.3 GB of logits), where 23 layers' are alive beside its own; GPT-2
    # large at batch 8 at its LM head (8 x 1024 x 50257 x 4 = 1.6 GB of logits, above the last
    # attention's 2 x 8 x 20 x 1024^2 x 4 = 1.3 GB), where all 36 layers' are
    for model, batch, seq, want in [
            ("gpt3_xl", 8, 2048, tool.cache_beside_peak("gpt3_xl", 8, 2048)),
            ("gpt2_large", 8, 1024, tool.cache_bytes("gpt2_large", 8, 1024))]:
        kept = [tool.run_predict(sys.argv[1], model, "h100", batch, seq, False,
                                 cache=c)["memory_infer"]["total"] for c in (True, False)]
        check(f"{model} keys and values in the model's inference memory", kept[0] - kept[1], want)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "doc.md")
        sys.argv = [sys.argv[0], "--bin", sys.argv[1], "--out", out]
        tool.main()
        with open(out) as f:
            doc = f.read()
    rows = {}
    for m in re.finditer(r"^\| `h100` \| (BERT-large|GPT-2 large) \| train \| [^|]+ \| [^|]+ \| "
                         r"[^|]+ \| ([-+][0-9.]+%) \| ([0-9.]+) \| ([0-9.]+) \|$", doc, re.M):
        rows[m.group(1)] = (m.group(2), round(float(m.group(3))), round(float(m.group(4))))
    check("per-sample rows of the H100's training", sorted(rows), ["BERT-large", "GPT-2 large"])
    bullet = re.search(r"\*\*Fixed costs per pass\*\*(.*?)\n- ", doc, re.S)
    text = " ".join(bullet.group(1).split()) if bullet else ""
    if len(rows) == 2:
        b, g = rows["BERT-large"], rows["GPT-2 large"]
        want = (f"meet batch 0 at {b[1]} ms (BERT-large) and {g[1]} ms (GPT-2 large) where the "
                f"model's meet it at {b[2]} and {g[2]} ms; the rates per sample differ by {b[0]} "
                f"and {g[0]}")
        check("the Fixed costs bullet", want in text, True)

    def versus_row(label):
        m = re.search(r"^\| " + re.escape(label) + r" \| [0-9]+ \| [^|]+ \| [^|]+ \| [^|]+ \| "
                      r"([0-9.]+)% \| \*\*([0-9.]+)%\*\* \|", doc, re.M)
        return (m.group(2), m.group(1)) if m else None

    with open("README.md") as f:
        readme = " ".join(f.read().split())
    every, unseen = versus_row("all"), versus_row("parts it had not seen")
    check("the comparison's rows", bool(every and unseen), True)
    if every and unseen:
        want = (f"a mean miss of {every[0]}%, NeuSight's own predictions of the same runs "
                f"{every[1]}% (on the three GPUs it had not learned from, {unseen[0]}% against "
                f"its {unseen[1]}%)")
        check("the README's comparison with NeuSight", want in readme, True)

for f in failures:
    print("FAIL", f)
print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
