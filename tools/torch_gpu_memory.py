#!/usr/bin/env python3
"""What PyTorch's CUDA allocator holds while zoo networks train and infer on a GPU: the ground
truth of `predict`'s memory rows (docs/memory.md; issue 38 item 6).

    python3 tools/torch_gpu_memory.py --models resnet50,vit_b_16 --batches 32,128 \\
        --precisions fp32,bf16 --max-batch resnet50 --out memory.csv

Per torchvision model, batch and precision (fp32 with TF32 off; bf16 under torch.autocast with
fp32 master weights, as AMP): SGD with momentum 0.9 (torchvision's recipes, predict's default),
zero_grad(set_to_none=True), cuDNN's benchmark mode off (PyTorch's default). Two training steps
run; the second is measured, so that the momentum buffers exist as they do in every later step:

    states_bytes   memory_allocated() before the second step's forward pass, less the input
                   and labels: weights, momentum buffers (the gradients are None there)
    input_bytes    the batch and its labels
    train_peak     max_memory_allocated() over the second step (reset before it)
    infer_peak     max_memory_allocated() over one eval forward pass under no_grad, weights in
    context_bytes  the device's used memory (cudaMemGetInfo) less what the allocator reserved:
                   the CUDA context, cuDNN's and cuBLAS's handles and loaded kernels

Rows with status oom ran out of memory (train or infer, the other column empty). --max-batch
names models whose largest training batch is searched (doubling from the largest batch that
fit, then bisection to within 2%): one row with kind max_train and batch that largest batch.
Rows are appended and flushed as they are measured; rows already in --out are skipped, so that
a run cut off by a time limit goes on where it stopped. --time-limit stops starting new work
after that many seconds.
"""
import argparse
import csv
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also when imported
from torch_python import require_torch  # noqa: E402  (torch may be in another Python)

require_torch("torch_gpu_memory.py", ("torch", "torchvision"))
import torch  # noqa: E402
import torchvision  # noqa: E402
from torch_zoo_models import build  # noqa: E402

FIELDS = ["model", "image", "batch", "precision", "kind", "status", "states_bytes",
          "input_bytes", "train_peak", "infer_peak", "reserved_peak", "context_bytes",
          "total_bytes", "device", "torch", "cudnn"]
IMAGE = {"inception_v3": 299}  # the others at --image


def release():
    gc.collect()
    torch.cuda.empty_cache()


def measure(name, image, batch, precision, dev):
    """One row's numbers, or raises torch.cuda.OutOfMemoryError."""
    amp = precision == "bf16"
    model = opt = x = y = loss = None
    try:
        model = build(name).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.0, momentum=0.9)
        loss_fn = torch.nn.CrossEntropyLoss()
        # random data: zeros can take other kernels and other workspace
        x = torch.rand(batch, 3, image, image, device=dev) * 2 - 1
        y = torch.randint(0, 1000, (batch,), device=dev)
        input_bytes = x.numel() * x.element_size() + y.numel() * y.element_size()

        def step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
                out = model(x)
                loss = loss_fn(out, y)
            del out
            loss.backward()
            opt.step()
            return loss.detach()

        model.train()
        step()
        torch.cuda.synchronize()
        opt.zero_grad(set_to_none=True)
        states = torch.cuda.memory_allocated() - input_bytes
        torch.cuda.reset_peak_memory_stats()
        loss = step()
        torch.cuda.synchronize()
        train_peak = torch.cuda.max_memory_allocated()
        reserved_peak = torch.cuda.max_memory_reserved()
        del loss
        opt.zero_grad(set_to_none=True)
        model.eval()
        torch.cuda.reset_peak_memory_stats()
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            model(x)
        torch.cuda.synchronize()
        infer_peak = torch.cuda.max_memory_allocated()
        free, total = torch.cuda.mem_get_info()
        context = (total - free) - torch.cuda.memory_reserved()
        return {"states_bytes": states, "input_bytes": input_bytes, "train_peak": train_peak,
                "infer_peak": infer_peak, "reserved_peak": reserved_peak,
                "context_bytes": context, "total_bytes": total}
    finally:
        del model, opt, x, y
        release()


def fits(name, image, batch, precision, dev):
    try:
        measure(name, image, batch, precision, dev)
        return True
    except torch.cuda.OutOfMemoryError:
        release()
        return False


