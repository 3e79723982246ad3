#!/usr/bin/python3
"""tools/export_torch.py, end to end: exports of torchvision models must give the counts (and
here every layer's name, type, shape and counts) of the committed zoo files; a small custom CNN
must export and load with its hand-derived counts (tests/data/custom_cnn.py derives them); the
torchvision transformers (ViT, Swin, Swin V2, MaxViT) must give PyTorch's parameter counts and
torchvision's published GFLOPS; recurrent, attention and transformer modules of torch.nn
(tests/data/sequence_models.py) must give sum(p.numel()) and their hand-derived MACs; an
operation without a layer type, or code torch.fx cannot trace, must stop the export with a
message naming the node or the module.

Usage: test_export_torch.py SCALEMETER_BINARY   (run from the source root; exit 77: skipped)
"""
import contextlib
import glob
import importlib.util
import io
import json
import os
import re
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


# torchvision's published numbers (https://pytorch.org/vision/stable/models.html: Params, and
# GFLOPS, which are multiply-accumulates; the weights' meta "num_params" and "_ops"), checked as
# tests/test_zoo_reference.c checks the zoo: parameters exactly, MACs within 1%.
# Each at the image size its weights were evaluated at (their transforms' crop), as published:
# swin_v2_t at 256x256, the others at 224x224.
PUBLISHED = {"vit_b_32": (88224232, 4.409, 224), "swin_t": (28288354, 4.491, 224),
             "swin_v2_t": (28351570, 5.94, 256), "maxvit_t": (30919624, 5.558, 224)}


def check_transformers(binary, exporter, tmp):
    import torchvision
    for model, (params, gflops, image) in PUBLISHED.items():
        path = os.path.join(tmp, model + ".ini")
        rc, err = export(exporter, [model, "--input", f"3x{image}x{image}", "-o", path])
        check(rc == 0, f"export {model} {err.strip()}")
        if rc:
            continue
        m = metrics(binary, path)
        net = getattr(torchvision.models, model)()
        check(m["weights"] == params == sum(p.numel() for p in net.parameters()),
              f"{model}: weights {m['weights']} == {params:,} (published, and sum(p.numel()))")
        check(m["param_tensors"] == len(list(net.parameters())),
              f"{model}: parameter tensors {m['param_tensors']} == {len(list(net.parameters()))}")
        check(abs(m["macs"] / 1e9 - gflops) <= 0.01 * gflops,
              f"{model}: {m['macs'] / 1e9:.3f} GMACs within 1% of the published {gflops}")


# tests/data/sequence_models.py: class -> (--input, --input-dtype, MACs derived in its docstring)
SEQUENCE_MODELS = {
    "LSTMClassifier": ("16", "long", 2359936),
    "GRUSequenceFirst": ("12", "long", 34632),
    "StackedRNN": ("10x8", "float", 5328),
    "BiLSTMFinalStates": ("6x5", "float", 4060),
    "SelfAttention": ("9x16", "float", 11840),
    "SelfAttentionWithWeights": ("9x16", "float", 11840),
    "TinyEncoder": ("20", "long", 1413760),
    "PreNormEncoderSequenceFirst": ("7x32", "float", 60480),
    "TinyEncoderDecoder": ("10", "long", 256000),
}


