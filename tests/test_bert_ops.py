#!/usr/bin/env python3
"""tools/bert_ops.py's classing of BERT's ops, on rows written here as the profiler names them
(tools/torch_bert_models.py's modules, PyTorch 2.11's autograd nodes and kernels), and the
document it writes from the shipped profiles: every point's table, and the strided kernels'
rates within what a kernel can do (above 0, under the DRAM's 4.8 TB/s over 132 SMs at 1,980
MHz: 18.4 bytes a clock).

usage: test_bert_ops.py SCALEMETER   (run from the source root)
"""
import os
import re
import subprocess
import sys
import tempfile

from cli_checks import SM, check, finish

sys.path.insert(0, "tools")
import bert_ops  # noqa: E402

L0 = "bert.encoder.layer.0."
cases = [  # (op, module) -> (layer type, attention part)
    (("aten::linear", L0 + "attention.self.query"), ("attention", "Q, K, V projections")),
    (("aten::linear", L0 + "attention.self.value"), ("attention", "Q, K, V projections")),
    (("aten::bmm", L0 + "attention.self.core"), ("attention", "score and context products")),
    (("aten::add", L0 + "attention.self.core"), ("attention", "passes over the scores")),
    (("aten::softmax", L0 + "attention.self.core"), ("attention", "passes over the scores")),
    (("aten::contiguous", L0 + "attention.self.core"), ("attention", "context copy")),
    (("aten::linear", L0 + "attention.output.dense"), ("attention", "output projection")),
    (("aten::linear", L0 + "intermediate.dense"), ("linear", "")),
    (("aten::linear", L0 + "output.dense"), ("linear", "")),
    (("aten::layer_norm", L0 + "output.LayerNorm"), ("layernorm", "")),
    (("aten::dropout", L0 + "output.dropout"), ("dropout", "")),
    (("aten::gelu", L0 + "intermediate.intermediate_act_fn"), ("gelu", "")),
    (("aten::embedding", "bert.embeddings.word_embeddings"), ("embedding", "")),
    (("aten::add", ""), ("add", "")),  # a residual sum: no module of its own
    (("aten::arange", ""), ("other", "")),
]
# a product's pass by its operands' layouts (cuBLAS's kernel names in the shipped profiles)
kernels = [
    ("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_bias_TNT", "forward"),
    ("nvjet_sm90_hsh_192x192_64x4_2x1_v_bz_coopB_TNN", "forward"),
    ("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT", "input gradient"),
    ("nvjet_sm90_hsh_192x192_64x3_2x1_v_bz_coopB_splitK_NTN", "weight gradient"),
    ("void cublasLt::splitKreduce_kernel<32, 16, int, float, __half, float, __half, false>",
     "weight gradient"),
    ("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1",
     "forward"),
    ("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1",
     "input gradient"),
    ("sm90_xmma_gemm_f32f32_tf32f32_f32_nt_n_tilesize256x128x32_warpgroupsize2x1x1",
     "weight gradient"),
    ("void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, at::native::func_"
     "wrapper_t<float, at::native::sum_functor<float, float, float>::operator()", "bias gradient"),
    ("Memset (Device)", "other"),
    ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast", "other"),
]
for name, want in kernels:
    got = bert_ops.product_kind(name)
    check(got == want, f"product_kind({name[:60]}): {got}, expected {want}")
for (op, module), want in cases:
    got = bert_ops.forward_class({"op": op, "module": module})
    check(got == want, f"{op} in {module!r}: {got}, expected {want}")
for node, want in (("AddmmBackward0", "projections' gradients"), ("MmBackward0", "projections'"),
                   ("SoftmaxBackward0", "softmax"), ("ViewBackward0", "the Q, K, V views'"),
                   ("UnsafeViewBackward0", "the Q, K, V views'"),
                   ("CloneBackward0", "other")):
    got = bert_ops.backward_class("autograd::engine::evaluate_function: " + node)
    check(got.startswith(want), f"{node}: {got}")
