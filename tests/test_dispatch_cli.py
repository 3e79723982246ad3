#!/usr/bin/env python3
"""`--dispatch queued|added` as a user gives it to predict and curve, on conv_relu.ini (a 3 x 3
convolution and a ReLU) at batch 32 on tests/data/curve/framework_device.ini (30 us a kernel in
the training forward pass, 40 backward; tests/test_device_predictor.c derives the layers' device
times by hand: the conv 1.4797504512e-3 s forward, 2.9595009024e-3 backward, the ReLU
1.02760448e-4 and 2.05520896e-4). Added, a pass is every layer's device time and dispatch;
queued, the host's dispatch of the first layer issued and then every layer's device time, the
GPU being busier than the host. queued_device.ini (host_runs_ahead = 1) is queued unless told
otherwise; the bad values are one line each.

Usage: test_dispatch_cli.py SCALEMETER_BINARY   (run from the source root)
"""
import json

from cli_checks import check, run, finish

NET = "tests/data/curve/conv_relu.ini"
DEVICE = "tests/data/curve/framework_device.ini"
QUEUED = "tests/data/curve/queued_device.ini"
CONV_FWD, CONV_BWD, RELU_FWD, RELU_BWD = 1.4797504512e-3, 2.9595009024e-3, 1.02760448e-4, \
    2.05520896e-4
ADDED = (CONV_FWD + RELU_FWD + 2 * 30e-6, CONV_BWD + RELU_BWD + 2 * 40e-6)
QUEUE = (30e-6 + CONV_FWD + RELU_FWD, 40e-6 + RELU_BWD + CONV_BWD)


def passes(device, *extra):
    rc, out, err = run("predict", NET, "--device", device, "-g", "1", "--batch", "32",
                       "--format", "json", *extra)
    check(rc == 0, f"predict {device} {extra}: {err}")
    if rc:
        return None, ""
    j = json.loads(out)
    return (j["t_fwd"], j["t_bwd"]), j["coeffs"]


def near(got, want):
    """Within the JSON's 6 significant digits (the two forms differ by 1% or more)."""
    return got is not None and all(abs(g / w - 1) <= 5e-6 for g, w in zip(got, want))


for device, extra, want in ((DEVICE, (), ADDED), (DEVICE, ("--dispatch", "queued"), QUEUE),
                            (DEVICE, ("--dispatch", "added"), ADDED), (QUEUED, (), QUEUE),
                            (QUEUED, ("--dispatch", "added"), ADDED)):
    got, said = passes(device, *extra)
    check(near(got, want), f"{device} {extra}: {got}, expected {want}")
    check(("queued ahead of the kernels" in said) == (want is QUEUE),
          f"{device} {extra}: the description says {said!r}")

rc, out, err = run("curve", NET, "--device", DEVICE, "-g", "1", "--batch", "32", "--nodes", "1",
                   "--dispatch", "queued")
check(rc == 0 and "queued ahead of the kernels" in out, f"curve names it: {rc} {err}")
for cmd in ("predict", "curve"):
    rc, out, err = run(cmd, NET, "--device", DEVICE, "--batch", "1", "--dispatch", "ahead")
    check(rc == 2, f"{cmd} --dispatch ahead exit {rc}")
    check(err.strip() == f"scalemeter {cmd}: --dispatch: expected queued or added",
          f"{cmd}: {err!r}")
    rc, out, err = run(cmd, NET, "--coeffs", "h100-pytorch-bf16", "--batch", "1",
                       "--dispatch", "queued")
    check(rc != 0 and err.count("\n") == 1 and "applies to --device alone" in err,
          f"{cmd} with --coeffs: {rc} {err!r}")

finish()