def check_sequence_models(binary, exporter, tmp):
    spec = importlib.util.spec_from_file_location("sequence_models",
                                                  "tests/data/sequence_models.py")
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    for cls, (shape, dtype, macs) in SEQUENCE_MODELS.items():
        path = os.path.join(tmp, cls + ".ini")
        rc, err = export(exporter, ["--module", f"tests/data/sequence_models.py:{cls}",
                                    "--input", shape, "--input-dtype", dtype, "-o", path])
        check(rc == 0, f"export {cls} {err.strip()}")
        if rc:
            continue
        m = metrics(binary, path)
        net = getattr(models, cls)()
        want = sum(p.numel() for p in net.parameters())
        check(m["weights"] == want, f"{cls}: weights {m['weights']} == sum(p.numel()) {want}")
        check(m["param_tensors"] == len(list(net.parameters())),
              f"{cls}: parameter tensors {m['param_tensors']} == {len(list(net.parameters()))}")
        check(m["macs"] == macs, f"{cls}: MACs {m['macs']} == {macs:,} (hand-derived)")
        # PyTorch's own source: attention called without its weights (need_weights=False, as
        # nn.TransformerEncoderLayer's _sa_block calls it) runs scaled_dot_product_attention
        with open(path) as f:
            text = f.read()
        calls = sum(isinstance(x, models.nn.MultiheadAttention) for x in net.modules())
        sdpa = 0 if cls == "SelfAttentionWithWeights" else calls
        check(text.count("impl=sdpa") == sdpa,
              f"{cls}: {sdpa} of {calls} attention layers with impl=sdpa")
    # what cannot be followed: one line naming the module and what to do
    for cls, shape, needles in (
            ("FinalCellState", "6x4", ("lstm", "c_n", "out[:, -1]")),
            ("DataDependentBranch", "5x4", ("module gate (Gate)", "sequence_models.py:",
                                            "if x.sum() > 0", "traceable"))):
        rc, err = export(exporter, ["--module", f"tests/data/sequence_models.py:{cls}",
                                    "--input", shape, "-o", os.path.join(tmp, "z.ini")])
        check(rc != 0 and all(n in err for n in needles) and err.count("\n") == 1,
              f"{cls}: refused in one line naming {needles}: {err.strip()}")
        check(not os.path.exists(os.path.join(tmp, "z.ini")), f"{cls}: no file written")


def check_module_options(binary, exporter, tmp):
    """--module path/file.py:Class imports the file's siblings; --kwargs constructs it; every
    unsupported operation is listed in one run with its module and line."""
    path = os.path.join(tmp, "sibling.ini")
    rc, err = export(exporter, ["--module", "tests/data/export_pkg/several_unsupported.py:SiblingNet",
                                "--kwargs", '{"num_classes": 10}', "--input", "3x8x8", "-o", path])
    check(rc == 0, f"SiblingNet (a sibling import, --kwargs) exports {err.strip()}")
    if rc == 0:
        m = metrics(binary, path)
        # conv 3->8 3x3: 8*3*9 + 8 = 224; head 8->10: 80 + 10 = 90
        check(m["weights"] == 224 + 90, f"SiblingNet weights {m['weights']} == 314 (num_classes 10)")
    rc, err = export(exporter, ["--module", "tests/data/export_pkg/several_unsupported.py:SiblingNet",
                                "--kwargs", '{"classes": 10}', "-o", path + "x"])
    check(rc != 0 and "--kwargs" in err and "classes" in err and err.count("\n") == 1,
          f"an unknown constructor argument refused in one line: {err.strip()}")
    rc, err = export(exporter, ["--module", "tests/data/export_pkg/several_unsupported.py:SiblingNet",
                                "--kwargs", "[10]", "-o", path + "x"])
    check(rc != 0 and "JSON object" in err, f"--kwargs that is not an object refused: {err.strip()}")
    rc, err = export(exporter, ["--module",
                                "tests/data/export_pkg/several_unsupported.py:SeveralUnsupported",
                                "--input", "3x8x8", "-o", path + "x"])
    lines = err.strip().splitlines()
    want = [("erf", "in stem", "export_sibling.py:14"), ("sin", "several_unsupported.py:18"),
            ("cos", "several_unsupported.py:19")]
    check(rc != 0 and len(lines) == 4 and all(all(n in line for n in w)
                                              for w, line in zip(want, lines)),
          f"three unsupported operations listed, each with module and line: {lines}")
    check("3 operations" in lines[-1] and "plugin" in lines[-1], f"then the way out: {lines[-1]}")
    check(not os.path.exists(path + "x"), "no file written")
    # tied parameters were counted once per module; an empty output and a name of two lines were
    # written, and every command refused the file (the bench round of 2026-11-26)
    refused = "tests/data/export_pkg/refused_models.py:"
    for args, want in (
            ([refused + "TiedConv", "--input", "16x8x8"],
             "parameter c2.weight is c1.weight (tied): scalemeter would count its 2304 weights "
             "twice"),
            ([refused + "TiedHead", "--input", "12", "--input-dtype", "long"],
             "parameter fc.weight is emb.weight (tied)"),
            ([refused + "EmptyOutput", "--input", "3x2x2"],
             "its output (2, 0) is empty: a scalemeter layer has at least one element"),
            ([refused + "TiedConv", "--input", "16x8x8", "--name", "a\nb"],
             "--name 'a\\nb': a network name is one line")):
        rc, err = export(exporter, ["--module", *args, "-o", path + "x"])
        lines = [ln for ln in err.strip().splitlines() if "UserWarning" not in ln and
                 not ln.startswith("  warnings.warn")]
        check(rc == 1 and len(lines) == 1 and want in lines[0],
              f"{args[0]} {args[-1]} refused in one line with '{want}': {err.strip()}")
        check(not os.path.exists(path + "x"), f"{args[0]}: no file written")


