#!/usr/bin/env python3
"""`scalemeter validate` on rows of 20,000 networks: it must finish, and say each network's
own errors. Each quantity's statistics of every network read every row of the file (and the
networks were listed by comparing each row with every network found before it), so the
report cost networks x rows (80,000 rows of 8,000 networks: 29 s); the rows are now grouped
by network once.

Every network is one file (a symlink per name), so every row of a batch has the same
prediction; network k's rows measure it times f_k = 1 + (k % 7) / 10, so its median ratio
predicted / measured is 1 / f_k and its MAPE 1 - 1 / f_k, from its 2 rows. The rows are
shuffled: the networks are reported in the order the file first names them.

usage: test_validate_many_models_cli.py SCALEMETER   (run from the source root)
"""
import json
import os
import random
import tempfile

from cli_checks import check, finish, good_json, near, run

MODELS = 20000
tmp = tempfile.mkdtemp()
net = os.path.join(tmp, "net.ini")
with open(net, "w") as f:
    f.write("[network]\nname = net\ninput = 3x16x16\n\n[layers]\n"
            "conv = conv2d out=8 kernel=3 padding=1 bias=false\nbn = batchnorm2d\nrelu = relu\n"
            "pool = adaptive_avgpool2d size=1\nflat = flatten\nfc = linear out=10\n")
PHASES = ("t_infer", "t_fwd", "t_bwd", "t_grad", "t_step")
pred = {b: good_json("predict", net, "--device", "h100", "--batch", str(b)) for b in (1, 2)}

os.mkdir(os.path.join(tmp, "nets"))
rows = []
for k in range(MODELS):
    name = os.path.join(tmp, "nets", f"n{k}.ini")
    os.symlink(net, name)
    f = 1 + (k % 7) / 10
    for b in (1, 2):
        times = ",".join(repr(pred[b].get(t, 0) * f) for t in PHASES)
        rows.append(f"{name},16,{b},1,1,{times}")
random.Random(3).shuffle(rows)
csv = os.path.join(tmp, "runs.csv")
with open(csv, "w") as out:
    out.write("model,image,batch,nodes,gpus_per_node," + ",".join(PHASES) + "\n")
    out.write("\n".join(rows) + "\n")

rc, text, err = run("validate", csv, "--device", "h100", "--format", "json")
check(rc == 0, f"validate: exit {rc}: {err.strip()}")
report = json.loads(text) if rc == 0 else {}
first_named = list(dict.fromkeys(r.split(",")[0] for r in rows))
for phase in ("infer", "fwd", "bwd"):
    per_model = report.get("phases", {}).get(phase, {}).get("per_model", {})
    check(list(per_model) == first_named,
          f"{phase}: {len(per_model)} networks, not the {MODELS:,} in the order first named")
    wrong = []
    for name, s in per_model.items():
        k = int(os.path.basename(name)[1:-4])
        f = 1 + (k % 7) / 10
        if not (s.get("n") == 2 and near(s.get("median_ratio", 0), 1 / f, 1e-4) and
                abs(s.get("mape", 0) - (1 - 1 / f)) < 1e-4):
            wrong.append((name, s))
    check(not wrong, f"{phase}: {len(wrong)} networks' errors are not 1 - 1/f_k: {wrong[:2]}")
finish()
