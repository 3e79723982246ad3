#!/usr/bin/env python3
"""Every command's --format json output is strict JSON: each invocation below must exit 0 and
parse with NaN, Infinity and -Infinity refused (Python accepts them by default; JSON has none),
and a few values are checked against figures from outside the code.

usage: test_json_outputs.py SCALEMETER SOURCE_DIR
"""
import csv as csv_module  # csv names a file below
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print(f"FAIL: {what}")


def refuse(name):
    raise ValueError(f"{name} is not JSON")


def run_json(bin_, *args):
    p = subprocess.run([bin_, *args, "--format", "json"], capture_output=True, text=True)
    what = " ".join(args)
    if p.returncode != 0:
        check(False, f"{what}: exit {p.returncode}: {p.stderr.strip()}")
        return None
    try:
        doc = json.loads(p.stdout, parse_constant=refuse)
    except ValueError as e:
        check(False, f"{what}: not JSON ({e}):\n{p.stdout[:400]}")
        return None
    # the table's "-" is null in JSON, never a string (docs/output.md)
    check(not placeholders(doc), f"{what}: \"-\" in place of null at {placeholders(doc)}")
    return doc


def placeholders(doc, where="$"):
    """The paths of doc's string values "-": the table's placeholder, which JSON says null."""
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in placeholders(v, f"{where}.{k}")]
    if isinstance(doc, list):
        return [p for i, v in enumerate(doc) for p in placeholders(v, f"{where}[{i}]")]
    return [where] if doc == "-" else []


def run_csv(bin_, *args):
    """The rows of a command's --format csv, with no field "-" (the table's placeholder,
    empty in CSV)."""
    p = subprocess.run([bin_, *args, "--format", "csv"], capture_output=True, text=True)
    what = " ".join(args)
    check(p.returncode == 0, f"{what} csv: exit {p.returncode}: {p.stderr.strip()}")
    rows = list(csv_module.DictReader(io.StringIO(p.stdout)))
    dashes = [(i, k) for i, r in enumerate(rows) for k, v in r.items() if v == "-"]
    check(not dashes, f"{what} csv: \"-\" in place of an empty field at {dashes[:5]}")
    return rows