AUDIT = "tests/data/export_pkg/audit_models.py:"
INPUT_DTYPES = {"float": "float32", "long": "int64"}
# tests/data/export_pkg/audit_models.py: refused, in one line holding `want`
AUDIT_REFUSED = [
    (["TiedLMHeadFunctional", "--input", "12", "--input-dtype", "long"],
     "parameter embed.weight is tied: used here and by module embed; scalemeter would count its "
     "32000 weights twice"),
    (["ModuleAndFunctional", "--input", "16"],
     "parameter fc.weight is tied: used here and by module fc"),
    (["FunctionalConvTwice", "--input", "8x8x8"],
     "parameter w is tied: used here and by node conv2d (audit_models.py:"),
    (["SplitTrickyTotal", "--input", "16"],
     "split into the pieces [6, 5, 5], which torch.chunk does not give (it cuts 16 into "
     "[6, 6, 4])"),
    (["ClsTokenWide", "--input", "5x16"],
     "parameter reg of shape [1, 4, 16] puts 4 tokens in front; the cls_token layer puts one"),
    (["BuffersFrozen", "--input", "16"],
     "node frozen (call_module frozen) at audit_models.py:"),
    (["BuffersFrozen", "--input", "16"],
     "parameter frozen.weight is frozen (requires_grad=False): scalemeter counts a layer's "
     "weights as trainable parameters"),
    (["FrozenFunctional", "--input", "16"], "parameter w is frozen (requires_grad=False)"),
]
# exported: class -> (--input, --input-dtype, MACs derived in its docstring, the chunk's index,
# the modules whose parameters the file leaves out, named in a warning)
AUDIT_EXPORTED = {
    "ChunkNegIndex": ("16", "float", 80, 1, ()),
    "Chunk4of6": ("16", "float", 100, 2, ()),
    "TrainOnlyBranch": ("16", "float", 64, None, ("aux",)),
    "UnusedParams": ("16", "float", 256, None, ("unused", "extra")),
    "DeadFunctional": ("16", "float", 256, None, ("w",)),
    "InplaceReturnThenUse": ("16", "float", 576, None, ()),
    "InplaceDiscarded": ("16", "float", 512, None, ()),
    "InplaceSigmoidMul": ("16", "float", 256, None, ()),
    "ConvTOutSize": ("8x8x8", "float", 18432, None, ()),
    "ReflectPad": ("3x8x8", "float", 13824, None, ()),
}
# class -> the one other warning its export gives
AUDIT_WARNS = {"ReflectPad": ("node c (call_module c) at audit_models.py:",
                              "padding_mode=reflect is written as zero padding")}
# layer -> the layers it reads, in the audit's exports ([layers] only)
AUDIT_READS = {
    "InplaceReturnThenUse": {"add": ["fc", "fc2"], "fc3": ["add"]},
    "InplaceDiscarded": {"relu": ["fc"], "fc2": ["relu"]},
    "InplaceSigmoidMul": {"sigmoid": ["fc"], "mul": ["sigmoid", "@input"]},
}


