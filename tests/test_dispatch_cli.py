#!/usr/bin/env python3
"""`--dispatch queued|added` as a user gives it to predict and curve, on conv_relu.ini (a 3 x 3
convolution and a ReLU) at batch 32 on tests/data/curve/framework_device.ini (30 us a kernel in
the training forward pass, 40 backward; tests/test_device_predictor.c derives the layers' device
times by hand: the conv 1.4797504512e-3 s forward, 2.9595009024e-3 backward, the ReLU
1.02760448e-4 and, 1.5 times its bytes, 1.54140672e-4). Added, a pass is every layer's device
time and dispatch;
queued, the host's dispatch of the first layer issued and then every layer's device time, the
GPU being busier than the host. queued_device.ini (host_runs_ahead = 1) is queued unless told
otherwise; the bad values are one line each.

Usage: test_dispatch_cli.py SCALEMETER_BINARY   (run from the source root)
"""
import json
import os
import tempfile

from cli_checks import check, run, finish

NET = "tests/data/curve/conv_relu.ini"
DEVICE = "tests/data/curve/framework_device.ini"
QUEUED = "tests/data/curve/queued_device.ini"
CONV_FWD, CONV_BWD, RELU_FWD, RELU_BWD = 1.4797504512e-3, 2.9595009024e-3, 1.02760448e-4, \
    1.54140672e-4
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

# --per-block queued: each block what its layers add to the whole pass's queue, so that the
# blocks add up to t_fwd as the help says (they were each a queue of their own: 14.17 ms of
# blocks for a 12.06 ms pass)
rc, out, err = run("predict", "resnet50", "--device", "h100", "--precision", "bf16", "--batch",
                   "64", "-g", "1", "--dispatch", "queued", "--per-block", "--format", "json")
doc = json.loads(out) if rc == 0 else {"per_block": [], "t_fwd": 1}
blocks = sum(b["t_fwd"] for b in doc["per_block"])
check(rc == 0 and abs(blocks / doc["t_fwd"] - 1) < 1e-5, f"--per-block: {blocks} {doc['t_fwd']}")

# A dispatch that is the device's own time per kernel (CUDA graphs, the fused frameworks, a
# CPU: dispatch_on_device = 1) has no host to run ahead of it: queued, cuda-graphs' ResNet-50
# forward lost its GPU floor per kernel (4.82 -> 2.56 ms). Refused, as the option's error, and
# a file giving both keys as the file's.
for extra in (("--framework", "cuda-graphs"), ("--framework", "fused"), ()):
    device = "cpu" if not extra else "h100"
    rc, out, err = run("predict", "resnet50", "--device", device, "--batch", "8", "-g", "1",
                       "--dispatch", "queued", *extra)
    check(rc == 2 and out == "" and err.count("\n") == 1 and
          "dispatch_on_device = 1" in err and "--dispatch queued" in err,
          f"{device} {extra} --dispatch queued: {rc} {err!r}")
with tempfile.TemporaryDirectory() as d:
    both = os.path.join(d, "both.ini")
    with open(both, "w") as f:
        f.write(open(DEVICE).read().replace("[framework]\n", "[framework]\nhost_runs_ahead = 1\n"
                                            "dispatch_on_device = 1\n", 1))
    rc, out, err = run("predict", NET, "--device", both, "--batch", "1")
    check(rc == 1 and "host_runs_ahead = 1 beside dispatch_on_device = 1" in err,
          f"both keys: {rc} {err!r}")

# cuDNN's recurrent steps are launched by the host one after another inside the layer's call:
# queued, the host is busy with them, so a pass is no shorter than the framework's dispatch
# (added --per-layer's host_fwd, summed) plus two launches a time step of each LSTM (35 steps,
# h100's 5 us bare launch): 2 x 2 x 35 x 5 us = 700 us more. It was 842 us, the next layers'
# dispatch hidden behind launches the host itself made.
LSTM = ("[network]\nname = lstm_lm\ninput = 35\n[layers]\n"
        "emb = embedding vocab=10000 dim=650\nrnn1 = lstm hidden=650\n"
        "rnn2 = lstm hidden=650\nfc = linear out=10000\n")
with tempfile.TemporaryDirectory() as d:
    net = os.path.join(d, "lstm_lm.ini")
    with open(net, "w") as f:
        f.write(LSTM)
    args = ("--device", "h100", "--precision", "fp32", "--batch", "1", "-g", "1",
            "--format", "json")
    rc, out, err = run("predict", net, *args, "--dispatch", "added", "--per-layer")
    host = sum(layer["host_fwd"] or 0 for layer in json.loads(out)["layers"]) if rc == 0 else 0
    rc2, out2, err2 = run("predict", net, *args, "--dispatch", "queued")
    fwd = json.loads(out2)["t_fwd"] if rc2 == 0 else 0
    check(rc == 0 and rc2 == 0 and fwd >= host + 2 * 2 * 35 * 5e-6,
          f"lstm queued t_fwd {fwd} below the host's {host} + 700 us: {err} {err2}")

finish()
