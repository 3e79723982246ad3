#!/usr/bin/env python3
"""Time torchvision models in PyTorch and write scalemeter's measurement CSV.

Per configuration (model, image size, batch):
  t_infer  forward pass in eval mode under torch.no_grad()
  t_fwd    forward pass + loss in train mode
  t_bwd    loss.backward()
  t_grad   optimizer.step() (SGD, momentum 0.9): the single-device "gradient update"
  t_step   t_fwd + t_bwd + t_grad of the same iteration
Each is the median over repetitions after a warm-up; the repetitions adapt so that a
configuration takes about --target seconds per mode (inference, training).

Clock (--clock): wall time (time.perf_counter, with torch.cuda.synchronize on a GPU), or the
CPU time of the process (time.process_time). With one CPU thread the two agree on an idle
machine, but on a shared one the wall clock also counts the time the process waited for a
core, which made wall-clock timings on our 2-core build machine vary by 2-4x. The default,
auto, takes CPU time for --device cpu with --threads 1 and wall time otherwise; the clock used
is written in the CSV's clock column.

The CSV is opened in append mode and flushed after every row; configurations already in the
file (same model, image, batch, device, threads, precision) are skipped, so an interrupted run
resumes where it stopped.

Example (the dataset shipped in configs/calibrations/):
  python3 examples/pytorch/measure.py --models resnet18,mobilenet_v2 --images 64,96,128 \
      --batches 1,2,4,8 --device cpu --threads 1 -o runs.csv
"""
import argparse
import contextlib
import csv
import math
import os
import statistics
import sys
import time

# torch may live in another Python than the one called python3 (tools/torch_python.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from torch_python import require_torch  # noqa: E402

require_torch("measure.py")
import torch  # noqa: E402
import torchvision  # noqa: E402

HEADER = ["model", "image", "batch", "nodes", "gpus_per_node", "t_infer", "t_fwd", "t_bwd",
          "t_grad", "t_step", "device", "threads", "precision", "clock"]


def csv_list(text, conv=str):
    return [conv(x) for x in text.split(",") if x.strip()]


def build_model(name):
    ctor = getattr(torchvision.models, name, None)
    if ctor is None or not callable(ctor):
        raise ValueError(f"unknown torchvision model '{name}'")
    kwargs = {"weights": None}
    # Auxiliary classifiers only run in training mode and are not part of the network files.
    if name in ("googlenet", "inception_v3"):
        kwargs.update(aux_logits=False, init_weights=False)
    return ctor(**kwargs)


class Timer:
    def __init__(self, device, clock):
        self.cuda = device.type == "cuda"
        self.clock = time.process_time if clock == "cpu" else time.perf_counter

    def now(self):
        if self.cuda:
            torch.cuda.synchronize()
        return self.clock()


def plan_reps(first_s, target_s, min_reps, max_reps):
    if first_s <= 0:
        return max_reps
    return max(min_reps, min(max_reps, int(math.ceil(target_s / first_s))))


def warm_up(fn, timer, args):
    # The first iterations at a new shape are slow (allocator growth, kernel selection): run at
    # least --warmup of them, and keep going until --warmup-time seconds have passed (at most 20).
    start = timer.now()
    n = 0
    while n < args.warmup or (timer.now() - start < args.warmup_time and n < 20):
        fn()
        n += 1


def autocast(args, device):
    """The forward passes' context: torch.autocast at bf16/fp16 (fp32 master weights, as AMP
    trains), nothing at fp32 and tf32 (those are switches of the backends, set in main)."""
    if args.precision in ("bf16", "fp16"):
        dtype = torch.bfloat16 if args.precision == "bf16" else torch.float16
        return torch.autocast(device.type, dtype=dtype)
    return contextlib.nullcontext()


def time_inference(model, x, timer, args):
    model.eval()
    with torch.no_grad(), autocast(args, x.device):
        warm_up(lambda: model(x), timer, args)
        t0 = timer.now()
        model(x)
        first = timer.now() - t0
        samples = [first]
        for _ in range(plan_reps(first, args.target, args.min_reps, args.max_reps) - 1):
            t0 = timer.now()
            model(x)
            samples.append(timer.now() - t0)
    return statistics.median(samples)


def time_training(model, x, y, timer, args):
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    # fp16 needs loss scaling (bf16 has fp32's range): scale, unscale and check in the step
    scaler = torch.cuda.amp.GradScaler() if args.precision == "fp16" else None

    def one_iteration():
        # PyTorch 1.13's default: gradients are zeroed in place, not freed and reallocated
        opt.zero_grad()
        t0 = timer.now()
        with autocast(args, x.device):
            loss = loss_fn(model(x), y)
        t1 = timer.now()
        (scaler.scale(loss) if scaler else loss).backward()
        t2 = timer.now()
        if scaler:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        t3 = timer.now()
        return t1 - t0, t2 - t1, t3 - t2

    warm_up(one_iteration, timer, args)
    first = one_iteration()
    samples = [first]
    for _ in range(plan_reps(sum(first), args.target, args.min_reps, args.max_reps) - 1):
        samples.append(one_iteration())
    fwd = statistics.median(s[0] for s in samples)
    bwd = statistics.median(s[1] for s in samples)
    grad = statistics.median(s[2] for s in samples)
    step = statistics.median(sum(s) for s in samples)
    return fwd, bwd, grad, step


