#!/usr/bin/env python3
"""PyTorch's CPU training step, timed the way `scalemeter bench` times ours (docs/executor.md).

    python3 tools/torch_step_time.py --model resnet18,mobilenet_v2 --image 64 --batch 8

For each torchvision model: train mode, random input and labels, then per step
forward + nn.CrossEntropyLoss (t_fwd), backward (t_bwd), SGD step with zero_grad (the rest of
t_step); warm-up steps first, then the median of --reps steps. Prints CSV:
model,image,batch,threads,t_fwd,t_bwd,t_step,reps (seconds).
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also when imported
from torch_python import require_torch  # noqa: E402  (torch may be in another Python)

require_torch("torch_step_time.py")
import torch  # noqa: E402
import torchvision


def step_times(name, image, batch, reps, warmup):
    model = getattr(torchvision.models, name)()
    model.train()
    x = torch.rand(batch, 3, image, image) * 2 - 1
    y = torch.randint(0, 1000, (batch,))
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.0)  # as bench: the update runs, weights stay
    fwd, bwd, step = [], [], []
    for i in range(warmup + reps):
        t0 = time.perf_counter()
        loss = loss_fn(model(x), y)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        opt.zero_grad()
        t3 = time.perf_counter()
        if i >= warmup:
            fwd.append(t1 - t0)
            bwd.append(t2 - t1)
            step.append(t3 - t0)
    return statistics.median(fwd), statistics.median(bwd), statistics.median(step)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="torchvision names, comma-separated")
    ap.add_argument("--image", type=int, default=64)
    ap.add_argument("--batch", default="8", help="comma-separated")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    print("model,image,batch,threads,t_fwd,t_bwd,t_step,reps", flush=True)
    for name in a.model.split(","):
        for batch in [int(b) for b in a.batch.split(",")]:
            f, b, s = step_times(name, a.image, batch, a.reps, a.warmup)
            print(f"{name},{a.image},{batch},{a.threads},{f:.6g},{b:.6g},{s:.6g},{a.reps}",
                  flush=True)


if __name__ == "__main__":
    main()
