#!/usr/bin/env python3
"""Per-op timings of eager PyTorch training and inference, for issue 38 item 4 (the per-op-type
table and the host/device queue of the GPU time model): torch.profiler with CPU and CUDA
activities and the inputs' shapes, phase by phase.

    python3 tools/torch_layer_profile.py --models resnet50,mobilenet_v2 \\
        --points 64x224,256x224 --precision tf32 --out layers-tf32.csv

For each torchvision model, (batch, image) point and the precision (fp32 with TF32 off, tf32,
bf16 autocast with fp32 master weights, fp16 autocast with them and a GradScaler's loss
scaling, as AMP trains in half precision), warm-up steps first, then --steps profiled steps of:
inference (eval, no_grad), the training forward pass with the loss, the backward pass, and
SGD with momentum (the shipped frameworks' optimizer), each phase ended by a synchronisation
so that its window holds its kernels. Each row is one top-level PyTorch op of one phase of one
profiled step (ops nested in it, and their kernels, are counted in it), or, where every
profiled step ran the same ops (as eager PyTorch does after its warm-up), one row per op with
the median of the steps' times (step "median of N"):

    model,image,batch,precision,step,phase,seq,op,shapes,module,host_self_us,host_us,
    kernels,kernel_us,kernel_names,kernel_name_us

module is the innermost leaf module whose forward ran the op (forward and inference ops; ""
for the backward pass and the optimizer, whose ops autograd and the optimizer run).
kernel_names is the distinct names of its kernels, ';'-joined (cuDNN's say dgrad or wgrad),
and kernel_name_us each name's time in the same order (cuDNN's layout transposes, its data
and weight gradients, apart). A file begun before that column keeps its columns.
One more row per phase has op "(phase)": host_us its window, kernel_us the union of its
kernels' intervals, and kernels its kernel count; the window less the union is the GPU's idle
time in the phase. On a machine without CUDA (--device cpu) the rows carry the host's times
alone (kernels 0): the layout can be checked anywhere. Points already in --out are skipped,
so that a run cut off by a time limit goes on where it stopped; --time-limit stops starting
points after that many seconds.

--models also takes bert_base and bert_large (tools/torch_bert_models.py: BERT for SQuAD as
NVIDIA DeepLearningExamples runs it, its own attention a kernel a step), whose points are
BATCHxSEQ and whose rows carry the sequence length in the image column. They train with Adam
at learning rate 0 (as Lambda's benchmark runs them); --precision fp16 is then apex amp O2, the
benchmark's: the whole model in fp16 (no autocast), fp32 master weights updated by a fused Adam
and copied back, the loss scaled by a constant; tf32 and fp32 train the fp32 model, as the
benchmark's FP32 runs do in NVIDIA's containers (TF32 on), Adam's unfused per-tensor loop
standing in for BertAdam's.
"""
import argparse
import csv
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also when imported
from torch_python import require_torch  # noqa: E402  (torch may be in another Python)

require_torch("torch_layer_profile.py", ("torch", "torchvision"))
import torch  # noqa: E402
import torchvision  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402
import torch_bert_models as bert  # noqa: E402
from torch_zoo_models import build  # noqa: E402

FIELDS = ["model", "image", "batch", "precision", "step", "phase", "seq", "op", "shapes",
          "module", "host_self_us", "host_us", "kernels", "kernel_us", "kernel_names",
          "kernel_name_us"]
PHASES = ("infer", "fwd", "bwd", "opt")


def points(text):
    """'64x224,256x224' -> [(64, 224), (256, 224)] (batch x image)."""
    out = []
    for item in text.split(","):
        b, _, s = item.partition("x")
        if not (b.isdigit() and s.isdigit() and int(b) > 0 and int(s) > 0):
            sys.exit(f"torch_layer_profile: --points: '{item}' is not BATCHxIMAGE (64x224)")
        out.append((int(b), int(s)))
    return out