for name, want in (("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_"
                    "nocast<at::native::direct_copy_kernel_cuda", "input copies (non-contiguous)"),
                   ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_"
                    "nocast<at::native::CUDAFunctor_add<c10::Half> >", "bias additions (broadcast)"),
                   ("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_TNT", "products")):
    check(bert_ops.kernel_kind(name) == want, f"{name[:40]}: {bert_ops.kernel_kind(name)}")

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "ops.md")
    p = subprocess.run([sys.executable, "tools/bert_ops.py", "--bin", SM, "--out", out],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"bert_ops.py: exit {p.returncode}: {p.stderr.strip()}")
    text = open(out).read() if os.path.exists(out) else ""
    for precision in ("fp16", "tf32"):
        for model, batch in bert_ops.POINTS:
            check(f"## {model} at batch {batch}, {precision}" in text,
                  f"no section for {model} {batch} {precision}")
    rates = re.findall(r"median ([\d.]+), range ([\d.]+)-([\d.]+) \(([\d.]+) bytes", text)
    check(len(rates) == 2, f"strided rates: {rates}")
    for median, low, high, per_clock in rates:
        check(0 < float(low) <= float(median) <= float(high) and float(per_clock) < 18.4,
              f"strided rate {median} ({low}-{high}), {per_clock} bytes a clock")
    # the view copies: one a layer forward, three backward, at every point and precision
    layers = sum({"bert_base": 12, "bert_large": 24}[m] for m, _ in bert_ops.POINTS)
    copies = re.findall(r"\| (fp16|tf32) \| (fwd|bwd) \| (\d+) \| ([\d.]+) \| ([\d.]+)-([\d.]+)"
                        r" \| (\d+) \|", text)
    check(len(copies) == 4, f"view copies: {copies}")
    for precision, phase, n, median, low, high, slow in copies:
        want = layers * (1 if phase == "fwd" else 3)
        check(int(n) == want, f"{precision} {phase}: {n} view copies, expected {want}")
        check(0 < float(low) <= float(median) <= float(high) < 18.4,
              f"{precision} {phase}: copy rate {median} ({low}-{high})")
        # backward, one of the three a layer reads its source across the rows
        check(int(slow) == (0 if phase == "fwd" else layers), f"{precision} {phase}: {slow} slow")
    # the products by pass: every point and precision, each fraction of the peak within (0, 1]
    fractions = re.findall(r"\| (fp16|tf32) \| (bert_\w+ \d+) \| [\d.]+ \| ([\d.]+) \(([\d.]+) ms\)"
                           r" \| ([\d.]+) \(([\d.]+) ms\) \| ([\d.]+) \(([\d.]+) ms\) \|", text)
    check(len(fractions) == 2 * len(bert_ops.POINTS), f"products by pass: {fractions}")
    for precision, point, *values in fractions:
        for frac, ms in zip(values[0::2], values[1::2]):
            check(0 < float(frac) <= 1 and float(ms) > 0, f"{precision} {point}: {frac} ({ms} ms)")
    # the score and context products: BERT-base at batch 96, fp16, by hand: 12 layers x 96 x
    # 12 heads x 384^2 = 2,038,431,744 scores; forward 4 x 64 FLOPs a score, 521.84 GFLOP at
    # 989.4 TFLOP/s x 0.7, 0.7535 ms; 2 x 2 bytes a score, 8.154 GB at 4,800 GB/s x 0.7,
    # 2.4267 ms: the larger 2.43 ms, the sum 3.18; backward twice both, 4.85 and 6.36. The
    # measured figure is the attention's forward sentence's (the same profile)
    section = text.split("## The score and context products")[-1].split("## Matrix")[0]
    got = re.findall(r"^\| fp16 \| bert_base 96 \| (fwd|bwd) \| ([\d.]+) \| ([\d.]+) \| "
                     r"[\d.]+ \| ([\d.]+) \|", section, re.M)
    check([g[0] + " " + g[2] + " " + g[3] for g in got] == ["fwd 2.43 3.18", "bwd 4.85 6.36"],
          f"BERT-base 96 fp16 score products: {got}")
    fwd = re.search(r"## bert_base at batch 96, fp16.*?score and context products ([\d.]+) ms",
                    text, re.S)
    check(bool(got) and bool(fwd) and got[0][1] == fwd.group(1),
          f"measured score products {got[:1]} against the forward sentence's "
          f"{fwd and fwd.group(1)}")
    rows = re.findall(r"^\| (fp16|tf32) \| bert_\w+ \d+ \| (?:fwd|bwd) \|", section, re.M)
    check(len(rows) == 4 * len(bert_ops.POINTS), f"score product rows: {len(rows)}")
finish()