def layer_inputs(text):
    """{layer: the layers it reads} of a file's [layers] (from=, else the layer before)."""
    reads, prev = {}, "@input"
    for line in text.split("[layers]", 1)[-1].splitlines():
        m = re.match(r"(\S+)\s*=\s*\S+(.*)$", line)
        if m:
            src = re.search(r"\bfrom=(\S+)", m.group(2))
            reads[m.group(1)] = src.group(1).split(",") if src else [prev]
            prev = m.group(1)
    return reads


def left_out(net, names):
    """The parameters of `net` under the modules (or parameters) `names`."""
    return sum(p.numel() for n, p in net.named_parameters()
               if any(n == k or n.startswith(k + ".") for k in names))


def check_left_out(what, err, net, names, weights):
    """A warning, one line, giving how many of the model's parameters the file leaves out
    (PyTorch's count of those under `names`) and naming the first; none where names is empty."""
    total, out = sum(p.numel() for p in net.parameters()), left_out(net, names)
    warned = [ln for ln in err.splitlines() if "warning:" in ln and "of the model's" in ln]
    if not names:
        check(not warned, f"{what}: no warning: {warned}")
        return
    want = f"warning: {out:,} of the model's {total:,} parameters"
    check(len(warned) == 1 and want in warned[0] and names[0] in warned[0],
          f"{what}: one line '{want}' naming {names[0]}: {warned}")
    check(weights == total - out, f"{what}: weights {weights} == {total:,} - {out:,}")


def check_audit_models(binary, exporter, tmp):
    """The audit's models: refused in one line (no file written), or exported with PyTorch's
    parameters and output shape, the MACs derived in their docstrings, and the warning
    expected on standard error."""
    path = os.path.join(tmp, "audit.ini")
    for args, want in AUDIT_REFUSED:
        if os.path.exists(path):
            os.remove(path)  # written by an export that should have been refused
        rc, err = export(exporter, ["--module", AUDIT + args[0], *args[1:], "-o", path])
        check(rc == 1 and err.count("\n") == 1 and want in err,
              f"{args[0]} refused in one line with '{want}': {err.strip()}")
        check(not os.path.exists(path), f"{args[0]}: no file written")
    spec = importlib.util.spec_from_file_location("audit_models", AUDIT[:-1])
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    import torch
    for cls, (shape, dtype, macs, index, unused) in AUDIT_EXPORTED.items():
        path = os.path.join(tmp, cls + ".ini")
        rc, err = export(exporter, ["--module", AUDIT + cls, "--input", shape,
                                    "--input-dtype", dtype, "-o", path])
        check(rc == 0, f"export {cls} {err.strip()}")
        if rc:
            continue
        m = metrics(binary, path)
        net = getattr(models, cls)().eval()
        want = sum(p.numel() for p in net.parameters()) - left_out(net, unused)
        check(m["weights"] == want, f"{cls}: weights {m['weights']} == sum(p.numel()) {want}")
        check_left_out(cls, err, net, unused, m["weights"])
        other = [ln for ln in err.splitlines() if "warning:" in ln and "of the model's" not in ln]
        want = AUDIT_WARNS.get(cls)
        check(other == [] if want is None else len(other) == 1 and
              all(n in other[0] for n in want), f"{cls}: warnings {other} ({want or 'none'})")
        check(m["macs"] == macs, f"{cls}: MACs {m['macs']} == {macs:,} (hand-derived)")
        dims = [int(v) for v in shape.split("x")]
        x = torch.zeros(1, *dims, dtype=getattr(torch, INPUT_DTYPES[dtype]))
        with torch.no_grad():
            want = list(net(x).shape[1:])
        check(m["per_layer"][-1]["output"] == want,
              f"{cls}: output {m['per_layer'][-1]['output']} == PyTorch's {want}")
        with open(path) as f:
            text = f.read()
        if index is not None:
            check(f" index={index}" in text, f"{cls}: the chunk's index={index}")
        reads = layer_inputs(text)
        for layer, want in AUDIT_READS.get(cls, {}).items():
            check(reads.get(layer) == want, f"{cls}: {layer} reads {reads.get(layer)} == {want}")
    # GoogLeNet with its auxiliary heads: they run only in training, so the file lacks them
    import torchvision
    path = os.path.join(tmp, "googlenet_aux.ini")
    rc, err = export(exporter, ["googlenet", "--kwargs", '{"aux_logits": true}', "-o", path])
    check(rc == 0, f"export googlenet with aux_logits {err.strip()}")
    if rc == 0:
        net = torchvision.models.googlenet(weights=None, aux_logits=True, init_weights=False)
        check_left_out("googlenet aux_logits=True", err, net, ("aux1", "aux2"),
                       metrics(binary, path)["weights"])