def max_batch(name, image, precision, dev, start, deadline):
    """The largest training batch that runs (within 2%), or None past the deadline."""
    lo, hi = start, None
    while hi is None:
        if time.monotonic() > deadline:
            return None
        b = lo * 2
        if b > 65536:
            return lo
        if fits(name, image, b, precision, dev):
            lo = b
        else:
            hi = b
    while hi - lo > max(1, lo // 50):
        if time.monotonic() > deadline:
            return None
        mid = (lo + hi) // 2
        if fits(name, image, mid, precision, dev):
            lo = mid
        else:
            hi = mid
    return lo


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", required=True, help="torchvision model names, comma-separated")
    p.add_argument("--batches", default="32,128", help="batch sizes (default 32,128)")
    p.add_argument("--image", type=int, default=224, help="image size (inception_v3: 299)")
    p.add_argument("--precisions", default="fp32,bf16", help="fp32 and/or bf16")
    p.add_argument("--max-batch", default="", help="models whose largest batch is searched")
    p.add_argument("--time-limit", type=float, default=0, help="seconds (0: none)")
    p.add_argument("--out", required=True, help="the CSV (appended to where it exists)")
    a = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_gpu_memory.py: this PyTorch sees no CUDA device")
    models = [m for m in a.models.split(",") if m]
    searched = [m for m in a.max_batch.split(",") if m]
    for m in models + searched:
        if not callable(getattr(torchvision.models, m, None)):
            sys.exit(f"torch_gpu_memory.py: torchvision has no model '{m}'")
    precisions = [q for q in a.precisions.split(",") if q]
    for q in precisions:
        if q not in ("fp32", "bf16"):
            sys.exit(f"torch_gpu_memory.py: --precisions: '{q}' is not fp32 or bf16")
    try:
        batches = [int(b) for b in a.batches.split(",") if b]
    except ValueError:
        sys.exit(f"torch_gpu_memory.py: --batches: '{a.batches}' is not a list of integers")
    deadline = time.monotonic() + a.time_limit if a.time_limit > 0 else float("inf")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    dev = torch.device("cuda")
    meta = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "cudnn": torch.backends.cudnn.version()}
    fresh = not os.path.exists(a.out) or os.path.getsize(a.out) == 0
    done, fitted = set(), set()
    if not fresh:
        with open(a.out, newline="") as f:
            rows = list(csv.DictReader(f))
        done = {(r["model"], r["batch"], r["precision"], r["kind"]) for r in rows}
        fitted = {(r["model"], r["batch"], r["precision"]) for r in rows if r["status"] == "ok"}
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if fresh:
            w.writeheader()
        largest_fit = {}
        for q in precisions:
            for m in models:
                image = IMAGE.get(m, a.image)
                for b in batches:
                    if (m, str(b), q, "step") in done:
                        if (m, str(b), q) in fitted:
                            largest_fit[(m, q)] = b
                        continue
                    if time.monotonic() > deadline:
                        print("torch_gpu_memory.py: time limit reached", file=sys.stderr)
                        return
                    print(f"torch_gpu_memory.py: {m} {q} batch {b}", file=sys.stderr)
                    row = {"model": m, "image": image, "batch": b, "precision": q,
                           "kind": "step", **meta}
                    try:
                        row.update(measure(m, image, b, q, dev), status="ok")
                        largest_fit[(m, q)] = b
                    except torch.cuda.OutOfMemoryError:
                        release()
                        row["status"] = "oom"
                    w.writerow(row)
                    f.flush()
        for q in precisions:
            for m in searched:
                if any(k[0] == m and k[2] == q and k[3] == "max_train" for k in done):
                    continue
                image = IMAGE.get(m, a.image)
                print(f"torch_gpu_memory.py: {m} {q} largest batch", file=sys.stderr)
                best = max_batch(m, image, q, dev, largest_fit.get((m, q), 16), deadline)
                if best is None:
                    print("torch_gpu_memory.py: time limit reached", file=sys.stderr)
                    return
                row = {"model": m, "image": image, "batch": best, "precision": q,
                       "kind": "max_train", "status": "ok", **meta}
                w.writerow(row)
                f.flush()


if __name__ == "__main__":
    main()