class Progress:
    """"[k/N] model image batch, elapsed, estimated left" on one stderr line, redrawn; only on
    a terminal and without --quiet. The estimate weighs each configuration by batch x pixels."""

    def __init__(self, todo, quiet):
        self.show = not quiet and sys.stderr.isatty()
        self.total = len(todo)
        self.work_left = sum(b * s * s for _, s, b in todo)
        self.work_done = 0.0
        self.done = 0
        self.started = time.perf_counter()

    def start(self, name, s, b):
        if not self.show:
            return
        elapsed = time.perf_counter() - self.started
        left = "estimating"
        if self.work_done > 0:
            left = fmt_time(elapsed / self.work_done * self.work_left) + " left"
        sys.stderr.write(f"\r\033[K[{self.done + 1}/{self.total}] {name} image {s} batch {b}; "
                         f"{fmt_time(elapsed)} elapsed, {left}")
        sys.stderr.flush()

    def finish(self, s, b):
        self.done += 1
        self.work_done += b * s * s
        self.work_left -= b * s * s
        if self.show:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def fmt_time(seconds):
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def done_keys(path):
    keys = set()
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return keys
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            keys.add((row.get("model"), row.get("image"), row.get("batch"), row.get("device"),
                      row.get("threads"), row.get("precision")))
    return keys


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", required=True, help="comma-separated torchvision model names")
    p.add_argument("--images", default="224", help="comma-separated image sizes (default 224)")
    p.add_argument("--batches", default="1,2,4,8", help="comma-separated batch sizes")
    p.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N (default cpu)")
    p.add_argument("--threads", type=int, default=0,
                   help="torch.set_num_threads (default: leave PyTorch's choice)")
    p.add_argument("-o", "--output", required=True, help="measurement CSV (appended to)")
    p.add_argument("--clock", choices=("auto", "wall", "cpu"), default="auto",
                   help="wall or process CPU time; auto (default): cpu for --device cpu with "
                        "--threads 1, wall otherwise")
    p.add_argument("--target", type=float, default=0.5,
                   help="seconds of timed repetitions per mode and configuration (default 0.5)")
    p.add_argument("--warmup", type=int, default=1, help="fewest warm-up iterations (1)")
    p.add_argument("--warmup-time", type=float, default=0.25,
                   help="seconds of warm-up per mode and configuration (default 0.25)")
    p.add_argument("--min-reps", type=int, default=3, help="fewest timed repetitions (3)")
    p.add_argument("--max-reps", type=int, default=50, help="most timed repetitions (50)")
    p.add_argument("--precision", choices=("fp32", "tf32", "bf16", "fp16"), default="fp32",
                   help="fp32 (default; TF32 off), tf32 (TF32 tensor cores for convolutions and "
                        "matrix products), bf16 or fp16 (torch.autocast, fp32 master weights; "
                        "fp16 with loss scaling)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress line (there is none when stderr is not a terminal)")
    args = p.parse_args()

    models = csv_list(args.models)
    images = csv_list(args.images, int)
    batches = csv_list(args.batches, int)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        sys.exit("measure.py: --device cuda but torch.cuda.is_available() is false")
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    precision = args.precision
    if precision == "fp16" and device.type != "cuda":
        sys.exit("measure.py: --precision fp16 needs --device cuda (CPU autocast is bf16)")
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    dev_name = (torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu")
    clock = args.clock
    if clock == "auto":
        clock = "cpu" if device.type == "cpu" and threads == 1 else "wall"
    if clock == "cpu" and (device.type != "cpu" or threads != 1):
        sys.exit("measure.py: --clock cpu needs --device cpu and --threads 1 (CPU time adds up "
                 "the time of every thread and misses the GPU's)")
    timer = Timer(device, clock)
    torch.manual_seed(args.seed)

    done = done_keys(args.output)
    new_file = not os.path.exists(args.output) or os.path.getsize(args.output) == 0
    with open(args.output, "a", newline="") as f:
        w = csv.writer(f)
        if new_file:
            w.writerow(HEADER)
            f.flush()
        todo_all = [(name, s, b) for name in models for s in images for b in batches
                    if (name, str(s), str(b), dev_name, str(threads), precision) not in done]
        progress = Progress(todo_all, args.quiet)
        for name in models:
            todo = [(s, b) for n, s, b in todo_all if n == name]
            if not todo:
                continue
            try:
                model = build_model(name).to(device)
            except Exception as e:  # report and go on with the next model
                print(f"measure.py: {name}: {e}", file=sys.stderr)
                for s, b in todo:
                    progress.finish(s, b)
                continue
            for s, b in todo:
                progress.start(name, s, b)
                x = torch.randn(b, 3, s, s, device=device)
                y = torch.randint(0, 1000, (b,), device=device)
                t_start = time.perf_counter()
                try:
                    t_infer = time_inference(model, x, timer, args)
                    t_fwd, t_bwd, t_grad, t_step = time_training(model, x, y, timer, args)
                except Exception as e:  # e.g. an image too small for the network
                    msg = str(e).splitlines()[0] if str(e) else type(e).__name__
                    progress.finish(s, b)
                    print(f"measure.py: {name} image {s} batch {b}: skipped: {msg}",
                          file=sys.stderr)
                    continue
                w.writerow([name, s, b, 1, 1] +
                           [f"{t:.6g}" for t in (t_infer, t_fwd, t_bwd, t_grad, t_step)] +
                           [dev_name, threads, precision, clock])
                f.flush()
                progress.finish(s, b)
                print(f"{name} image {s} batch {b}: infer {t_infer * 1e3:.2f} ms, "
                      f"step {t_step * 1e3:.2f} ms ({time.perf_counter() - t_start:.1f} s)",
                      flush=True)
            del model


if __name__ == "__main__":
    main()