# files of a model that the exporter must refuse in one line rather than with a traceback
BAD_MODEL_FILES = {
    "raises.py": ("import torch\nraise RuntimeError('boom at import')\n",
                  "importing {} raised RuntimeError: boom at import at raises.py:2"),
    "exits.py": ("import sys\nsys.exit(3)\n", "raised SystemExit: 3 at exits.py:2"),
    "initraises.py": ("import torch\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
                      "        super().__init__()\n        raise ValueError('bad init')\n",
                      "its constructor raised ValueError: bad init at initraises.py:5"),
    "notmodule.py": ("class Net:\n    pass\n", "gives a Net, not a torch.nn.Module"),
    "notclass.py": ("Net = 3\n", "not a class (int)"),
}


def check_command_line(exporter, tmp):
    """What the audit of 2026-11-29 found ending in a traceback, overwriting the model's source,
    or writing a file scalemeter then read differently: refused in one line, no file written."""
    for name, (text, want) in BAD_MODEL_FILES.items():
        src = os.path.join(tmp, name)
        with open(src, "w") as f:
            f.write(text)
        out = os.path.join(tmp, "bad.ini")
        rc, err = export(exporter, ["--module", src + ":Net", "--input", "16", "-o", out])
        want = want.format(src)
        check(rc == 1 and err.count("\n") == 1 and want in err and "Traceback" not in err,
              f"{name}: refused in one line with '{want}': {err.strip()}")
        check(not os.path.exists(out), f"{name}: no file written")
    model = AUDIT + "ChunkNegIndex"
    for out, want in ((os.path.join(tmp, "no_such_folder", "x.ini"), "does not exist"),
                      (tmp, "is a folder"),
                      ("/dev/full", "cannot write /dev/full: No space left on device")):
        if out == "/dev/full" and not os.path.exists(out):
            continue
        rc, err = export(exporter, ["--module", model, "--input", "16", "-o", out])
        check(rc == 1 and err.count("\n") == 1 and want in err,
              f"-o {out}: refused in one line with '{want}': {err.strip()}")
    # -o naming the model's own source overwrote it
    src = os.path.join(tmp, "own_source.py")
    with open(AUDIT[:-1]) as f, open(src, "w") as g:
        g.write(f.read())
    rc, err = export(exporter, ["--module", src + ":ChunkNegIndex", "--input", "16", "-o", src])
    with open(AUDIT[:-1]) as f, open(src) as g:
        same = f.read() == g.read()
    check(rc == 1 and "an input of the export" in err and same,
          f"-o the model's own source: refused, the source kept: {err.strip()}")
    # ';' and '#' in a name, a newline in --kwargs: the file would be read differently
    for args, want in ((["--name", "a ; b"], "--name 'a ; b': a network name"),
                       (["--name", "a#b"], "--name 'a#b': a network name")):
        out = os.path.join(tmp, "named.ini")
        rc, err = export(exporter, ["--module", model, "--input", "16", "-o", out, *args])
        check(rc == 1 and err.count("\n") == 1 and want in err and not os.path.exists(out),
              f"{args}: refused in one line with '{want}': {err.strip()}")
    out = os.path.join(tmp, "kwargs.ini")
    sibling = "tests/data/export_pkg/several_unsupported.py:SiblingNet"
    rc, err = export(exporter, ["--module", sibling, "--kwargs", '{\n"num_classes":\n 10}',
                                "--input", "3x8x8", "-o", out])
    text = open(out).read() if rc == 0 else ""
    check(rc == 0 and all(ln == "" or ln[0] in ";[" or "=" in ln for ln in text.splitlines())
          and """--kwargs '{"num_classes": 10}'""" in text,
          f"--kwargs of three lines: written on the header's one line: {text[:300]!r}")


