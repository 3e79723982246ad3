#!/usr/bin/env python3
"""`fit --device-out` on rows of 12,000 networks: it must finish, and fit what the distinct
rows fit. It found each row's network by comparing it with every row before, freed each by
looking for a later row holding it, and built the design rows of every row, one walk over its
network per phase and reclassification: rows x networks and rows x layers (80,000 rows of
8,000 networks: 19 s). Networks and (network, batch) configurations are now found by hashing,
and each configuration's design rows built once per reclassification.

Three small networks (two CNNs, an MLP) measured at four batches: the times are the
calibration-free model's own (--device h100), scaled per phase. The large file names each
network under 4,000 names (symlinks) with the same four rows, so every distinct row is repeated
4,000 times: a least-squares fit weights each row alike, so the fit (its dispatch times,
efficiencies and reclassifications) is the small file's.

usage: test_device_fit_many_cli.py SCALEMETER   (run from the source root)
"""
import os
import tempfile

from cli_checks import check, finish, good_json, near, run

NAMES = 4000  # per network
tmp = tempfile.mkdtemp()
NETS = {
    "a": "input = 3x32x32\n\n[layers]\nconv = conv2d out=32 kernel=3 padding=1 bias=false\n"
         "bn = batchnorm2d\nrelu = relu\npool = adaptive_avgpool2d size=1\nflat = flatten\n"
         "fc = linear out=10\n",
    "b": "input = 3x32x32\n\n[layers]\nconv = conv2d out=64 kernel=3 padding=1 bias=false\n"
         "bn = batchnorm2d\nrelu = relu\nconv2 = conv2d out=64 kernel=3 padding=1 bias=false\n"
         "relu2 = relu\npool = adaptive_avgpool2d size=1\nflat = flatten\nfc = linear out=10\n",
    "c": "input = 256\n\n[layers]\nfc1 = linear out=1024\ng = gelu\nfc2 = linear out=256\n"
         "ln = layernorm\n",
}
HEADER = "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n"
rows = {}  # network -> its four rows' fields after the name
for k, body in NETS.items():
    path = os.path.join(tmp, f"{k}.ini")
    with open(path, "w") as f:
        f.write(f"[network]\nname = {k}\n{body}")
    rows[k] = []
    for b in (1, 8, 64, 512):
        p = good_json("predict", path, "--device", "h100", "--batch", str(b))
        t = [p.get("t_infer", 0) * 1.3, p.get("t_fwd", 0) * 1.2, p.get("t_bwd", 0) * 1.1,
             p.get("t_grad", 0), p.get("t_step", 0)]
        rows[k].append(f",32,{b},1,1," + ",".join(repr(x) for x in t))

small = os.path.join(tmp, "small.csv")
with open(small, "w") as f:
    f.write(HEADER + "".join(f"{tmp}/{k}.ini{r}\n" for k in NETS for r in rows[k]))
os.mkdir(os.path.join(tmp, "names"))
large = os.path.join(tmp, "large.csv")
with open(large, "w") as f:
    f.write(HEADER)
    for i in range(NAMES):
        for k in NETS:
            name = os.path.join(tmp, "names", f"{k}{i}.ini")
            os.symlink(os.path.join(tmp, f"{k}.ini"), name)
            f.write("".join(f"{name}{r}\n" for r in rows[k]))

KEYS = ("compute_efficiency_fp32", "conv_efficiency_fp32", "memory_efficiency",
        "dispatch_infer_us", "dispatch_fwd_us", "dispatch_bwd_us", "dispatch_update_us")


def device_fit(csv, name):
    out = os.path.join(tmp, name)
    rc, _, err = run("fit", csv, "--weight-term", "-o", os.path.join(tmp, name + ".coeffs"),
                     "--device-out", out, "--device-base", "h100")
    check(rc == 0, f"fit --device-out {csv}: exit {rc}: {err.strip()}")
    keys, text = {}, open(out).read() if rc == 0 else ""
    for line in text.splitlines():
        k, _, v = line.partition("=")
        if k.strip() in KEYS:
            keys[k.strip()] = float(v.split(";")[0])
    again = [l for l in text.splitlines() if "reclassifications" in l]
    return keys, again[0] if again else None


s_keys, s_iter = device_fit(small, "small.ini")
l_keys, l_iter = device_fit(large, "large.ini")
check(len(s_keys) == len(KEYS), f"the small fit writes {sorted(s_keys)}, not {KEYS}")
for k in KEYS:
    check(k in l_keys and near(l_keys[k], s_keys.get(k, 0), 1e-4),
          f"{k}: {NAMES * 4 * len(NETS):,} rows of {NAMES * len(NETS):,} networks fit "
          f"{l_keys.get(k)}, the 12 distinct rows {s_keys.get(k)}")
check(s_iter and s_iter == l_iter, f"reclassifications: {l_iter}, the small file's {s_iter}")
finish()