def leaf_scopes(model):
    """Forward hooks that put each leaf module's forward in a record_function range named
    'module:NAME', so that its ops can be told apart. Returns the hooks' handles."""
    handles, open_ranges = [], {}
    for name, m in model.named_modules():
        if any(True for _ in m.children()):
            continue

        def pre(mod, args, name=name):
            r = record_function("module:" + name)
            r.__enter__()
            open_ranges.setdefault(id(mod), []).append(r)

        def post(mod, args, out):
            stack = open_ranges.get(id(mod))
            if stack:
                stack.pop().__exit__(None, None, None)

        handles.append(m.register_forward_pre_hook(pre))
        handles.append(m.register_forward_hook(post))
    return handles


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def run_phases(work, device, profiled):
    """One inference pass and one training step of a Workload, each phase in its
    record_function; with a loss scale (fp16) the loss is scaled and the update unscales."""
    model, x, y = work.model, work.x, work.y

    def autocast():
        return torch.autocast(device.type, dtype=work.amp or torch.bfloat16,
                              enabled=work.amp is not None)

    def phase(name):
        return record_function("phase:" + name) if profiled else _Null()

    with phase("infer"):
        model.eval()
        with torch.no_grad(), autocast():
            model(*x)
        synchronize(device)
    model.train()
    with phase("fwd"):
        with autocast():
            loss = work.loss_fn(model(*x), y)
        synchronize(device)
    with phase("bwd"):
        work.backward(loss)
        synchronize(device)
    with phase("opt"):
        work.step()
        synchronize(device)


class Workload:
    """A network, its inputs and targets, its loss, and how it trains at a precision: amp the
    autocast dtype (None: none), backward(loss) and step() the update's two halves."""

    def __init__(self, name, batch, size, precision, device):
        half = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
        self.scaler = self.masters = None
        if name in bert.NETS:
            self.model = bert.build(name).to(device)
            o2 = precision == "fp16"
            # run_squad.py leaves the pooler out of the optimizer: its output reaches no loss
            self.trained = [p for n, p in self.model.named_parameters() if "pooler" not in n]
            if o2:  # apex amp O2: fp16 model, fp32 master weights, the loss scaled
                self.model.half()
                self.masters = [p.detach().float().clone() for p in self.trained]
                params = self.masters
            else:
                params = self.trained
            self.amp = half if not o2 else None
            self.x, self.y = bert.inputs(batch, size, device,
                                         torch.float16 if o2 else torch.float32)
            self.loss_fn = bert.squad_loss
            fused = device.type == "cuda" and o2  # apex's FusedAdam; else a loop a tensor
            self.opt = torch.optim.Adam(params, lr=0.0, fused=fused, foreach=False)
        else:
            self.model = build(name).to(device)
            self.amp = half
            self.x = (torch.rand(batch, 3, size, size, device=device) * 2 - 1,)
            self.y = torch.randint(0, 1000, (batch,), device=device)
            self.loss_fn = torch.nn.CrossEntropyLoss()
            # the update runs, the weights stay
            self.opt = torch.optim.SGD(self.model.parameters(), lr=0.0, momentum=0.9)
            if precision == "fp16":
                self.scaler = torch.amp.GradScaler(device.type)

    SCALE = 2.0 ** 12  # a static loss scale for O2 (apex's dynamic one settles near it)

    def backward(self, loss):
        if self.scaler:
            self.scaler.scale(loss).backward()
        elif self.masters:
            (loss * self.SCALE).backward()
        else:
            loss.backward()

    def step(self):
        if self.scaler:
            self.scaler.step(self.opt)
            self.scaler.update()
        elif self.masters:  # unscale into the masters, update them, copy them back
            grads = [p.grad for p in self.trained]
            torch._foreach_mul_(grads, 1.0 / self.SCALE)
            for m, g in zip(self.masters, grads):
                m.grad = g.float()
            self.opt.step()
            with torch.no_grad():
                if hasattr(torch, "_foreach_copy_"):  # one multi-tensor kernel, as apex's
                    torch._foreach_copy_(self.trained, self.masters)
                else:  # PyTorch before 2.1
                    for p, m in zip(self.trained, self.masters):
                        p.copy_(m)
        else:
            self.opt.step()
        self.opt.zero_grad(set_to_none=True)
        if self.masters:  # the fp16 model's own gradients, which no optimizer holds
            self.model.zero_grad(set_to_none=True)


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def kernels_of(evt):
    """The device kernels an op launched, its nested ops' included (the profiler's Kernel
    records: name, device, duration in microseconds)."""
    out = list(getattr(evt, "kernels", []) or [])
    for child in evt.cpu_children:
        out.extend(kernels_of(child))
    return out