# tests/data/ordinary_models.py: class -> (--input, --input-dtype, MACs derived in its docstring)
ORDINARY_MODELS = {
    "TextCNN": ("20", "long", 30848),
    "SentenceClassifier": ("12", "long", 792),
    "Video3D": ("3x4x8x8", "float", 202768),
    "TinyUNet": ("3x16x16", "float", 32256),
    "SuperResolution": ("1x8x8", "float", 55296),
    "FunctionalLayers": ("3x8x8", "float", 4096),
}


def check_ordinary_models(binary, exporter, tmp):
    """Conv1d, Conv3d, ConvTranspose2d, Upsample and F.interpolate, PixelShuffle and
    F.pixel_shuffle, F.conv2d and F.linear with the model's own parameters, mean over a
    sequence: each model exports with PyTorch's parameters, its shape and hand-derived MACs."""
    spec = importlib.util.spec_from_file_location("ordinary_models",
                                                  "tests/data/ordinary_models.py")
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    import torch
    for cls, (shape, dtype, macs) in ORDINARY_MODELS.items():
        path = os.path.join(tmp, cls + ".ini")
        rc, err = export(exporter, ["--module", f"tests/data/ordinary_models.py:{cls}",
                                    "--input", shape, "--input-dtype", dtype, "-o", path])
        check(rc == 0, f"export {cls} {err.strip()}")
        if rc:
            continue
        m = metrics(binary, path)
        net = getattr(models, cls)()
        want = sum(p.numel() for p in net.parameters())
        check(m["weights"] == want, f"{cls}: weights {m['weights']} == sum(p.numel()) {want}")
        check(m["param_tensors"] == len(list(net.parameters())),
              f"{cls}: parameter tensors {m['param_tensors']} == {len(list(net.parameters()))}")
        check(m["macs"] == macs, f"{cls}: MACs {m['macs']} == {macs:,} (hand-derived)")
        dims = [int(v) for v in shape.split("x")]
        x = (torch.zeros(1, *dims, dtype=torch.long) if dtype == "long"
             else torch.zeros(1, *dims))
        want = list(net(x).shape[1:])
        check(m["per_layer"][-1]["output"] == want,
              f"{cls}: output {m['per_layer'][-1]['output']} == PyTorch's {want}")


def check_interpreter_notice(tmp):
    """Run from a Python without torch, the exporter re-runs under one that has it, and says so
    only with -v."""
    venv = os.path.join(tmp, "venv")
    if subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--copies", venv],
                      capture_output=True).returncode != 0:
        print("skip  the interpreter notice (python3 -m venv unavailable)")
        return
    python = os.path.join(venv, "bin", "python3")
    env = dict(os.environ, SCALEMETER_PYTHON=sys.executable)
    for extra, want in (([], False), (["-v"], True)):
        out = subprocess.run([python, "tools/export_torch.py", "resnet18", "-o",
                              os.path.join(tmp, "r.ini")] + extra,
                             capture_output=True, text=True, env=env)
        check(out.returncode == 0 and ("running under" in out.stderr) == want,
              f"without torch here, {extra or 'no -v'}: notice {'shown' if want else 'absent'} "
              f"(stderr {out.stderr.strip()!r})")