def main():
    bin_, src = sys.argv[1], sys.argv[2]
    csv = os.path.join(src, "configs/calibrations/cpu-amd-epyc-1thread.csv")
    with tempfile.TemporaryDirectory() as tmp:
        # resnet18 has 11,689,512 parameters (torchvision's model card)
        m = run_json(bin_, "metrics", "resnet18", "--per-block", "--per-layer")
        check(m and m["weights"] == 11689512 and m["input"] == [3, 224, 224], "metrics resnet18")
        check(m and m["per_layer"][0]["output"] == [64, 112, 112], "metrics conv1 output")
        # a file name with a quote, a backslash and a tab comes back as it was
        odd = os.path.join(tmp, 'we"ird\\na\tme.ini')
        shutil.copy(os.path.join(src, "models/resnet18.ini"), odd)
        m = run_json(bin_, "metrics", odd)
        check(m and m["path"] == odd, f"metrics path escaped: {m and m['path']!r}")

        p = run_json(bin_, "predict", "resnet18", "--coeffs", "default", "--batch", "8",
                     "--per-block")
        check(p and p["batch"] == 8 and p["nodes"] == 1 and p["warning"] is None, "predict")
        check(p and p["memory"]["fits"] is None, "predict: a calibration knows no capacity")
        check(p and len(p["per_block"]) > 0, "predict per_block")

        # a network file is named as typed, as the CSV and curve name it (JSON gave the
        # file's [network] name, resnet18, where the CSV said its path)
        path = os.path.join(src, "models", "resnet18.ini")
        p = run_json(bin_, "predict", path, "--coeffs", "default", "--batch", "8")
        check(p and p["model"] == path, f"predict names a file as typed: {p and p['model']}")

        # the table's days have four digits, as its hours and minutes (3.873 d was 3.9 d)
        args = ["predict", "resnet50", "--batch", "1", "--nodes", "2", "--epochs", "1"]
        e = run_json(bin_, *args)
        table = subprocess.run([bin_, *args], capture_output=True, text=True).stdout
        row = [l.split()[1:3] for l in table.splitlines() if l.startswith("t_epoch")]
        days = e["t_epoch"] / 86400 if e else 0
        check(2 <= days < 10 and row == [[f"{days:.3f}", "d"]], f"t_epoch in days: {row}, {days}")

        c = run_json(bin_, "curve", "resnet18,alexnet", "--coeffs", "default", "--batch", "8",
                     "--nodes", "1:4", "--epochs", "2")
        check(c and [q["nodes"] for q in c["curves"][1]["points"]] == [1, 2, 4], "curve nodes")
        check(c and c["curves"][1]["model"] == "alexnet" and c["epochs"] == 2, "curve models")

        # at the floor, 1e-6 TFLOP/s, steps take hours: still numbers, not inf
        slow = os.path.join(tmp, "slow.ini")
        with open(os.path.join(src, "configs/devices/h100.ini")) as f:
            text = f.read()
        with open(slow, "w") as f:
            f.write("\n".join("peak_tf32_tflops = 1e-6" if l.startswith("peak_tf32_tflops")
                              else l for l in text.split("\n")))
        c = run_json(bin_, "curve", "resnet18", "--device", slow, "--batch", "1", "--nodes", "1:4")
        check(c and c["curves"][0]["points"][0]["t_step"] > 3600, "curve on a slow device")

        a = run_json(bin_, "allreduce", "--device", "h100", "--nodes", "2", "-g", "8",
                     "--min-bytes", "1024", "--max-bytes", "4096")
        check(a and [r["bytes"] for r in a["results"]] == [1024, 2048, 4096] and
              a["ranks"] == 16, "allreduce --device")

        f = run_json(bin_, "fit", csv)
        check(f and f["rows"] == 200 and "infer" in f["phases"], "fit")
        f = run_json(bin_, "fit", csv, "--cv", "loo")
        check(f and isinstance(f["not_validated"], list) and "infer" in f["phases"], "fit --cv loo")
        v = run_json(bin_, "validate", csv, "--coeffs", "default")
        check(v and v["rows"] == 200 and v["phases"]["infer"]["overall"]["n"] > 0, "validate")

        mo = run_json(bin_, "models")
        check(mo and any(r["model"] == "resnet18" and r["weights"] == 11689512
                         for r in mo["models"]), "models")
        # the recipe a file names (Llama 3: torchtitan's bf16 and AdamW), null where none
        rec = {r["model"]: (r.get("precision"), r.get("optimizer")) for r in mo["models"]} \
            if mo else {}
        check(rec.get("llama3_8b") == ("bf16", "adamw") and
              rec.get("resnet18") == (None, None), f"models' recipes: {rec.get('llama3_8b')}, "
              f"{rec.get('resnet18')}")
        pl = run_json(bin_, "plugins")
        check(pl and any(r["type"] == "conv2d" for r in pl["plugins"]), "plugins")
        # what the table says "-" for is null in JSON and empty in CSV: the ring collective's
        # protocol (it has none), a type's traits where it has none, a pass's bound where the
        # layer does no work; and allreduce's restriction is null where nothing restricts
        a = run_json(bin_, "allreduce", "--device", "h100", "--collective", "ring")
        check(a and a["restriction"] is None and
              all(r["algorithm"] == "ring" and r["protocol"] is None for r in a["results"]),
              f"allreduce --collective ring: {a and a['results'][0]}")
        a = run_json(bin_, "allreduce", "--device", "h100")
        check(a and a["restriction"] is None, f"allreduce: restriction {a and a['restriction']}")
        rows = run_csv(bin_, "allreduce", "--device", "h100", "--collective", "ring")
        check(rows and all(r["protocol"] == "" for r in rows), f"allreduce ring csv: {rows[:1]}")
        ring = ["predict", "resnet18", "--batch", "8", "--nodes", "2", "--device", "h100",
                "--collective", "ring"]
        p = run_json(bin_, *ring)
        check(p and p["allreduce"]["algorithm"] == "ring" and p["allreduce"]["protocol"] is None,
              f"predict --collective ring: {p and p['allreduce']}")
        rows = run_csv(bin_, *ring)
        check(rows and (rows[0]["allreduce_algorithm"], rows[0]["allreduce_protocol"]) ==
              ("ring", ""), f"predict --collective ring csv: {rows[:1]}")
        rows = run_csv(bin_, "curve", *ring[1:])
        check(rows and rows[0]["allreduce_protocol"] == "", f"curve ring csv: {rows[:1]}")
        pl = run_json(bin_, "plugins")
        bare = [r for r in pl["plugins"] if r["type"] == "concat"] if pl else []
        check(bare and bare[0]["traits"] is None, f"plugins: concat has no traits: {bare}")
        rows = run_csv(bin_, "plugins")
        check([r["traits"] for r in rows if r["type"] == "concat"] == [""],
              "plugins csv: concat's traits empty")
        layers = ["predict", "resnet18", "--batch", "8", "--device", "h100", "--per-layer"]
        p = run_json(bin_, *layers)
        flat = [r for r in p["layers"] if r["layer"] == "flatten"] if p else []
        check(flat and [flat[0][k] for k in ("bound_infer", "bound_fwd", "bound_bwd")] ==
              [None] * 3, f"--per-layer: flatten does no work: {flat}")
        rows = run_csv(bin_, *layers)
        check([(r["bound_infer"], r["bound_fwd"], r["bound_bwd"]) for r in rows
               if r["layer"] == "flatten"] == [("", "", "")], "--per-layer csv: flatten's bounds")
        # every warning a command says on stderr is in its JSON's warning (docs/output.md);
        # an option given twice was said on stderr alone by these, which had no warning
        twice = {"models": ["--format", "csv"], "devices": ["--format", "csv"],
                 "plugins": ["--format", "csv"], "backends": ["--format", "table"],
                 "metrics resnet18": ["--batch", "2", "--batch", "4"],
                 "metrics resnet18 --per-layer": ["--batch", "2", "--batch", "4"],
                 "metrics resnet18 --per-block": ["--batch", "2", "--batch", "4"],
                 "predict vgg11 --device h100 --per-layer": ["--batch", "2", "--batch", "4"],
                 "predict vgg11 --device h100 -g 1 --per-layer --overlap": ["--batch", "2"],
                 "allreduce --max-bytes 2K": ["--iters", "2", "--iters", "3"]}
        for cmd, opts in twice.items():
            args = cmd.split() + opts + ["--format", "json"]
            p = subprocess.run([bin_, *args], capture_output=True, text=True)
            said = [line.split(": warning: ", 1)[1] for line in p.stderr.splitlines()
                    if ": warning: " in line]
            doc = json.loads(p.stdout) if p.returncode == 0 else {}
            check(said and doc.get("warning") == "; ".join(said),
                  f"{' '.join(args)}: exit {p.returncode}, stderr {said}, JSON warning "
                  f"{doc.get('warning', 'missing')!r}")
            if "--overlap" in cmd:
                continue
            quiet = cmd.split() + opts[2:]  # the option once: nothing to warn of
            doc = run_json(bin_, *quiet)
            check(doc and "warning" in doc and doc["warning"] is None,
                  f"{' '.join(quiet)}: warning null where none: {doc and doc.get('warning')}")
        # backends takes csv as every other command that lists things (it was refused)
        rows = run_csv(bin_, "backends")
        check([(r["name"], r["kind"]) for r in rows][:2] ==
              [("cpu", "compute"), ("cuda", "compute")] and rows[0]["built"] == "true" and rows[0]["usable"] in ("true", "false"),
              f"backends csv: {rows[:2]}")
        b = run_json(bin_, "backends")
        check(b and b["backends"][0]["name"] == "cpu" and b["backends"][0]["built"] is True,
              "backends")
    print(f"{'FAIL' if failed else 'ok'}: {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