def interval(k):
    """A kernel's [start, end) in microseconds of the profiler's clock."""
    return k.time_range.start, k.time_range.end


def union_us(intervals):
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def rows_of(prof, meta, steps):
    """The profile's ops, phase by phase, as CSV rows."""
    events = prof.events()
    # the phases' windows on the main thread, in the order they ran: steps x PHASES
    # (PyTorch 2 also puts each range on the GPU's timeline as a user annotation: not those)
    cpu = torch.autograd.DeviceType.CPU
    windows = [(e.name.split(":", 1)[1], e.time_range.start, e.time_range.end)
               for e in events if e.name.startswith("phase:") and e.device_type == cpu]
    windows.sort(key=lambda w: w[1])
    if len(windows) != steps * len(PHASES):
        sys.exit(f"torch_layer_profile: {meta['model']}: {len(windows)} phase ranges in the "
                 f"profile, expected {steps * len(PHASES)}")
    device_kernels = [e for e in events if e.device_type == torch.autograd.DeviceType.CUDA
                      and not e.name.startswith(("phase:", "module:"))]

    def module_of(evt):
        parent = evt.cpu_parent
        while parent is not None:
            if parent.name.startswith("module:"):
                return parent.name.split(":", 1)[1]
            parent = parent.cpu_parent
        return ""

    def top_level(evt):
        """An op of PyTorch whose parent is no op (a phase or module range, or nothing)."""
        if evt.name.startswith(("phase:", "module:", "ProfilerStep")):
            return False
        if evt.device_type == torch.autograd.DeviceType.CUDA:
            return False
        parent = evt.cpu_parent
        while parent is not None and parent.name.startswith(("module:", "phase:")):
            parent = parent.cpu_parent
        return parent is None

    ops = sorted((e for e in events if top_level(e)), key=lambda e: e.time_range.start)
    rows = []
    for i, (name, start, end) in enumerate(windows):
        step = i // len(PHASES)
        mine = [e for e in ops if start <= e.time_range.start < end]
        for seq, e in enumerate(mine):
            ks = kernels_of(e)
            rows.append({**meta, "step": step, "phase": name, "seq": seq, "op": e.name,
                         "shapes": str(e.input_shapes) if e.input_shapes else "",
                         "module": module_of(e) if name in ("infer", "fwd") else "",
                         "host_self_us": f"{e.self_cpu_time_total:.3f}",
                         "host_us": f"{e.cpu_time_total:.3f}",
                         "kernels": len(ks),
                         "kernel_us": f"{sum(k.duration for k in ks):.3f}",
                         **by_name(ks)})
        # the kernels that ran inside the window (the phase ends in a synchronisation)
        inside = [interval(k) for k in device_kernels if start <= k.time_range.start < end]
        rows.append({**meta, "step": step, "phase": name, "seq": len(mine), "op": "(phase)",
                     "shapes": "", "module": "", "host_self_us": "",
                     "host_us": f"{end - start:.3f}", "kernels": len(inside),
                     "kernel_us": f"{union_us(inside):.3f}", "kernel_names": "",
                     "kernel_name_us": ""})
    return rows


def by_name(ks):
    """The kernels' distinct names, sorted and ';'-joined, and each name's summed time (us)."""
    total = {}
    for k in ks:
        total[k.name] = total.get(k.name, 0.0) + k.duration
    names = sorted(total)
    return {"kernel_names": ";".join(names),
            "kernel_name_us": ";".join(f"{total[n]:.3f}" for n in names)}


def profile_point(name, batch, image, precision, device, steps, warmup):
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.benchmark = True
    work = Workload(name, batch, image, precision, device)
    model = work.model
    for _ in range(warmup):
        run_phases(work, device, False)
    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    handles = leaf_scopes(model)
    try:
        with profile(activities=activities, record_shapes=True) as prof:
            for _ in range(steps):
                run_phases(work, device, True)
    finally:
        for h in handles:
            h.remove()
    meta = {"model": name, "image": image, "batch": batch, "precision": precision}
    return median_rows(rows_of(prof, meta, steps), steps)


