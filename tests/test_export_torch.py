#!/usr/bin/python3
"""tools/export_torch.py, end to end: exports of torchvision models must give the counts (and
here every layer's name, type, shape and counts) of the committed zoo files; a small custom CNN
must export and load with its hand-derived counts (tests/data/custom_cnn.py derives them); an
operation without a layer type must stop the export with a message naming the node.

Usage: test_export_torch.py SCALEMETER_BINARY   (run from the source root; exit 77: skipped)
"""
import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile

try:
    import torchvision  # the exporter's only requirement beyond the standard library
    del torchvision
except ImportError as e:
    print(f"SKIP: PyTorch/torchvision not available ({e})")
    sys.exit(77)

failures = 0


def check(cond, what):
    global failures
    if cond:
        print(f"ok    {what}")
    else:
        failures += 1
        print(f"FAIL  {what}")


def metrics(binary, model):
    out = subprocess.run([binary, "metrics", model, "--format", "json", "--per-layer"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"scalemeter metrics {model}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def export(exporter, args):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = exporter.main(args)
    return rc, err.getvalue()


def main():
    binary = os.path.abspath(sys.argv[1])
    spec = importlib.util.spec_from_file_location("export_torch", "tools/export_torch.py")
    exporter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exporter)
    keys = ("weights", "macs", "inputs", "outputs", "layers", "param_tensors", "flops")
    with tempfile.TemporaryDirectory() as tmp:
        # resnet18 is written by hand; shufflenet (chunk, channel shuffle) and densenet121
        # (growing concatenations) were generated; all must match an export made now
        for model in ("resnet18", "shufflenet_v2_x1_0", "densenet121"):
            path = os.path.join(tmp, model + ".ini")
            rc, err = export(exporter, [model, "-o", path])
            check(rc == 0, f"export {model} {err.strip()}")
            if rc:
                continue
            got, want = metrics(binary, path), metrics(binary, f"models/{model}.ini")
            for k in keys:
                check(got[k] == want[k], f"{model}: {k} {got[k]} == {want[k]} (models/{model}.ini)")
            check(got["per_layer"] == want["per_layer"],
                  f"{model}: every layer's name, type, block, shape and counts")

        # a model the zoo lacks, counted by hand in tests/data/custom_cnn.py
        path = os.path.join(tmp, "custom.ini")
        rc, err = export(exporter, ["--module", "tests/data/custom_cnn.py:CustomCNN",
                                    "--input", "3x32x32", "-o", path])
        check(rc == 0, f"export CustomCNN {err.strip()}")
        if rc == 0:
            m = metrics(binary, path)
            check(m["weights"] == 43770, f"CustomCNN weights {m['weights']} == 43,770")
            check(m["macs"] == 2842624, f"CustomCNN MACs {m['macs']} == 2,842,624")
            check(m["inputs"] == 19456, f"CustomCNN conv inputs {m['inputs']} == 19,456")
            check(m["outputs"] == 32768, f"CustomCNN conv outputs {m['outputs']} == 32,768")
            check(m["layers"] == 5, f"CustomCNN layers with weights {m['layers']} == 5")
            check(m["param_tensors"] == 8, f"CustomCNN parameter tensors {m['param_tensors']} == 8")
            layers = {l["name"]: l for l in m["per_layer"]}
            check(layers.get("stem.0", {}).get("block") == "stem", "stem.0 in block stem")
            check(layers.get("add", {}).get("output") == [16, 32, 32], "add gives 16x32x32")
            check(layers.get("flatten", {}).get("output") == [4096], "view(n, -1) is a flatten")
            check(layers.get("pool", {}).get("output") == [16, 16, 16], "pool gives 16x16x16")
            with open(path) as f:
                text = f.read()
            check("source = tests/data/custom_cnn.py:CustomCNN" in text, "source names the class")
            check(max(len(line) for line in text.splitlines()) <= 198, "lines of <= 198 chars")

        # unsupported operations: non-zero exit, the node and the way out named
        for cls, needle in (("WithGroupNorm", "GroupNorm"), ("WithSine", "sin")):
            rc, err = export(exporter, ["--module", f"tests/data/custom_cnn.py:{cls}",
                                        "--input", "3x16x16", "-o", os.path.join(tmp, "x.ini")])
            check(rc != 0, f"{cls}: refused (exit {rc})")
            check(needle in err and "node " in err and "plugin" in err,
                  f"{cls}: message names the node, the op and plugins: {err.strip()}")
            check(err.count("\n") == 1, f"{cls}: the message is one line")
            check(not os.path.exists(os.path.join(tmp, "x.ini")), f"{cls}: no file written")
        rc, err = export(exporter, ["no_such_model"])
        check(rc != 0 and "no_such_model" in err, f"unknown model refused: {err.strip()}")
        rc, err = export(exporter, ["--module", "tests/data/custom_cnn.py:CustomCNN",
                                    "--input", "3x32", "-o", os.path.join(tmp, "y.ini")])
        check(rc != 0 and "does not run" in err, f"a wrong input shape refused: {err.strip()}")
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