def zoo_layer_lines(path):
    """{layer's full name: its line} of a zoo file, its templates and {a..b} repetitions
    expanded: a block's layers are named BLOCK.NAME, those of [layers] NAME."""
    sections, current = [], None
    with open(path) as f:
        for line in f:
            line = line.split(";")[0].rstrip()
            m = re.match(r"\[(\w+)(?: (\S+))?\]$", line)
            if m:
                current = (m.group(1), m.group(2) or "", [])
                sections.append(current)
            elif current and "=" in line:
                key, value = (x.strip() for x in line.split("=", 1))
                current[2].append((key, value))
    templates = {name: body for kind, name, body in sections if kind == "template"}
    layers = {}
    for kind, name, body in sections:
        if kind not in ("block", "layers"):
            continue
        r = re.search(r"\{(\d+)\.\.(\d+)\}", name)
        names = [name[:r.start()] + str(i) + name[r.end():]
                 for i in range(int(r.group(1)), int(r.group(2)) + 1)] if r else [name]
        use = dict(body).get("use")
        lines = templates.get(use, []) if use else body
        for block in names:
            for key, value in lines:
                if key != "use":
                    layers[f"{block}.{key}" if kind == "block" else key] = value
    return layers


def check_zoo_inplace():
    """Every torchvision network of the zoo writes a layer in place (inplace=true) exactly where
    torchvision's module of that name does (module.inplace): what checkpointing and inference
    memory depend on (docs/memory.md). A module called several times names its calls NAME,
    NAME_1, NAME_2 (torch.fx's names, as the exporter writes them)."""
    import torchvision
    checked = 0
    for path in sorted(glob.glob("models/*.ini")):
        with open(path) as f:
            source = re.search(r"^source = torchvision\.models\.(\w+)$", f.read(), re.M)
        if not source:
            continue
        net = getattr(torchvision.models, source.group(1))()
        modules = dict(net.named_modules())
        for name, line in zoo_layer_lines(path).items():
            module = modules.get(name) or modules.get(re.sub(r"_\d+$", "", name))
            if module is None or not hasattr(module, "inplace"):
                continue
            declared = "inplace=true" in line.split()
            check(declared == bool(module.inplace),
                  f"{path}: {name} ({line.split()[0]}): inplace={declared} where torchvision's "
                  f"{type(module).__name__} has inplace={module.inplace}")
            checked += 1
    check(checked > 1000, f"the zoo's in-place flags: {checked} layers checked against modules")


def main():
    binary = os.path.abspath(sys.argv[1])
    spec = importlib.util.spec_from_file_location("export_torch", "tools/export_torch.py")
    exporter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exporter)
    keys = ("weights", "macs", "inputs", "outputs", "layers", "param_tensors", "flops")
    with tempfile.TemporaryDirectory() as tmp:
        if os.environ.get("SM_EXPORT_TEST_ONLY") == "audit":  # a quick run while editing
            check_audit_models(binary, exporter, tmp)
            check_command_line(exporter, tmp)
            print(f"{failures} failed")
            return 1 if failures else 0
        # resnet18 is written by hand; shufflenet (chunk, channel shuffle) and densenet121
        # (growing concatenations) were generated; all must match an export made now
        for model in ("resnet18", "shufflenet_v2_x1_0", "densenet121"):
            path = os.path.join(tmp, model + ".ini")
            rc, err = export(exporter, [model, "-o", path])
            check(rc == 0 and "warning" not in err, f"export {model} {err.strip()}")
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

        check_audit_models(binary, exporter, tmp)
        check_command_line(exporter, tmp)
        check_module_options(binary, exporter, tmp)
        check_ordinary_models(binary, exporter, tmp)
        check_interpreter_notice(tmp)
        check_transformers(binary, exporter, tmp)
        check_sequence_models(binary, exporter, tmp)
        check_zoo_inplace()

        # unsupported operations: non-zero exit, the node and the way out named
        for cls, needle in (("WithPixelUnshuffle", "PixelUnshuffle"), ("WithSine", "sin")):
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