def median_rows(rows, steps):
    """One row per (phase, seq), its times the median over the steps, where every step ran the
    same ops in the same order (eager PyTorch after its warm-up does); else every step's rows
    as they are. step is then "median of N"."""
    by_step = [[r for r in rows if r["step"] == k] for k in range(steps)]
    key = [[(r["phase"], r["seq"], r["op"], r["shapes"]) for r in s] for s in by_step]
    if steps == 1 or any(k != key[0] for k in key[1:]):
        return rows
    out = []
    for i, first in enumerate(by_step[0]):
        row = dict(first, step=f"median of {steps}")
        for f in ("host_self_us", "host_us", "kernel_us"):
            values = [float(s[i][f]) for s in by_step if s[i][f] != ""]
            row[f] = f"{statistics.median(values):.3f}" if values else ""
        row["kernels"] = int(statistics.median(int(s[i]["kernels"]) for s in by_step))
        per = [s[i]["kernel_name_us"].split(";") for s in by_step if s[i]["kernel_name_us"]]
        if per and all(len(x) == len(per[0]) for x in per) and \
                all(s[i]["kernel_names"] == first["kernel_names"] for s in by_step):
            row["kernel_name_us"] = ";".join(
                f"{statistics.median(float(x[j]) for x in per):.3f}" for j in range(len(per[0])))
        out.append(row)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", required=True,
                   help="torchvision model names, bert_base or bert_large, comma-separated")
    p.add_argument("--points", required=True,
                   help="BATCHxIMAGE list, e.g. 64x224,256x224 (BATCHxSEQ for BERT)")
    p.add_argument("--precision", choices=("fp32", "tf32", "bf16", "fp16"), default="tf32")
    p.add_argument("--device", default="cuda", help="cuda (default) or cpu (host times only)")
    p.add_argument("--steps", type=int, default=3, help="profiled steps (default 3)")
    p.add_argument("--warmup", type=int, default=3, help="steps before profiling (default 3)")
    p.add_argument("--out", required=True, help="the CSV to write (appended to where it exists)")
    p.add_argument("--time-limit", type=float, default=0,
                   help="start no point after this many seconds (0: none)")
    a = p.parse_args()
    deadline = time.monotonic() + a.time_limit if a.time_limit > 0 else float("inf")
    device = torch.device(a.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_layer_profile: --device cuda, but this PyTorch sees no CUDA device "
                 "(--device cpu profiles the host alone)")
    if a.steps < 1 or a.warmup < 0:
        sys.exit("torch_layer_profile: --steps must be at least 1, --warmup at least 0")
    models = [m for m in a.models.split(",") if m]
    for m in models:
        if m not in bert.NETS and not hasattr(torchvision.models, m):
            sys.exit(f"torch_layer_profile: --models: torchvision has no model '{m}' (nor is "
                     f"it {' or '.join(bert.NETS)})")
    todo = points(a.points)
    fresh = not os.path.exists(a.out) or os.path.getsize(a.out) == 0
    done = set()  # a run cut off by a time limit goes on where it stopped
    fields = FIELDS
    if not fresh:
        with open(a.out, newline="") as f:
            reader = csv.DictReader(f)
            done = {(r["model"], int(r["image"]), int(r["batch"]), r["precision"])
                    for r in reader}
            fields = reader.fieldnames  # an older file's columns: its rows stay aligned
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        if fresh:
            w.writeheader()
        for m in models:
            for batch, image in todo:
                if (m, image, batch, a.precision) in done:
                    continue
                if time.monotonic() > deadline:
                    print("torch_layer_profile: time limit reached; run again to go on",
                          file=sys.stderr)
                    return
                print(f"torch_layer_profile: {m} batch {batch} image {image} {a.precision}",
                      file=sys.stderr)
                try:
                    rows = profile_point(m, batch, image, a.precision, device, a.steps,
                                         a.warmup)
                except torch.cuda.OutOfMemoryError:
                    print(f"torch_layer_profile: {m} batch {batch} image {image}: out of "
                          "memory, skipped", file=sys.stderr)
                    torch.cuda.empty_cache()
                    continue
                w.writerows(rows)
                f.flush()


if __name__ == "__main__":
    main()
