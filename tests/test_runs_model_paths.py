#!/usr/bin/env python3
"""The model column of a runs CSV, as fit and validate read it: a relative path names the file
beside the CSV where there is one there, so a CSV and its networks moved together read the same
from any folder; elsewhere it is what it was (the current folder, then the zoo by name).

usage: test_runs_model_paths.py SCALEMETER   (run from the source root)
"""
import os
import shutil
import subprocess
import tempfile

from cli_checks import SM, check, finish

DATA = os.path.abspath("tests/data/fit")
COEFFS = os.path.join(DATA, "tiny_coeffs.ini")
# tests/fit.cmake, cli_validate_hand: tiny_a at image 8, batch 2 is predicted 0.083708 s by
# tiny_coeffs; measured 0.1 s: |0.083708 - 0.1| / 0.1 = 0.16292, ratio 0.83708
HAND = "infer,overall,1,0.16292,0.016292,,0.83708"


def run_in(cwd, *args):
    p = subprocess.run([SM, *args], cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def coefficient_lines(path):
    """The coefficient file's lines but the comments and [fit]'s date and source."""
    with open(path) as f:
        return [ln for ln in f if not ln.startswith(";") and not ln.startswith(("date", "source"))]


with tempfile.TemporaryDirectory() as tmp:
    sub = os.path.join(tmp, "sub")
    os.mkdir(sub)
    for n in "abc":
        shutil.copy(os.path.join(DATA, f"tiny_{n}.ini"), sub)
    with open(os.path.join(DATA, "validate_hand.csv")) as f:
        text = f.read().replace("tests/data/fit/", "")
    with open(os.path.join(sub, "runs.csv"), "w") as f:
        f.write(text)

    # from the CSV's own folder (as before) and from its parent: the same hand numbers
    for cwd, csv in ((sub, "runs.csv"), (tmp, "sub/runs.csv"), ("/", os.path.join(sub, "runs.csv"))):
        rc, out, err = run_in(cwd, "validate", csv, "--coeffs", COEFFS, "--format", "csv")
        check(rc == 0 and HAND in out, f"validate {csv} from {cwd}: exit {rc} {err.strip()}")

    # a file of that name in the current folder is another network: the CSV's own is used, not
    # it (tiny_b there would predict another time)
    shutil.copy(os.path.join(DATA, "tiny_b.ini"), os.path.join(tmp, "tiny_a.ini"))
    rc, out, err = run_in(tmp, "validate", "sub/runs.csv", "--coeffs", COEFFS, "--format", "csv")
    check(rc == 0 and HAND in out, f"validate with a decoy tiny_a.ini here: {rc} {out} {err}")
    # a path that is not beside the CSV is still the current folder's
    with open(os.path.join(sub, "here.csv"), "w") as f:
        f.write(text.replace("tiny_a.ini", "../tiny_a.ini"))
    rc, out, err = run_in(sub, "validate", "here.csv", "--coeffs", COEFFS, "--format", "csv")
    check(rc == 0 and "../tiny_a.ini" in out and HAND not in out,
          f"../tiny_a.ini from sub is the decoy: {rc} {out} {err}")
    os.remove(os.path.join(tmp, "tiny_a.ini"))

    # fit: the rows of loo_one_unseparable.csv with their networks beside the CSV, fitted from
    # the parent folder, give the coefficients of the original fitted from the source root
    with open(os.path.join(DATA, "loo_one_unseparable.csv")) as f:
        text = f.read()
    check("tests/data/fit/tiny_" in text, "loo_one_unseparable.csv names tiny_ files")
    with open(os.path.join(sub, "fit.csv"), "w") as f:
        f.write(text.replace("tests/data/fit/", ""))
    want, got = os.path.join(tmp, "want.ini"), os.path.join(tmp, "got.ini")
    rc, out, err = run_in(os.getcwd(), "fit", os.path.join(DATA, "loo_one_unseparable.csv"),
                          "-o", want)
    check(rc == 0, f"fit the original: {err.strip()}")
    rc, out, err = run_in(tmp, "fit", "sub/fit.csv", "-o", got)
    check(rc == 0 and os.path.exists(got) and coefficient_lines(got) == coefficient_lines(want),
          f"fit sub/fit.csv from its parent: exit {rc} {err.strip()}")

    # zoo names still name the zoo, from any folder
    with open(os.path.join(sub, "zoo.csv"), "w") as f:
        f.write("model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n"
                "resnet18,32,2,1,1,0.1,,,,\n")
    rc, out, err = run_in(tmp, "validate", "sub/zoo.csv", "--coeffs", COEFFS, "--format", "csv")
    check(rc == 0 and "infer,resnet18,1," in out, f"zoo name from a CSV in sub: {rc} {err}")

# One network spelled two ways (tests/data/fit/tiny_a.ini and tests/data/fit/./tiny_a.ini, as
# bench writes what its command line said) was two networks: the same configuration under both
# was not seen as measured again, and leave-one-model-out predicted each from a fit on the other.
# Now the rows take the first spelling. By hand (HAND): both rows are predicted 0.083708 s
# against 0.1, so n 2, MAPE and ratio as for one row, and no R2 (the two measured are equal).
TWICE = "tests/data/fit/./tiny_a.ini"
with open(os.path.join(DATA, "validate_hand.csv")) as f:
    hand = f.read()
with tempfile.TemporaryDirectory() as tmp:
    twice = os.path.join(tmp, "twice.csv")
    with open(twice, "w") as f:
        f.write(hand + hand.splitlines()[1].replace("tests/data/fit/tiny_a.ini", TWICE) + "\n")
    rc, out, err = run_in(os.getcwd(), "validate", twice, "--coeffs", COEFFS, "--format", "csv")
    check(rc == 0 and "infer,tests/data/fit/tiny_a.ini,2,0.16292,0.016292,,0.83708" in out and
          TWICE not in out and f"{twice}:3: the configuration of line 2 measured again" in err,
          f"validate of one network spelled twice: exit {rc} {out} {err.strip()}")
    # leaving tiny_a out leaves the other two unable to fit (loo_one_unseparable.csv): with its
    # image-16 rows spelled apart it was "validated" by a fit on its own image-16 rows
    original = os.path.join(DATA, "loo_one_unseparable.csv")
    with open(original) as f:
        rows = f.read().splitlines()
    respelled = os.path.join(tmp, "respelled.csv")
    with open(respelled, "w") as f:
        f.write("\n".join(r.replace("tests/data/fit/tiny_a.ini,16,", TWICE + ",16,")
                          for r in rows) + "\n")
    want = run_in(os.getcwd(), "fit", original, "--cv", "loo", "--format", "csv")
    got = run_in(os.getcwd(), "fit", respelled, "--cv", "loo", "--format", "csv")
    check(got[0] == want[0] == 0 and got[1] == want[1] and TWICE not in got[1] + got[2] and
          "could not validate 1 of 3 networks (tests/data/fit/tiny_a.ini)" in got[2],
          f"fit --cv loo of tiny_a spelled two ways: {got} against {want}")
# bench writes the path fit will read: from the CSV's folder (the bench round of 2026-11-26:
# `bench net.ini -o sub/runs.csv` wrote net.ini, which fit looked for beside the CSV, so that
# validate from another folder said "unknown model", and a net.ini there was read silently)
with tempfile.TemporaryDirectory() as tmp:
    shutil.copy("examples/tiny_resnet.ini", tmp)
    os.mkdir(os.path.join(tmp, "sub"))
    bench = ["bench", "tiny_resnet.ini", "--image", "16", "--batch", "1", "--reps", "3",
             "--warmup", "1", "--min-time", "0.01", "--threads", "1", "-q"]
    rc, out, err = run_in(tmp, *bench, "-o", "sub/runs.csv")
    with open(os.path.join(tmp, "sub", "runs.csv")) as f:
        models = [ln.split(",")[0] for ln in f.read().splitlines()[1:]]
    check(rc == 0 and models == ["../tiny_resnet.ini"], f"bench -o sub/runs.csv: {models} {err}")
    # read from any folder, and a file of that name beside the CSV is not the one read
    shutil.copy(os.path.join(DATA, "tiny_a.ini"), os.path.join(tmp, "sub", "tiny_resnet.ini"))
    rc, out, err = run_in("/", "validate", os.path.join(tmp, "sub", "runs.csv"), "--device",
                          "h100", "--format", "csv")
    check(rc == 0 and "sub/../tiny_resnet.ini" in out, f"validate from /: exit {rc} {out} {err}")
    # the same command again, and from another folder: nothing measured twice
    rc, out, err = run_in(tmp, *bench, "--batch", "1,2", "-o", "sub/runs.csv")
    sub2 = os.path.join(tmp, "sub2")
    os.mkdir(sub2)
    rc2, out2, err2 = run_in(sub2, *[a.replace("tiny_resnet.ini", "../tiny_resnet.ini")
                                     for a in bench], "--batch", "1,2,4", "-o", "../sub/runs.csv")
    with open(os.path.join(tmp, "sub", "runs.csv")) as f:
        rows = [ln.split(",")[:3] for ln in f.read().splitlines()[1:]]
    check(rc == rc2 == 0 and rows == [["../tiny_resnet.ini", "16", b] for b in ("1", "2", "4")],
          f"bench resumed from two folders: {rows} {err} {err2}")
    # the source tree's network and a CSV in the temporary folder: the path between them, or
    # where no folder but the root holds both, the network's absolute path
    runs = os.path.join(tmp, "elsewhere.csv")
    net = os.path.abspath("examples/tiny_resnet.ini")
    rc, out, err = run_in(os.getcwd(), *bench[:1], "examples/tiny_resnet.ini", *bench[2:], "-o",
                          runs)
    want = (net if os.path.commonpath([net, tmp]) == "/" else
            os.path.relpath(net, os.path.dirname(runs)))
    with open(runs) as f:
        models = [ln.split(",")[0] for ln in f.read().splitlines()[1:]]
    check(rc == 0 and models == [want], f"bench -o {runs}: {models}, want {want}: {err}")
    # bench writes a zoo network by its bare name; a file of that name beside the CSV stood
    # for it without a word (mobilenet_v2's rows fitted on a one-layer network): refused, and
    # a row that writes it as a path (./NAME) reads the file
    zoo = os.path.join(tmp, "zoo")
    os.mkdir(zoo)
    rows = "".join(f"{m},32,{b},1,1,0.01,0.012,0.02,0.003,0.035\n"
                   for m in ("resnet18", "mobilenet_v2") for b in (1, 2, 4))
    zoo_runs = os.path.join(zoo, "runs.csv")
    with open(zoo_runs, "w") as f:
        f.write("model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n" + rows)
    with open(os.path.join(zoo, "mobilenet_v2"), "w") as f:
        f.write("[network]\nname = x\ninput = 3x32x32\n[layers]\nfc = linear out=10\n")
    for cmd in (["validate", zoo_runs, "--device", "h100"], ["fit", zoo_runs]):
        rc, out, err = run_in(tmp, *cmd)
        check(rc == 1 and f"runs.csv:5: model mobilenet_v2 names both the zoo's network and the "
              "file" in err and len(err.strip().splitlines()) == 1, f"{cmd[0]}: {rc} {err}")
    with open(zoo_runs, "w") as f:
        f.write("model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n" +
                rows.replace("mobilenet_v2,", "./mobilenet_v2,"))
    rc, out, err = run_in(tmp, "validate", zoo_runs, "--device", "h100", "--format", "json")
    check(rc == 0 and "zoo/./mobilenet_v2" in out, f"./mobilenet_v2 reads the file: {err} {out[:300]}")

finish()
