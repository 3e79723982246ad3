#!/usr/bin/env python3
"""tools/torch_bert_models.py, the BERT that tools/torch_layer_profile.py profiles, against what
it stands for: its parameters against the count Lambda's runs of NVIDIA's run_squad.py logged
(model_weights_num: the vocabulary padded to 30528, the pooler, the SQuAD head), and its
attention's ops, as the profiler records them, in modeling.py's order (two batched products
around the division by sqrt(d), the additive mask, softmax and dropout) under the core's
module name. Profiles one tiny point on the CPU; skipped without PyTorch."""
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
try:
    import torch  # noqa: F401
    import torchvision  # noqa: F401
except ImportError as e:  # ctest reads 77 as skipped, not passed
    print(f"SKIP: {e} (Debian's python3-torchvision)")
    sys.exit(77)
import torch_bert_models as bert  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += not ok


for name, logged in (("bert_base", 109488386), ("bert_large", 335150082)):
    count = sum(p.numel() for p in bert.build(name).parameters())
    check(count == logged, f"{name}: {count:,} parameters, run_squad.py logged {logged:,}")

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "bert.csv")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "torch_layer_profile.py"),
                        "--models", "bert_base", "--points", "2x16", "--precision", "fp32",
                        "--device", "cpu", "--steps", "1", "--warmup", "0", "--out", out],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"torch_layer_profile.py bert_base on the CPU: rc {r.returncode} "
          f"{r.stderr.strip()[-300:]}")
    rows = list(csv.DictReader(open(out))) if r.returncode == 0 else []
    for phase in ("infer", "fwd"):
        core = [x["op"] for x in rows if x["phase"] == phase
                and x["module"] == "bert.encoder.layer.3.attention.self.core"]
        compute = [op for op in core if op in ("aten::bmm", "aten::div", "aten::add",
                                              "aten::softmax", "aten::dropout")]
        want = ["aten::bmm", "aten::div", "aten::add", "aten::softmax", "aten::dropout",
                "aten::bmm"]
        check(compute == want, f"{phase}: layer 3's attention core runs {compute}")
        check(all(x["image"] == "16" and x["batch"] == "2" for x in rows),
              f"{phase}: the rows carry the sequence (16) in image, the batch (2)")
        layers = {x["module"].split(".")[3] for x in rows if x["phase"] == phase
                  and x["module"].startswith("bert.encoder.layer.")}
        check(layers == {str(i) for i in range(12)}, f"{phase}: ops of 12 encoder layers")
    check(any(x["phase"] == "opt" and x["op"] != "(phase)" for x in rows),
          "the optimizer phase runs ops")

# apex amp O2's update as the tool runs it (fp16 weights, fp32 masters, the loss scaled), two
# steps on the CPU: the pooler, whose output reaches no loss, left out of the optimizer as
# run_squad.py leaves it (its gradient is None), the weights unchanged at learning rate 0, every
# gradient cleared. Where this PyTorch lacks fp16 kernels on the CPU, bf16 stands in for fp16.
import torch_layer_profile as profile  # noqa: E402

cpu = torch.device("cpu")


def o2_steps(half):
    saved = torch.nn.Module.half
    torch.nn.Module.half = lambda self: self.to(half)
    try:
        w = profile.Workload("bert_base", 2, 16, "fp16", cpu)
    finally:
        torch.nn.Module.half = saved
    w.x = (w.x[0], w.x[1], w.x[2].to(half))
    before = [p.detach().clone() for p in w.model.parameters()]
    for _ in range(2):
        profile.run_phases(w, cpu, False)
    return w, before


try:
    w, before = o2_steps(torch.float16)
except RuntimeError:  # "not implemented for 'Half'" (PyTorch 1.13 on the CPU)
    w, before = o2_steps(torch.bfloat16)
after = list(w.model.parameters())
check(len(w.masters) == len(after) - 2 and all(m.dtype == torch.float32 for m in w.masters),
      f"O2: {len(w.masters)} fp32 masters, the pooler's 2 tensors left out")
check(all(torch.equal(a.detach(), b) for a, b in zip(after, before)),
      "O2: two steps at learning rate 0 leave every weight as it was")
check(all(p.grad is None for p in after) and all(m.grad is None for m in w.masters),
      "O2: every gradient cleared after the step")

sys.exit(1 if failures else 0)
