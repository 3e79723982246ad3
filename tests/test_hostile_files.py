#!/usr/bin/env python3
"""Hostile input files, the second campaign: each damaged file is refused in one line that
names the file and the line, with a non-zero exit, where it used to be read silently wrong
(a NUL byte cut a value short: memory_gib = 7<NUL>9.6 read as 7 GiB), crashed under UBSan,
or ran away (a block repetition up to 2^63 - 1 wrapped around).

usage: test_hostile_files.py SCALEMETER   (run from the source root)
"""
import csv as csv_module  # csv names a file below
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.dom.minidom

import cli_checks
from cli_checks import check, finish, flattened, run

tmp = tempfile.mkdtemp()


def write(name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def refused(args, path, line, phrase):
    """args refused in one line naming path:line (line None: the option) and the phrase."""
    rc, out, err = run(*args)
    where = f"{path}:{line}:" if line else ""
    lines = err.strip().splitlines()
    check(rc != 0 and len(lines) == 1 and where in lines[0] and phrase in lines[0],
          f"{' '.join(args)}: exit {rc}, want one line with '{where}' and '{phrase}': "
          f"{err.strip()}")


H100 = open("configs/devices/h100.ini").read()
NET = "[network]\nname = t\ninput = 3x8x8\n[layers]\na = conv2d out=4 kernel=1\n"

# a NUL byte, in every reader: device, framework, network, coefficients, runs CSV
dev = write("nul_device.ini", H100.replace("memory_gib = 79.6", "memory_gib = 7\0" "9.6"))
line = H100[:H100.index("memory_gib = 79.6")].count("\n") + 1
refused(["predict", "resnet50", "--device", dev, "--batch", "8"], dev, line, "NUL byte")
net = write("nul_net.ini", NET.replace("out=4", "out=6\0" "4"))
refused(["metrics", net], net, 5, "NUL byte")
fw = write("nul_fw.ini", "[framework]\nname = x\ndispatch_fwd_us = 3\0" "0\n")
refused(["predict", "resnet50", "--device", "h100", "--framework", fw, "--batch", "8"], fw, 3,
        "NUL byte")
cal = open("configs/calibrations/default.ini").read()
co = write("nul_coeffs.ini", cal.replace("\nc4_intercept = ", "\nc4_intercept = 0.0\0", 1))
line = cal[:cal.index("\nc4_intercept = ") + 1].count("\n") + 1
refused(["predict", "resnet50", "--coeffs", co, "--batch", "8"], co, line, "NUL byte")
rows = open("configs/calibrations/cpu-amd-epyc-1thread.csv").read().splitlines()
csv = write("nul_runs.csv", "\n".join([rows[0], rows[1].replace(",", ",\0", 1), rows[2]]) + "\n")
refused(["fit", csv], csv, 2, "NUL byte")

# lines ended by a carriage return alone read as one line: [network] then nothing
cr = write("cr.ini", NET.replace("\n", "\r"))
refused(["metrics", cr], cr, 1, "carriage return")
# a section name longer than inih keeps (49 characters) was cut short
long_name = write("long_section.ini", NET + "[block " + "b" * 50 + "]\nr = relu\n")
refused(["metrics", long_name], long_name, 6, "longer than 49 characters")
# an unterminated header: the syntax error, not a complaint about the keys after it
unterm = write("unterminated.ini", H100.replace("\n[node]\n", "\n[node\n"))
line = H100[:H100.index("\n[node]\n") + 1].count("\n") + 1
refused(["predict", "resnet50", "--device", unterm, "--batch", "8"], unterm, line,
        "syntax error")

# repetitions: up to 2^63 - 1 is two blocks; 200,000 names the limit
big = write("rep_top.ini", NET + "[block b{9223372036854775806..9223372036854775807}]\nr = relu\n")
rc, out, err = run("metrics", big, "--per-layer")
names = [l.split()[0] for l in out.splitlines() if l.startswith("b92")]
check(rc == 0 and names == ["b9223372036854775806.r", "b9223372036854775807.r"],
      f"two blocks at the top of the int64 range: exit {rc}: {err.strip()} {names}")
many = write("rep_many.ini", NET + "[block b{0..199999}]\nr = relu\n")
refused(["metrics", many], many, 6, "more than 100000 repetitions")
# beyond 2^63 - 1 (19 nines: the longest header inih keeps), refused rather than saturated
sat = write("rep_sat.ini", NET + "[block b{9999999999999999999..9999999999999999999}]\n"
            "r = relu\n")
refused(["metrics", sat], sat, 6, "repetition")

# keys and sections given twice in a network file: one would silently win
refused(["metrics", write("dup_input.ini", NET.replace("input = 3x8x8\n",
                                                       "input = 3x8x8\ninput = 3x16x16\n"))],
        os.path.join(tmp, "dup_input.ini"), 4, "input given twice in [network] (first at line 3)")
tmpl = "[template t]\nr = relu\n"
dup_t = write("dup_template.ini", NET + tmpl + "[template t]\nr = gelu\n[block b]\nuse = t\n")
refused(["metrics", dup_t], dup_t, 8, "[template t] given twice (first at line 6)")
dup_use = write("dup_use.ini", NET + tmpl + "[template u]\nr = gelu\n[block b]\nuse = t\nuse = u\n")
refused(["metrics", dup_use], dup_use, 12, "use given twice in [block b] (first at line 11)")

# what ran a calibration's rows (fit's [fit] backend, which sets the memory a calibration
# counts): a CPU row among GPU rows is refused; a key of [fit] given twice is refused; "CPU" is
# the CPU, a CPU's model name says nothing (it used to be taken for a GPU)
mixed = [rows[0]] + [r.replace(",cpu,1,fp32,", ",cuda,1,fp32,") if k % 2 else r
                     for k, r in enumerate(rows[1:])]
mixed_csv = write("mixed.csv", "\n".join(mixed) + "\n")
refused(["fit", mixed_csv], mixed_csv, 3, "a gpu row among cpu rows (line 2)")
dup_b = write("dup_backend.ini", cal.replace("backend = cpu\n", "backend = cpu\nbackend = gpu\n"))
line = cal[:cal.index("backend = cpu")].count("\n") + 2
refused(["predict", "resnet50", "--coeffs", dup_b, "--batch", "8"], dup_b, line,
        "backend given twice in [fit] (first at line")
# a phase's statistic given twice: the second won ("4200 points" in every header); a
# coefficient given twice, whose message did not say where the first was
first = cal.index("\npoints = ") + 1
dup_p = write("dup_points.ini", cal[:first] + "points = 4200\n" + cal[first:])
line = cal[:first].count("\n") + 2
refused(["predict", "resnet50", "--coeffs", dup_p, "--batch", "8"], dup_p, line,
        f"points given twice in [infer] (first at line {line - 1})")
first = cal.index("\nc1_flops = ") + 1
dup_c = write("dup_c1.ini", cal[:first] + "c1_flops = 1e-12\n" + cal[first:])
line = cal[:first].count("\n") + 2
refused(["predict", "resnet50", "--coeffs", dup_c, "--batch", "8"], dup_c, line,
        f"c1_flops given twice in [infer] (first at line {line - 1})")
for device, want in [("CPU", "backend = cpu"), ("AMD EPYC 7763", None)]:
    named = write("named.csv", "\n".join([rows[0]] + [r.replace(",cpu,1,fp32,", f",{device},1,fp32,")
                                                     for r in rows[1:]]) + "\n")
    out_ini = os.path.join(tmp, "named.ini")
    rc, out, err = run("fit", named, "-o", out_ini)
    got = [l.strip() for l in open(out_ini)] if rc == 0 else []
    check(rc == 0 and (want in got if want else not any(l.startswith("backend") for l in got)),
          f"device column {device}: want {want or 'no backend key'}: exit {rc} {err.strip()}")

# numbers out of any physical range: a time of 1e308 s made the fit's statistics inf and nan
huge = write("huge_time.csv", "\n".join([rows[0], rows[1]] + [r for r in rows[2:]]).replace(
    rows[1], rows[1].split(",")[0] + "," + ",".join(rows[1].split(",")[1:6]) + ",1e308," +
    ",".join(rows[1].split(",")[7:]), 1) + "\n")
refused(["fit", huge], huge, 2, "above 1e+06 s")
line = cal[:cal.index("\nc4_intercept = ") + 1].count("\n") + 1
intercept = cal[cal.index("\nc4_intercept = ") + 1:].split("\n")[0]
neg = write("negative.ini", cal.replace(intercept, "c4_intercept = -1", 1))
refused(["predict", "resnet50", "--coeffs", neg, "--batch", "8"], neg, line,
        "negative, where [fit] says nonneg = yes")
tiny = write("tiny.ini", cal.replace(intercept, "c4_intercept = 1e-320", 1))
rc, out, err = run("predict", "resnet50", "--coeffs", tiny, "--batch", "8")
check(rc == 0, f"a coefficient of 1e-320 (underflow, as good as 0) is read: {err.strip()}")
# one row: no R2 (nan) to print; CSV leaves it empty
one = write("one_row.csv", "\n".join(rows[:2]) + "\n")
rc, out, err = run("validate", one, "--coeffs", "default", "--format", "csv")
fields = {f for line in out.splitlines() for f in line.split(",")}
check(rc == 0 and not fields & {"nan", "-nan", "inf", "-inf"},
      f"validate of one row: unknown statistics empty in CSV: {out[:300]}")

# a framework file with no keys made every dispatch cost the bare launch (7.16 ms a step for
# resnet50 at batch 8 on an h100, against 20.6); a [device] key in it is named as one
for body in ["", "[framework]\n"]:
    empty = write("empty_framework.ini", body)
    refused(["predict", "resnet50", "--device", "h100", "--framework", empty, "--batch", "8"],
            empty, None, "no [framework] keys")
# nor a file of other keys alone: `name = x` or `optimizer = sgd` made a step of resnet50 at
# bf16 on an h100 0.026 s for eager's 0.048
for body in ["[framework]\nname = x\n", "[framework]\noptimizer = sgd\n"]:
    keyless = write("no_dispatch_framework.ini", body)
    refused(["predict", "resnet50", "--device", "h100", "--framework", keyless, "--batch", "64",
             "--precision", "bf16"], keyless, None, "no dispatch_infer_us, dispatch_fwd_us")
# an empty name named nothing: "coefficients:  (NVIDIA H100 ...)", "device  has no bf16 peak"
noname = write("empty_name.ini", H100.replace("name = h100", "name =", 1))
refused(["predict", "resnet50", "--device", noname, "--batch", "8"], noname, 5, "name is empty")
fw_noname = write("empty_name_framework.ini", "[framework]\nname =\ndispatch_fwd_us = 30\n")
refused(["predict", "resnet50", "--device", "h100", "--framework", fw_noname, "--batch", "8"],
        fw_noname, 2, "name is empty: give a short name, or leave the key out")
# a [framework] of eager PyTorch's dispatch costs without its name was labelled the bare
# kernel launch's; the label follows the costs
A100 = flattened("configs/devices/a100.ini")
check("name = pytorch-eager\n" in A100, "a100.ini's [framework] name, to leave out")
unnamed = write("unnamed_framework.ini", A100.replace("name = pytorch-eager\n", "", 1))
rc, out, err = run("predict", "resnet50", "--device", unnamed, "--batch", "8", "--format", "json")
label = json.loads(out)["coeffs"] if rc == 0 else err
check("kernel-launch" not in label and "the description's dispatch" in label,
      f"a [framework] with dispatch costs and no name: {label}")
# a framework file given for a description was refused for its first missing key,
# "[device] peak_fp32_tflops is missing", which did not say it is a framework file
for args in (["predict", "resnet50", "--batch", "8"], ["allreduce"]):
    refused(args + ["--device", "configs/frameworks/torchtitan.ini"], None, None,
            "configs/frameworks/torchtitan.ini: [framework] keys alone: a framework file, for "
            "predict's and curve's --framework")
fw_dev = write("framework_device_key.ini", "[framework]\nmemory_gib = 3\n")
refused(["predict", "resnet50", "--device", "h100", "--framework", fw_dev, "--batch", "8"], fw_dev,
        2, "memory_gib is a [device] key")

# --tokens past int64: refused without signed overflow (UBSan in CI's sanitizer build)
for tokens in ["9223372036854775808", "9999999999999999999"]:
    refused(["predict", "gpt2", "--device", "h100", "--batch", "8", "--tokens", tokens], None,
            None, "up to 1000P")

# a description written in Latin-1 (e-acute as the one byte 0xe9) made JSON that strict
# readers refuse: the byte is U+FFFD in the output, which parses
latin = write("latin1_device.ini", H100.encode().replace(b"SXM5 80 GB", b"SXM5 80 GB caf\xe9"))
rc, out, err = run("predict", "resnet50", "--device", latin, "--batch", "8", "--format", "json")
try:
    coeffs = json.loads(out)["coeffs"]
except ValueError as e:
    coeffs = f"not JSON: {e}"
check(rc == 0 and "caf\ufffd" in coeffs, f"a Latin-1 description in JSON: {coeffs} {err.strip()}")
# the SVG declares itself UTF-8 XML: the same Latin-1 byte, a control character and U+FFFF in
# its text made it not well-formed, and a browser showed an error in place of the chart; now
# each is U+FFFD, and the UTF-8 of u-umlaut (and the ampersand, escaped) stays as it is
odd = write("odd_device.ini", H100.encode().replace(
    b"SXM5 80 GB", b"SXM5 80 GB caf\xe9 f\xc3\xbcr \x01 \xef\xbf\xbf & co"))
svg = os.path.join(tmp, "odd.svg")
rc, out, err = run("curve", "resnet18", "--device", odd, "--batch", "8", "--nodes", "1:2",
                   "--format", "svg", "-o", svg)
try:
    texts = [t.firstChild.data for t in xml.dom.minidom.parse(svg).getElementsByTagName("text")
             if t.firstChild]
except Exception as e:  # the parser's own errors, whatever their class
    texts = [f"not well-formed XML: {e}"]
check(rc == 0 and any("caf\ufffd f\u00fcr \ufffd \ufffd & co" in t for t in texts),
      f"odd bytes of a description in the SVG: {texts[:2]} {err.strip()}")
# a hand-edited coefficient of 1e307 printed a step of 1e302 s and an epoch of inf; now
# refused, naming the file (the negative-time refusal names it too)
huge = write("huge.ini", "\n".join("c4_intercept = 1e307" if l.startswith("c4_intercept =")
                                   else l for l in cal.splitlines()) + "\n")
refused(["predict", "resnet50", "--coeffs", huge, "--batch", "8"], None, None,
        f"{huge} predicts t_infer = 1e+307 s")
# energies likewise: an idle power of 1e307 W gave a step of 4.7e305 J and an epoch of inf,
# printed as null and '-', as a phase not known (refused since for its file's line: a megawatt
# at most, as --idle-watts); 100 W gives 100 W x t_infer and more
idle = cal.replace("idle_watts = 0", "idle_watts = IDLE") + "\n[energy_infer]\n" + "\n".join(
    l for l in cal.split("\n[infer]\n")[1].split("\n[fwd]\n")[0].splitlines()
    if l.startswith("c")) + "\n"
huge_idle = write("idle.ini", idle.replace("IDLE", "1e307"))
refused(["predict", "resnet50", "--coeffs", huge_idle, "--batch", "8", "--format", "json"],
        huge_idle, next(i for i, l in enumerate(idle.splitlines(), 1) if "IDLE" in l),
        "idle_watts = 1e307: expected watts from 0 to 1000000")
rc, out, err = run("predict", "resnet50", "--coeffs", write("idle.ini", idle.replace("IDLE", "100")),
                   "--batch", "8", "--format", "json")
got = json.loads(out) if rc == 0 else {}
check(rc == 0 and got["e_infer_j"] > 100 * got["t_infer"] > 0,
      f"an idle power of 100 W: {got.get('e_infer_j')} J, {err.strip()}")
negative = write("negative_free.ini", "\n".join(
    "c4_intercept = -100" if l.startswith("c4_intercept =") else
    "nonneg = no" if l.startswith("nonneg =") else l for l in cal.splitlines()) + "\n")
refused(["predict", "resnet50", "--coeffs", negative, "--batch", "8"], None, None,
        f"{negative} predicts t_infer = -")
# a calibration beside a description that is not its device: the H100's fp32 fit puts
# resnet50's inference at batch 8 near 6 ms, 8 x 8.2 GFLOP (4.1 GMAC a sample, torchvision's
# figure) in 6 ms is about 11 TFLOP/s, above the cpu description's 5.89 TFLOP/s fp32 peak:
# printed as an mfu of 132% before; the H100's own description (66.9 TFLOP/s) takes it
for args in (["predict", "resnet50", "--batch", "8"],
             ["curve", "resnet50", "--batch", "8", "--nodes", "1:2"]):
    refused(args + ["--coeffs", "h100-pytorch-fp32", "--device", "cpu"], None, None,
            "above cpu's dense fp32 peak of 5.89 TFLOP/s (peak_fp32_tflops in")
rc, out, err = run("predict", "resnet50", "--batch", "8", "--coeffs", "h100-pytorch-fp32",
                   "--device", "h100", "-g", "1", "--format", "json")
check(rc == 0 and 0 < json.loads(out)["mfu"] < 1, f"the h100's fit beside h100: {err.strip()}")
# inih reads "key: value" as "key = value"; fit --device-out replaced only the '=' form, so a
# base description written with ':' came out with the fitted key twice, and was refused
check("compute_efficiency_tf32 = 0.7\n" in H100, "h100.ini's tf32 key, to write with ':'")
colon = write("colon_base.ini", H100.replace("compute_efficiency_tf32 = 0.7\n",
                                             "compute_efficiency_tf32: 0.7\n"))
fitted = os.path.join(tmp, "colon_fitted.ini")
rc, out, err = run("fit", "configs/calibrations/h100-pytorch-tf32.csv", "--device-base", colon,
                   "--device-out", fitted, "-o", os.path.join(tmp, "colon_coeffs.ini"))
keys = [l.split("=")[0].split(":")[0].strip() for l in open(fitted)] if rc == 0 else []
check(rc == 0 and keys.count("compute_efficiency_tf32") == 1,
      f"fit --device-out on a base with 'key: value': {keys.count('compute_efficiency_tf32')} "
      f"compute_efficiency_tf32 keys, {err.strip()[-200:]}")
rc, out, err = run("predict", "resnet50", "--device", fitted, "--batch", "8")
check(rc == 0, f"the description fitted from a ':' base is read: {err.strip()}")
# a base whose [device] comes in two parts (inih joins them): the fitted keys of the second part
# went in at the end of the first and again at their own lines, and the description written
# was refused ("compute_efficiency_tf32 given twice")
split = write("split_base.ini", H100.replace("compute_efficiency_tf32 = 0.7\n", "").replace(
    "\n[framework]\n", "\n[device]\ncompute_efficiency_tf32 = 0.7\n\n[framework]\n", 1))
fitted = os.path.join(tmp, "split_fitted.ini")
rc, out, err = run("fit", "configs/calibrations/h100-pytorch-tf32.csv", "--device-base", split,
                   "--device-out", fitted, "-o", os.path.join(tmp, "split_coeffs.ini"))
keys = [l.split("=")[0].strip() for l in open(fitted)] if rc == 0 else []
check(rc == 0 and keys.count("compute_efficiency_tf32") == 1,
      f"fit --device-out on a base of two [device] parts: "
      f"{keys.count('compute_efficiency_tf32')} compute_efficiency_tf32 keys, {err.strip()[-200:]}")
rc, out, err = run("predict", "resnet50", "--device", fitted, "--batch", "8")
check(rc == 0, f"the description fitted from a base of two [device] parts is read: {err.strip()}")
# a base in a folder of a long path: the header's comment naming it ran past the 198
# characters a line may have, and the description written was refused at line 3
deep = os.path.join(tmp, "d" * 80, "e" * 80)
os.makedirs(deep)
shutil.copy("configs/devices/h100.ini", deep)
fitted = os.path.join(tmp, "deep_fitted.ini")
rc, out, err = run("fit", "configs/calibrations/h100-pytorch-tf32.csv", "--device-base",
                   os.path.join(deep, "h100.ini"), "--device-out", fitted, "-o",
                   os.path.join(tmp, "deep_coeffs.ini"))
check(rc == 0 and max(len(l.rstrip("\n")) for l in open(fitted)) <= 198,
      f"fit --device-out from a base of a long path: lines within 198 characters: {err.strip()}")
rc, out, err = run("predict", "resnet50", "--device", fitted, "--batch", "8")
check(rc == 0, f"the description fitted from a base of a long path is read: {err.strip()}")
# a base whose last line has no newline: the fitted keys the base lacks were written onto it
# (`; enddispatch_update_us = 3.782`, a comment: the reloaded file took the default, t_grad 24%
# high); a base starting with a byte-order mark: the mark went in after the header, mid-file,
# and the description written was refused at its line. Both now read back with the key.
lacking = "".join(l for l in H100.splitlines(True) if not l.startswith("dispatch_update_us"))
device_part, rest = lacking.split("[framework]\n", 1)
framework_part, node_part = rest.split("[node]\n", 1)
for tag, text in (("no_newline", device_part + "[node]\n" + node_part + "[framework]\n" +
                   framework_part + "; end"),
                  ("bom", "\ufeff" + H100)):
    base = write(f"{tag}_base.ini", text.encode())
    fitted = os.path.join(tmp, f"{tag}_fitted.ini")
    rc, out, err = run("fit", "configs/calibrations/h100-pytorch-tf32.csv", "--device-base", base,
                       "--device-out", fitted, "-o", os.path.join(tmp, f"{tag}_coeffs.ini"))
    keys = [l.split("=")[0].strip() for l in open(fitted)] if rc == 0 else []
    check(rc == 0 and "dispatch_update_us" in keys,
          f"fit --device-out on a base ({tag}): its own line for dispatch_update_us: "
          f"{err.strip()[-200:]}")
    rc, out, err = run("predict", "resnet50", "--device", fitted, "--batch", "8")
    check(rc == 0, f"the description fitted from a base ({tag}) is read: {err.strip()}")
# a number too small for a normal double (1e-310 us) is in the key's range [0, 1e6]: it was
# refused as out of it (strtod's underflow flag), where 1e-300 was read
for tiny in ("1e-310", "1e-400"):
    sub = write("subnormal.ini", "".join(
        f"launch_overhead_us = {tiny}\n" if l.startswith("launch_overhead_us") else l
        for l in H100.splitlines(True)))
    rc, out, err = run("predict", "resnet18", "--device", sub, "--batch", "8")
    check(rc == 0, f"launch_overhead_us = {tiny}: {err.strip()}")
# a base without a description: the one written read ", keys fitted to ...", a clause of
# nothing; the base's name stands for it
bare = write("bare.ini", "".join(l for l in H100.splitlines(True)
                                 if not l.startswith("description")))
fitted = os.path.join(tmp, "bare_fitted.ini")
rc, out, err = run("fit", "configs/calibrations/h100-pytorch-tf32.csv", "--device-base", bare,
                   "--device-out", fitted, "-o", os.path.join(tmp, "bare_coeffs.ini"))
described = [l for l in open(fitted) if l.startswith("description")] if rc == 0 else []
check(described == ["description = h100, keys fitted to h100-pytorch-tf32.csv\n"],
      f"fit --device-out on a base without a description: {described} {err.strip()[-200:]}")
# fit --device-out on its own description, again and again, and on runs of a long path: the
# name took "-fitted" and the description ", keys fitted to PATH" once more each time, until
# the description's line ran past 198 characters (at the second fit) and was refused
shutil.copy("configs/calibrations/h100-pytorch-tf32.csv", deep)
base = "h100"
for i, runs in enumerate(["configs/calibrations/h100-pytorch-tf32.csv"] * 3 +
                         [os.path.join(deep, "h100-pytorch-tf32.csv")]):
    fitted = os.path.join(tmp, f"refit{i}.ini")
    rc, out, err = run("fit", runs, "--device-base", base, "--device-out", fitted, "-o",
                       os.path.join(tmp, "refit_coeffs.ini"))
    check(rc == 0, f"fit --device-out, round {i}: {err.strip()[-300:]}")
    base = fitted
rc, out, err = run("predict", "resnet50", "--device", base, "--batch", "8")
check(rc == 0 and "h100-fitted" in out and "-fitted-fitted" not in out,
      f"a description fitted four times is read, named h100-fitted: {err.strip()}")
check(os.path.exists(base) and open(base).read().count("keys fitted to") == 1,
      f"a description fitted four times says 'keys fitted to' once: {err.strip()}")
# a fit that fails on its rows names the CSV: too few, or linearly dependent
few = write("few.csv", "\n".join(rows[:3]) + "\n")
refused(["fit", few], None, None, f"{few}: phase infer: 2 points for 4 coefficients")
same = write("same.csv", "\n".join([rows[0]] + [rows[1]] * 6) + "\n")
rc, out, err = run("fit", same)
check(rc == 1 and f"{same}: phase infer: rank-deficient" in err.strip().splitlines()[-1],
      f"a rank-deficient fit names the CSV: {err.strip()}")
# counts past 64 bits name the model (curve: the model, the batch and the point)
refused(["predict", "resnet50", "--device", "h100", "--batch", "1048576", "--image", "65536"],
        None, None, "resnet50: layer conv1 (conv2d, line 10): counts at batch 1048576 overflow 64 bits")
refused(["curve", "vgg16,resnet50", "--device", "h100", "--batch", "8,1048576", "--nodes", "1",
         "--image", "65536"], None, None, "vgg16 at batch 1048576: 1 node x 8 devices: layer")
# and metrics names it too: "scalemeter metrics: layer conv1: counts ..." named no network
for extra in ([], ["--per-layer"], ["--per-block", "--format", "json"]):
    refused(["metrics", "resnet50", "--batch", "1048576", "--image", "65536", *extra], None, None,
            "scalemeter metrics: resnet50: layer conv1 (conv2d, line 10): counts at batch 1048576 overflow 64 bits")
# each layer's counts in range, their totals not: the network was named twice ("scalemeter
# metrics: resnet50: resnet50: totals ...") and without the way out the layers' message gives
for extra in ([], ["--per-block", "--format", "json"]):
    rc, out, err = run("metrics", "resnet50", "--batch", "1000000000", *extra)
    # ... and the layer where the sums pass 64 bits, its type and line (the hostile round of
    # 2026-11-26: a plugin's huge counts were named by nothing)
    check(rc == 1 and out == "" and err.startswith("scalemeter metrics: resnet50: totals at batch "
          "1000000000 overflow 64 bits at layer layer") and " (conv2d, line " in err and
          err.endswith(") (a smaller batch or input keeps them in range)\n") and
          err.count("\n") == 1,
          f"metrics resnet50 --batch 1000000000 {' '.join(extra)}: exit {rc}, {err!r}")
# --- the fourth campaign ---
# A runs CSV row with a field too many (a decimal comma: t_step "1,23909" read as 1 s) or too
# few (cut short, its precision column lost: a bf16 row read as fp32) is refused at its line.
comma = write("comma.csv", "\n".join([rows[0], rows[1], rows[2] + ",5"] + rows[3:8]) + "\n")
refused(["fit", comma], comma, 3, "fields where the header has")
refused(["validate", comma, "--coeffs", "default"], comma, 3, "fields where the header has")
short = write("short.csv", "\n".join([rows[0], rows[1], rows[2].rsplit(",", 1)[0]] + rows[3:8])
              + "\n")
refused(["fit", short], short, 3, "fields where the header has")
# two of an optional column: which one a row means is a guess (the last one won)
dup_col = write("dup_col.csv", "\n".join([rows[0] + ",precision,precision"] +
                                         [r + ",fp32,bf16" for r in rows[1:8]]) + "\n")
refused(["fit", dup_col], dup_col, 1, "column precision appears twice")
# a file with no newline at all (/dev/zero, a binary file) grew getline's buffer without end
for args in (["fit", "/dev/zero"], ["validate", "/dev/zero", "--coeffs", "default"],
             ["fit-comm", "/dev/zero"]):
    refused(args, "/dev/zero", 1, "a line longer than 1 MiB")
# a misspelt [fit] key was a note for people: a bf16 calibration read as fp32, without a word
bf16 = open("configs/calibrations/h100-pytorch-bf16.ini").read()
typo = write("typo.ini", bf16.replace("\nprecision = bf16\n", "\nprecison = bf16\n"))
line = bf16[:bf16.index("\nprecision = bf16\n") + 1].count("\n") + 1
refused(["predict", "resnet50", "--coeffs", typo, "--batch", "32"], typo, line,
        "unknown key 'precison' in [fit]")
# a layer's HxW pair cut at 63 characters: kernel=000...0013x5 read as 13x13
pair = write("pair.ini", NET.replace("kernel=1", "kernel=" + "0" * 61 + "13x5"))
refused(["metrics", pair], pair, 5, "is too long for an integer or HxW pair")
# An output naming an input replaced it: fit's coefficients over the measurements, validate's
# report over them; the input is refused as an output, under any name, and left as it was.
runs = write("runs.csv", "\n".join(rows) + "\n")
before = open(runs).read()
link = os.path.join(tmp, "link.csv")
os.symlink(runs, link)
for args, phrase in ((["fit", runs, "-o", runs], "-o " + runs + " is the input"),
                     (["fit", link, "-o", runs], "is the input " + link),
                     (["fit", runs, "--device-out", runs], "--device-out " + runs),
                     (["validate", runs, "--coeffs", "default", "-o", runs], "is the input"),
                     (["fit", runs, "-o", os.path.join(tmp, "c.ini"), "--device-out",
                       os.path.join(tmp, "c.ini")], "both name")):
    refused(args, None, None, phrase)
check(open(runs).read() == before, "the refused outputs left the measurements as they were")
# So do the other commands' -o, whatever the input is: `metrics net.ini -o net.ini` put the
# table in place of the network, predict and curve replaced their device, framework or
# calibration, allreduce its device.
net = write("net.ini", NET)
dev = write("dev.ini", H100)
fw = write("fw.ini", open("configs/frameworks/pytorch-eager.ini").read())
co = write("co.ini", cal)
kept = {p: open(p).read() for p in (net, dev, fw, co)}
curve = ["curve", net, "--nodes", "1:2", "--batch", "8"]
for args, input_ in ((["metrics", net, "-o", net], net),
                     (["predict", net, "--device", dev, "--batch", "8", "-o", dev], dev),
                     (["predict", net, "--coeffs", co, "--batch", "8", "-o", co], co),
                     (["predict", net, "--coeffs", co, "--batch", "8", "-o", net], net),
                     (curve + ["--device", dev, "-o", os.path.join(tmp, ".", "dev.ini")], dev),
                     (curve + ["--device", "h100", "--framework", fw, "-o", fw], fw),
                     (["curve", "resnet18," + net, "--device", dev, "--nodes", "1:2", "--batch",
                       "8", "-o", net], net),
                     (["allreduce", "--device", dev, "-o", dev], dev)):
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    check(rc == 2 and len(lines) == 1 and lines[0].endswith(
        f"is the input {input_}: writing it would replace what is read; name another file"),
        f"{' '.join(args)}: exit {rc}, want exit 2 and '... is the input {input_}': {err}")
check(all(open(p).read() == text for p, text in kept.items()),
      "the refused outputs left the network, device, framework and calibration as they were")
# -o FILE is put in place only when the command succeeds: allreduce emptied it before checking
# its options, and every command's failure left it cut short
kept = write("kept.csv", "precious\n")
for args in (["allreduce", "--device", "nosuch", "-o", kept],
             ["predict", "resnet50", "--device", "nosuch", "--batch", "8", "-o", kept],
             ["curve", "resnet50", "--device", "nosuch", "--batch", "8", "-o", kept]):
    rc, out, err = run(*args)
    check(rc != 0 and open(kept).read() == "precious\n", f"{args}: exit {rc}, {kept} changed")
check(sorted(os.listdir(tmp)).count("kept.csv") == 1 and
      not [n for n in os.listdir(tmp) if n.startswith("kept.csv.tmp")],
      f"no temporary left beside kept.csv: {os.listdir(tmp)}")
# -o through a symbolic link writes the link's target and keeps the link, as a shell's > does:
# the temporary was renamed over the link, which became a file and left its target as it was.
# A relative link is read from its own folder, and a dangling one creates its target; fit's
# coefficients go the same way (sm_atomic_commit).
os.makedirs(os.path.join(tmp, "links"))
target = write("links/target.json", "old\n")
for name, points_to in (("abs", target), ("rel", "target.json")):
    lnk = os.path.join(tmp, "links", name)
    os.symlink(points_to, lnk)
    rc, out, err = run("devices", "--format", "json", "-o", lnk)
    check(rc == 0 and os.path.islink(lnk) and os.readlink(lnk) == points_to and
          json.load(open(target))["devices"],
          f"-o {name} link: exit {rc}, still a link {os.path.islink(lnk)}, {err.strip()}")
    write("links/target.json", "old\n")
dangling = os.path.join(tmp, "links", "dangling")
os.symlink("made.ini", dangling)
rc, out, err = run("fit", runs, "-o", dangling)
check(rc == 0 and os.path.islink(dangling) and
      "[fit]" in open(os.path.join(tmp, "links", "made.ini")).read(),
      f"fit -o a dangling link: exit {rc}, still a link {os.path.islink(dangling)}, "
      f"{err.strip()}")
check(not [n for n in os.listdir(os.path.join(tmp, "links")) if ".tmp." in n],
      f"no temporary left beside the links' targets: {os.listdir(os.path.join(tmp, 'links'))}")
loop = os.path.join(tmp, "links", "loop")
os.symlink("loop", loop)
refused(["devices", "-o", loop], None, None, "cannot write " + loop + ": Too many levels")
# -o FILE keeps an existing file's permission bits, as a shell's > does: the file renamed over
# it was 0666 less the umask, so a 0600 file (and a link's 0600 target) became 0644, readable
# by all. fit's coefficients go through the same writer.
for name, mode in (("private.json", 0o600), ("group.json", 0o640), ("readonly.json", 0o444)):
    kept_mode = write(name, "old\n")
    os.chmod(kept_mode, mode)
    rc, out, err = run("devices", "--format", "json", "-o", kept_mode)
    got = os.stat(kept_mode).st_mode & 0o777
    check(rc == 0 and got == mode and json.load(open(kept_mode))["devices"],
          f"-o a {mode:o} file as root: exit {rc}, mode {got:o}, {err.strip()}")
os.chmod(target, 0o600)
rc, out, err = run("devices", "--format", "json", "-o", os.path.join(tmp, "links", "abs"))
check(rc == 0 and os.stat(target).st_mode & 0o777 == 0o600 and
      os.path.islink(os.path.join(tmp, "links", "abs")),
      f"-o a link to a 0600 file: exit {rc}, target mode "
      f"{os.stat(target).st_mode & 0o777:o}, {err.strip()}")
rc, out, err = run("fit", runs, "-o", os.path.join(tmp, "private.json"))
check(rc == 0 and os.stat(os.path.join(tmp, "private.json")).st_mode & 0o777 == 0o600,
      f"fit -o a 0600 file: exit {rc}, {err.strip()}")
# A file the user may not write was replaced all the same (renaming over it asks only the
# folder's permission): refused in one line, and left as it was. Root writes anything, so this
# runs as nobody, where setpriv can switch to it (and nobody can reach the binary).
nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
try:
    can_switch = subprocess.run(nobody + [cli_checks.SM, "help"],
                                capture_output=True).returncode == 0
except OSError:
    can_switch = False
if not can_switch:
    print("note: setpriv cannot run the binary as uid 65534 here; the refusal of a file the "
          "user may not write is not checked", file=sys.stderr)
else:
    os.chmod(tmp, 0o755)  # mkdtemp's 0700 let nobody reach neither the file nor the runs
    shared = os.path.join(tmp, "shared")
    os.makedirs(shared)
    os.chmod(shared, 0o1777)  # nobody may create the temporary beside the file
    theirs = os.path.join(shared, "theirs.csv")
    with open(theirs, "w") as f:
        f.write("precious\n")
    for mode, owner in ((0o444, 65534), (0o644, 0)):  # nobody's read-only file; root's file
        os.chmod(theirs, mode)
        os.chown(theirs, owner, -1)
        for args in (["devices", "-o", theirs], ["fit", runs, "-o", theirs]):
            p = subprocess.run(nobody + [cli_checks.SM, *args], capture_output=True, text=True)
            lines = p.stderr.strip().splitlines()
            # fit says the weight term's choice before it writes: the error is its last line
            check(p.returncode == 1 and lines and len(lines) == (1 if args[0] != "fit" else 2)
                  and lines[-1].endswith(f"{theirs}: not writable (Permission denied)") and
                  open(theirs).read() == "precious\n" and len(os.listdir(shared)) == 1,
                  f"{args} as nobody over a {mode:o} file of uid {owner}: exit {p.returncode}, "
                  f"{p.stderr.strip()}, {os.listdir(shared)}")
rc, out, err = run("predict", "resnet50", "--device", "h100", "--batch", "8", "-o", "/dev/full")
check(rc == 1 and "No space left on device" in err, f"-o /dev/full: exit {rc}, {err.strip()}")
# --- the fifth campaign: what the file readers say ---
# A key before any [section] header named line 0 and "unknown section []": the real line now,
# and where the key belongs; in a network, a device description, a framework file and a
# coefficient file alike.
top = write("top_key.ini", "; a comment\n\nname = t\n" + NET)
refused(["metrics", top], top, 3, "name comes before any [section] header: move it under [network]")
top_dev = write("top_key_device.ini", "memory_gib = 80\n" + H100)
refused(["predict", "resnet50", "--device", top_dev, "--batch", "8"], top_dev, 1,
        "before any [section] header): give it under [device]")
top_fw = write("top_key_framework.ini", "dispatch_fwd_us = 3\n[framework]\ndispatch_bwd_us = 3\n")
refused(["predict", "resnet50", "--device", "h100", "--framework", top_fw, "--batch", "8"], top_fw,
        1, "give it under [framework]")
top_co = write("top_key_coeffs.ini", "c4_intercept = 1\n" + cal)
refused(["predict", "resnet50", "--coeffs", top_co, "--batch", "8"], top_co, 1,
        "c4_intercept comes before any [section] header")
# An empty [template] (a header with nothing, or only comments, under it) was "not in this
# file"; an empty [block] made a block of no layers, silently.
for body in ["", "; to do\n\n"]:
    empty_t = write("empty_template.ini", NET + "[template t]\n" + body + "[block b]\nuse = t\n")
    header_line = 7 + body.count("\n")
    refused(["metrics", empty_t], empty_t, header_line, "[block b]: [template t] (line 6) is empty")
empty_b = write("empty_block.ini", NET + "[block b]\n[layers]\nc = relu\n")
refused(["metrics", empty_b], empty_b, 6, "[block b] has no layers")
# An indented line in a device description (or a coefficient file) continues the key before
# it, to inih: memory_gib indented under launch_overhead_us read as "launch_overhead_us given
# twice". Values there are one line: the indented line is named as such.
lines = H100.splitlines()
at = next(i for i, l in enumerate(lines) if l.startswith("memory_gib"))
key_at = max(i for i in range(at) if lines[i] and lines[i][0].isalpha())
key = lines[key_at].split("=")[0].strip()
lines[at] = "  " + lines[at]
indented = write("indented_device.ini", "\n".join(lines) + "\n")
rc, out, err = run("predict", "resnet50", "--device", indented, "--batch", "8")
check(rc != 0 and len(err.strip().splitlines()) == 1 and f"{indented}:{at + 1}:" in err and
      f"continues the value of the key before it ({key}, line {key_at + 1})" in err and
      "remove the indentation" in err and "given twice" not in err,
      f"an indented line of a description: exit {rc}: {err.strip()}")
co_lines = cal.splitlines()
c_at = next(i for i, l in enumerate(co_lines) if l.startswith("c4_intercept"))
co_lines[c_at] = "\t" + co_lines[c_at]
refused(["predict", "resnet50", "--coeffs", write("indented.ini", "\n".join(co_lines) + "\n"),
         "--batch", "8"], os.path.join(tmp, "indented.ini"), c_at + 1, "remove the indentation")
# The hint that an indented line continues a layer only where one does; a line too long for a
# description is not told to continue on an indented line, which descriptions do not take.
stray = write("stray.ini", NET.replace("kernel=1", "kernel=1 stray"))
rc, out, err = run("metrics", stray)
check(rc != 0 and f"{stray}:5: layer a: expected key=value, got 'stray'" in err and
      "indent" not in err and "whitespace" not in err and "continu" not in err,
      f"no continuation hint on a line that continues nothing: {err.strip()}")
cont = write("continued.ini", NET + "  b = relu\n")
refused(["metrics", cont], cont, 5,
        "expected key=value, got 'b' (the indented line 6 continues this layer)")
cont2 = write("continued2.ini", NET + "  b = relu\n  c = relu\n")
refused(["metrics", cont2], cont2, 5, "(the indented lines 6-7 continue this layer)")
# A layer continued over 200,000 lines is read (the value was copied whole with each line:
# lines x bytes, 26 s for 40,000) and refused at its line, every line that continues it named;
# a value continued over lines is the lines joined by spaces (3x3, padded: 4x8x8).
CONT = 200000
many = write("continued_many.ini", NET + "".join(f"  p{i}=1\n" for i in range(CONT)))
refused(["metrics", many], many, 5,
        f"unknown parameter p0 (it takes out, kernel, stride, padding, dilation, groups, bias)")
rc, out, err = run("metrics", write("continued_ok.ini", NET.replace("kernel=1", "kernel=3") +
                                    "  padding=1\n  bias=false\n"), "--per-layer", "--format", "json")
layers = json.loads(out).get("per_layer", [{}]) if rc == 0 else [{}]
check(rc == 0 and layers[0].get("output") == [4, 8, 8] and layers[0].get("weights") == 108,
      f"a layer continued over two lines: {rc} {layers[:1]} {err.strip()}")
long_dev = write("long_device.ini", H100.replace("\nname = h100\n", "\nname = h100 ; " + "x" * 200
                                                 + "\n"))
line = H100[:H100.index("\nname = h100\n") + 1].count("\n") + 1
rc, out, err = run("predict", "resnet50", "--device", long_dev, "--batch", "8")
check(rc != 0 and f"{long_dev}:{line}: line longer than 198 characters" in err and
      "indented" not in err, f"a long line of a description: {err.strip()}")
refused(["metrics", write("long_net.ini", NET.replace("kernel=1", "kernel=1 ; " + "x" * 200))],
        os.path.join(tmp, "long_net.ini"), 5, "continue it on an indented next line")
# Keys given twice are found by sorting now (80,000 layers of one [block] took seconds): the
# first repetition in the file is the one named, with the first of its key, as before.
dup_b = write("dup_block.ini", NET + "[block x]\na = relu\nb = relu\nc = relu\nb = gelu\n"
              "a = gelu\n")
refused(["metrics", dup_b], dup_b, 10, "b given twice in [block x] (first at line 8)")
dup_t3 = write("dup_template3.ini", NET + tmpl + tmpl + tmpl + "[block b]\nuse = t\n")
refused(["metrics", dup_t3], dup_t3, 8, "[template t] given twice (first at line 6)")
# A runs CSV of CR-only line ends read as one line ("a header but no measurements"); two CSVs
# concatenated read the second header as a row ("image 'image' is not an integer", or, with a
# status column, a row not measured, silently).
cr_csv = write("cr.csv", "\r".join(rows[:8]) + "\r")
refused(["fit", cr_csv], cr_csv, 1, "carriage return alone")
refused(["validate", cr_csv, "--coeffs", "default"], cr_csv, 1, "convert them to LF")
twice = write("twice.csv", "\n".join(rows[:8] + rows[:8]) + "\n")
refused(["fit", twice], twice, 9, "header repeated at line 9 (files concatenated?)")
status_rows = open("tests/data/scaling/cpu-16-ranks-1-to-4.csv").read().splitlines()
check(status_rows[0].endswith(",status"), "the scaling CSV has a status column")
twice_status = write("twice_status.csv", "\n".join(status_rows + status_rows) + "\n")
refused(["fit", twice_status], twice_status, len(status_rows) + 1,
        f"header repeated at line {len(status_rows) + 1} (files concatenated?)")
# fit-comm told nccl-tests output from `scalemeter allreduce --format csv` by the first byte: a
# CSV after a blank line or a comment was read as nccl-tests ("no data rows"); a file of
# neither kind now says which formats it reads.
ar = ("bytes,impl,ranks,nodes,time_s\n1048576,nccl,8,1,1.0e-4\n2097152,nccl,8,1,1.8e-4\n"
      "4194304,nccl,8,1,3.4e-4\n")
rc, want, err = run("fit-comm", write("ar.csv", ar), "--format", "csv")
check(rc == 0, f"fit-comm on a plain CSV: {err.strip()}")
for name, text in (("ar_blank.csv", "\n" + ar), ("ar_comment.csv", "# 8 ranks, one node\n" + ar),
                   ("ar_both.csv", "\n# 8 ranks\n\n" + ar)):
    rc, out, err = run("fit-comm", write(name, text), "--format", "csv")
    check(rc == 0 and out == want, f"fit-comm {name}: exit {rc}: {err.strip()}")
neither = write("neither.csv", "size,seconds\n1048576,1e-4\n")
refused(["fit-comm", neither], neither, 1, "not a format fit-comm reads")
rc, out, err = run("fit-comm", neither)
check("all_reduce_perf" in err and "allreduce --format csv" in err,
      f"the formats fit-comm reads are named: {err.strip()}")
ar_cr = write("ar_cr.csv", ar.replace("\n", "\r"))
refused(["fit-comm", ar_cr], ar_cr, 1, "carriage return alone")
# fit-comm's summary with --min-bytes 0 said "of at least 0 bytes"; its "wrote FILE" lacked
# the "scalemeter fit-comm: " the other commands put before theirs.
rc, out, err = run("fit-comm", os.path.join(tmp, "ar.csv"), "--min-bytes", "0")
check(rc == 0 and "3 samples of every size from 1 file" in out and "at least 0" not in out,
      f"fit-comm --min-bytes 0: {out.strip()} {err.strip()}")
fitted = os.path.join(tmp, "fitted.ini")
rc, out, err = run("fit-comm", os.path.join(tmp, "ar.csv"), "--device-out", fitted)
check(rc == 0 and err.strip() == f"scalemeter fit-comm: wrote {fitted}",
      f"fit-comm --device-out says so as the other commands do: {err.strip()}")
# Too few sizes: "0 intra-node samples of at least N bytes and none" said two things at once.
rc, out, err = run("fit-comm", os.path.join(tmp, "ar.csv"), "--min-bytes", "8M")
check(rc != 0 and "no intra-node samples of 8388608 bytes or more" in err and
      "a smaller --min-bytes" in err, f"fit-comm --min-bytes past every size: {err.strip()}")
one = write("ar_one.csv", "bytes,impl,ranks,nodes,time_s\n1048576,nccl,8,1,1.0e-4\n"
            "1048576,nccl,8,1,1.1e-4\n")
rc, out, err = run("fit-comm", one)
check(rc != 0 and "2 intra-node samples of 1048576 bytes or more, all of one size (1048576 bytes)"
      in err, f"fit-comm on one size: {err.strip()}")
# --- the sixth campaign ---
# A time below a nanosecond: t_step = 1e-300 s, weighted by 1 / t, took fit's leave-one-model-out
# MAPE to 1.7e299 (printed in 300 digits) and put the weight term in on it; validate compared
# against it. In fit-comm it made "rank-deficient system: ... measure more models".
fields = rows[1].split(",")
fields[rows[0].split(",").index("t_step")] = "1e-300"
short_time = write("short_time.csv", "\n".join(rows[:8] + [",".join(fields)]) + "\n")
refused(["fit", short_time], short_time, 9, "t_step 1e-300 s is below 1e-09 s")
refused(["validate", short_time, "--coeffs", "default"], short_time, 9,
        "t_step 1e-300 s is below 1e-09 s")
nccl = open("fuzz/seeds/comm/nccl-tests-2x2.txt").read()
fast = write("fast_nccl.txt", nccl.replace("   202.70   20.69", "   1e-300   20.69", 1))
line = nccl[:nccl.index("   202.70   20.69")].count("\n") + 1
refused(["fit-comm", fast], fast, line, "a time of 1e-300 us is below 1e-09 s")
ar_rows = ["bytes,impl,ranks,nodes,time_s,algbw_gb_s,busbw_gb_s,algorithm,protocol,op"] + [
    f"{b},model,8,1,{t},0,0,ring,Simple,all_reduce" for b, t in
    ((1048576, 2.2e-5), (2097152, 3.1e-5), (4194304, 1e-300), (8388608, 8.5e-5))]
fast = write("fast_allreduce.csv", "\n".join(ar_rows) + "\n")
refused(["fit-comm", fast], fast, 4, "time_s 1e-300 is below 1e-09 s")
# An energy no device draws over its time: energy_j = 1e308 J a step wrote rmse = inf and
# r2 = -nan into the coefficient file, with exit 0; 1e-300 J failed as "energy of step: term 1 of
# point 1 is not finite", naming neither file nor line. The bound is a device's average power.
energy_rows = ["model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,energy_j,"
               "energy_infer_j"] + [f"{m},32,{b},1,1,0.01,0.02,0.03,0.001,0.05,{e},4"
                                    for m in ("resnet18", "vgg11", "alexnet")
                                    for b, e in ((1, 20), (2, 30))]
for e, watts in (("1e308", "inf W"), ("1e-300", "2e-299 W")):
    bad = energy_rows[:4] + [energy_rows[4].replace(",30,4", f",{e},4")] + energy_rows[5:]
    path = write(f"energy_{e}.csv", "\n".join(bad) + "\n")
    refused(["fit", path], path, 5, f"energy_j {float(e):g} J over a step of 0.05 s on 1 device "
            f"is {watts} a device: expected 0.001 to 100000 W")
# 2 devices of 0.01 s and 3000 J: 150 kW each, whatever the 2-device row's other fields
two = energy_rows[:2] + [energy_rows[2].replace(",1,1,", ",1,2,")[:-1] + "3000"] + energy_rows[3:]
path = write("energy_infer.csv", "\n".join(two) + "\n")
refused(["fit", path], path, 3, "energy_infer_j 3000 J over an inference pass of 0.01 s on 2 "
        "devices is 150000 W a device")
# A calibrated range upside down in a hand-edited coefficient file was read: batch 80 warned of
# "a batch beyond the calibrated range (100 to 64)".
h100_cal = open("configs/calibrations/h100-pytorch-fp32.ini").read()
for key, low in (("batch", "8"), ("image", "64")):
    upside = write(f"upside_{key}.ini", h100_cal.replace(f"\n{key}_min = {low}\n",
                                                         f"\n{key}_min = 500\n"))
    line = h100_cal[:h100_cal.index(f"\n{key}_max = ") + 1].count("\n") + 1
    refused(["predict", "resnet18", "--coeffs", upside, "--batch", "80"], upside, line,
            f"{key}_max = {64 if key == 'batch' else 224} is below {key}_min = 500")
# Two blocks of one name were two rows of one name in --per-block, neither saying which is which:
# [block b] written twice, a [layers] layer named as a block, a repetition beside a block it makes.
for body, name, line, first in (("[block b]\nr = relu\n[block b]\ns = relu\n", "b", 8, 6),
                                ("[block a]\nr = relu\n", "a", 6, 5),
                                ("[block c.{0..2}]\nr = relu\n[block c.1]\ns = relu\n", "c.1", 8,
                                 6)):
    twice = write("block_twice.ini", NET + body)
    refused(["metrics", twice, "--per-block"], twice, line,
            f"block {name} is named twice (first at line {first})")
# A space inside the brackets was part of the name: [block b1 ] beside [block b1] printed two
# rows named b1 in --per-block, and [template  t1] was no template that use = t1 finds ("no
# [template t1] in this file").
for body, line, header, fix in (
        ("[block b1]\nr = relu\n[block b1 ]\nr = relu\n", 8, "[block b1 ]", "[block b1]"),
        ("[template  t1]\na = relu\n[block b1]\nuse = t1\n", 6, "[template  t1]",
         "[template t1]"),
        # the tab quoted as C writes it: a control byte in a message is escaped
        ("[block \tb2]\nr = relu\n", 6, "[block \\tb2]", "[block b2]")):
    spaced = write("spaced_name.ini", NET + body)
    refused(["metrics", spaced, "--per-block"], spaced, line,
            f"{header}: a space before or after the name would be part of it; write {fix}")
# Rows none of which says ok (another tool's "OK", "done") were "a header but no measurements"
# of a file of 117 rows; now the rows and the status are named.
status_rows = open("configs/calibrations/h100-scalemeter-fp32.csv").read().splitlines()
for status in ("OK", "done"):
    path = write(f"status_{status}.csv", "\n".join(
        [status_rows[0]] + [r.replace(",ok,", f",{status},") for r in status_rows[1:6]]) + "\n")
    for args in (["fit", path], ["validate", path, "--coeffs", "default"]):
        refused(args, path, None, f"no measurement: none of its 5 rows was measured (line 2: "
                f"status '{status}'")
# A UTF-8 byte-order mark before an allreduce CSV's header (a spreadsheet's "CSV UTF-8"), read
# past by fit and validate, made fit-comm say "not a format fit-comm reads".
bom_rows = ["bytes,impl,ranks,nodes,time_s,algbw_gb_s,busbw_gb_s,algorithm,protocol,op"] + [
    f"{b},model,8,1,{t},0,0,ring,Simple,all_reduce" for b, t in
    ((1048576, 2.2e-5), (2097152, 3.1e-5), (4194304, 4.9e-5), (8388608, 8.5e-5))]
plain = write("plain_allreduce.csv", "\n".join(bom_rows) + "\n")
bom = write("bom_allreduce.csv", b"\xef\xbb\xbf" + ("\n".join(bom_rows) + "\n").encode())
rc_plain, out_plain, err_plain = run("fit-comm", plain, "--format", "json")
rc, out, err = run("fit-comm", bom, "--format", "json")
check(rc == 0 and rc_plain == 0 and out.replace(bom, plain) == out_plain,
      f"fit-comm reads past a byte-order mark as without it: exit {rc}: {err.strip()}")
# A file of one kind given for another said "unknown section [device] (expected fit, ...)"; now
# it says what kind of file the section begins.
dev_file, cal_file, net_file = ("configs/devices/h100.ini", "configs/calibrations/default.ini",
                                "models/resnet18.ini")
for args, path, section, kind, own in (
        (["predict", "resnet18", "--batch", "8", "--coeffs", dev_file], dev_file, "device",
         "a device description", "a coefficient file"),
        (["predict", "resnet18", "--batch", "8", "--device", cal_file], cal_file, "fit",
         "a coefficient file", "a device description"),
        (["predict", "resnet18", "--batch", "8", "--device", net_file], net_file, "network",
         "a network file", "a device description"),
        (["metrics", cal_file], cal_file, "fit", "a coefficient file", "a network file")):
    lines = open(path).read().split("\n")
    header = lines.index(f"[{section}]") + 1
    # the network reader names the header; the INI readers of keys, the first key under it
    line = header if args[0] == "metrics" else next(
        n for n in range(header + 1, len(lines) + 1) if "=" in lines[n - 1])
    refused(args, path, line, f"unknown section [{section}]")
    refused(args, path, line, f"([{section}] begins {kind}, not {own})")
# --image on a C x D x H x W network (a video's, conv3d's) set C, not H and W: 3x16x112x112 at
# --image 56 was 56x16x112x112 (weights 96,832, 18x the FLOPs), and its image column said 3.
# By hand at 3x16x56x56: conv3d out=64 kernel=3 padding=1 keeps 16x56x56 and makes
# 64 x (16 x 56 x 56) x (3 x 27) = 260,112,384 MACs of 64 x 81 + 64 = 5,248 weights.
video = write("video.ini", "[network]\nname = video\ninput = 3x16x112x112\n[layers]\n"
              "c = conv3d out=64 kernel=3 padding=1\n")
rc, out, err = run("metrics", video, "--image", "56", "--format", "json")
m = json.loads(out) if rc == 0 else {}
check(m.get("input") == [3, 16, 56, 56] and m.get("macs") == 260112384 and
      m.get("weights") == 5248, f"metrics --image 56 of C x D x H x W: {err.strip()} {out[:300]}")
for image, args in ((112, []), (56, ["--image", "56"])):
    rc, out, err = run("predict", video, "--device", "h100", "--batch", "2", "--format", "json",
                       *args)
    got = json.loads(out).get("image") if rc == 0 else None
    check(got == image, f"predict {' '.join(args)}: image {got}, expected {image}: {err.strip()}")
# curve's and predict's CSV, which fit reads back: a point predicted not to fit the device (fits
# false, bench's status oom) was fitted as a step that ran. At batch 4096 none of the three fits
# an H100's 80 GB; the fit takes the other 9 rows.
rc, out, err = run("curve", "resnet18,resnet50,vgg11", "--device", "h100", "-g", "1", "--batch",
                   "8,16,32,4096", "--nodes", "1", "--format", "csv")
curve_csv = write("curve_points.csv", out)
fits = [r.split(",")[out.splitlines()[0].split(",").index("fits")] for r in out.splitlines()[1:]]
check(rc == 0 and fits.count("false") == 3 and fits.count("true") == 9,
      f"curve at batch 4096: {fits} {err.strip()}")
rc, out, err = run("fit", curve_csv, "--format", "json")
check(rc == 0 and json.loads(out)["rows"] == 9 and
      "3 rows not measured (status other than ok, such as oom, or fits false)" in err,
      f"fit of curve's CSV: exit {rc}: {err.strip()} {out[:200]}")
only_false = write("curve_false.csv", "\n".join(
    [line for k, line in enumerate(open(curve_csv).read().splitlines())
     if k == 0 or line.split(",")[-1] == "false"]) + "\n")
refused(["fit", only_false], only_false, None,
        "no measurement: none of its 3 rows was measured (line 2: fits false")
# The same CSV through a spreadsheet, which writes TRUE and FALSE: the 3 rows of FALSE were
# fitted as steps that ran (12 rows). Another word in fits is refused at its line.
upper = write("curve_upper.csv", open(curve_csv).read().replace(",false\n", ",FALSE\n")
              .replace(",true\n", ",TRUE\n"))
rc, out, err = run("fit", upper, "--format", "json")
check(rc == 0 and json.loads(out)["rows"] == 9 and "3 rows not measured" in err,
      f"fit of curve's CSV with FALSE: exit {rc}: {err.strip()} {out[:200]}")
maybe = write("curve_maybe.csv", open(curve_csv).read().replace(",false\n", ",no\n", 1))
maybe_line = next(k for k, line in enumerate(open(maybe).read().splitlines(), 1)
                  if line.endswith(",no"))
for cmd in (["fit", maybe], ["validate", maybe, "--device", "h100"]):
    refused(cmd, maybe, maybe_line, "fits 'no': expected true, false or empty")
# A sharded or checkpointed step read back as a DDP step: curve --shard full's CSV validated
# against the same description had a grad MAPE of 2.1 (FSDP's per-layer gathers in t_grad,
# read as DDP's all-reduce), and fit took its rows as runs. The CSV now says how it trained,
# and fit and validate refuse such a row at its line, as they refuse accumulate above 1.
for opt, value in (("--shard", "full"), ("--checkpoint", "full"), ("--checkpoint", "selective")):
    rc, out, err = run("curve", "resnet18", "--device", "h100", "--batch", "8,16", "--nodes",
                       "1,2", opt, value, "--format", "csv")
    header = out.splitlines()[0].split(",") if rc == 0 else []
    check(opt[2:] in header and out.splitlines()[1].split(",")[header.index(opt[2:])] == value,
          f"curve {opt} {value}: its CSV does not say so: {err.strip()} {out[:200]}")
    trained = write(f"curve_{opt[2:]}_{value}.csv", out)
    for cmd in (["fit", trained], ["validate", trained, "--device", "h100"]):
        refused(cmd, trained, 2, f"{opt[2:]} {value}: a step of another kind")
rc, out, err = run("curve", "resnet18,resnet50,mobilenet_v2", "--device", "h100", "--batch",
                   "8,16,32", "--nodes", "1,2", "--format", "csv")
plain = write("curve_plain.csv", out)
rc, out, err = run("fit", plain, "-o", os.path.join(tmp, "plain.ini"))
check(rc == 0, f"fit of curve's CSV without sharding or checkpointing: exit {rc}: {err.strip()}")
# accumulate is a count as batch and nodes are: "1.0" (a spreadsheet's) or a word was refused
# as "a step of several micro-batches", which it does not say; K above 1 still is.
plain_rows = open(plain).read().splitlines(True)
acc = plain_rows[0].split(",").index("accumulate")
for value, phrase in (("1.0", "accumulate '1.0' is not an integer"),
                      ("abc", "accumulate 'abc' is not an integer"),
                      ("0", "accumulate 0 is out of range"),
                      ("2", "accumulate 2: a step of several micro-batches")):
    row = plain_rows[1].split(",")
    row[acc] = value
    bad = write(f"curve_accumulate_{value}.csv", plain_rows[0] + ",".join(row) +
                "".join(plain_rows[2:]))
    for cmd in (["fit", bad], ["validate", bad, "--device", "h100"]):
        refused(cmd, bad, 2, phrase)
# validate takes the precision from the rows: a device without it was refused as if an option
# had named the precision ("precision bf16: ... give one of those"), naming no CSV
bf16_runs = "configs/calibrations/h100-pytorch-bf16.csv"
rc, out, err = run("validate", bf16_runs, "--device", "t4")
check(rc == 1 and len(err.strip().splitlines()) == 1 and
      f"{bf16_runs}: its rows are bf16: device t4 has no bf16 peak" in err,
      f"validate of bf16 rows on a t4: exit {rc}: {err.strip()}")
# A 2-D input is S x E to --seq, which set its first size; conv1d reads it as C x L, so --seq
# 8000 of a 1x16000 waveform made 8000 channels (20,480,032 weights) where a length was meant,
# and its seq column said 1. By hand at length 8000: conv1d out=32 kernel=80 stride=16 gives
# (8000 - 80) / 16 + 1 = 496 outputs, 32 x 496 x 80 = 1,269,760 MACs, 32 x 80 + 32 weights.
audio = write("audio.ini", "[network]\nname = audio\ninput = 1x16000\n[layers]\n"
              "c = conv1d out=32 kernel=80 stride=16\n")
rc, out, err = run("metrics", audio, "--image", "8000", "--format", "json")
m = json.loads(out) if rc == 0 else {}
check(m.get("input") == [1, 8000] and m.get("macs") == 1269760 and m.get("weights") == 2592,
      f"metrics --image 8000 of conv1d's C x L: {err.strip()} {out[:300]}")
for seq, args in ((16000, []), (8000, ["--seq", "8000"])):
    rc, out, err = run("predict", audio, "--device", "h100", "--batch", "1", "--format", "json",
                       *args)
    got = json.loads(out).get("seq") if rc == 0 else None
    check(got == seq, f"predict {' '.join(args)}: seq {got}, expected {seq}: {err.strip()}")
# The same waveform read by conv1d through another layer (a dropout, an identity then a ReLU)
# was S x E again: --image 8000 made 8000 channels (20,480,032 weights), and predict's seq
# said 1. Decided on the graph: layers that keep the shape of what they read keep its axes.
for name, pre in (("dropout", "d = dropout p=0.1\n"), ("view", "i = identity\nr = relu\n")):
    via = write(f"audio_{name}.ini", "[network]\nname = audio\ninput = 1x16000\n[layers]\n" +
                pre + "c = conv1d out=32 kernel=80 stride=16\n")
    rc, out, err = run("metrics", via, "--image", "8000", "--format", "json")
    m = json.loads(out) if rc == 0 else {}
    check(m.get("input") == [1, 8000] and m.get("macs") == 1269760 and
          m.get("weights") == 2592,
          f"metrics --image 8000, conv1d behind {name}: {err.strip()} {out[:300]}")
    for seq, args in ((16000, []), (8000, ["--seq", "8000"])):
        rc, out, err = run("predict", via, "--device", "h100", "--batch", "1", "--format",
                           "json", *args)
        got = json.loads(out).get("seq") if rc == 0 else None
        check(got == seq, f"predict {' '.join(args)} behind {name}: seq {got}, expected {seq}: "
              f"{err.strip()}")
# A permute ends the path: S x E = 100x16 permuted to 16 x 100 is conv1d's 16 channels, and
# --seq 200 sets S (16x198 after a kernel of 3); where the input is square a view keeps the
# shape and may have swapped the axes, so --seq is refused, naming the file.
se = write("se_permute.ini", "[network]\nname = se\ninput = 100x16\n[layers]\n"
           "p = permute order=1,0\nc = conv1d out=8 kernel=3\n")
rc, out, err = run("metrics", se, "--image", "200", "--format", "json")
m = json.loads(out) if rc == 0 else {}
check(m.get("input") == [200, 16] and m.get("weights") == 8 * 16 * 3 + 8,
      f"metrics --image 200 of S x E through a permute: {err.strip()} {out[:300]}")
square = write("square_permute.ini", "[network]\nname = sq\ninput = 64x64\n[layers]\n"
               "p = permute order=1,0\nc = conv1d out=8 kernel=3\n")
refused(["metrics", square, "--image", "200"], None, None,
        square + ": --image/--seq 200: the square 64x64 input reaches a convolution only "
        "through a view")
rc, out, err = run("metrics", square, "--format", "json")
check(rc == 0 and json.loads(out).get("input") == [64, 64],
      f"metrics of the square input at its own size: {rc} {err.strip()}")
# devices_max = 0 was taken as given: no fitted row runs on no device, and the warnings that
# compare a layout with the devices fitted would have quoted 0
zero_dev = write("zero_devices.ini", h100_cal.replace("\ndevices_max = 1\n", "\ndevices_max = 0\n"))
line = h100_cal[:h100_cal.index("\ndevices_max = ") + 1].count("\n") + 1
refused(["predict", "resnet18", "--coeffs", zero_dev, "--batch", "32"], zero_dev, line,
        "devices_max = 0: expected at least 1")
# --max-batch's search stops at 2^40 and returned it where every batch fits: a one-weight
# network on a description of 1,000,000 GiB said "max_batch 1099511627776, the largest
# per-device batch that fits", past --batch's own limit of 2^32, while 2^40 + 1 fits as well.
big_mem = write("big_memory.ini", H100.replace("memory_gib = 79.6", "memory_gib = 1000000"))
one_weight = write("one_weight.ini", "[network]\nname = w\ninput = 1\n[layers]\n"
                   "fc = linear out=1 bias=false\n")
refused(["predict", one_weight, "--device", big_mem, "--max-batch"], None, None,
        "--max-batch: every per-device batch up to 4294967296, --batch's limit, fits")
# --- the seventh campaign: data files valid in syntax, hostile in meaning ---
# Rows of two GPUs in one runs CSV (an H100's and an A100's appended to one file) were fitted as
# one machine, with only "the configuration of line 2 measured again" said, and the coefficient
# file named this machine's CPU ("device = AMD EPYC"), as no one device was common to the rows.
h100_rows = open("configs/calibrations/h100-pytorch-fp32.csv").read().splitlines()
two_gpus = write("two_gpus.csv", "\n".join(
    h100_rows[:21] + [r.replace("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB")
                      for r in h100_rows[21:41]]) + "\n")
for fmt in ("table", "json"):
    refused(["fit", two_gpus, "--format", fmt], two_gpus, 22,
            "a row of NVIDIA A100-SXM4-40GB among rows of NVIDIA H100 80GB HBM3 (line 2): a "
            "calibration is of one device")
# A row of 32,768 nodes of 65,536 devices: 2^31 devices wrapped to a negative int, and fit said
# "phase grad: rank-deficient system ... measure more models" of rows that fit at 2 devices.
ranks_rows = open("tests/data/scaling/cpu-16-ranks-1-to-4.csv").read().splitlines()
wrap = ranks_rows[2].split(",")
wrap[3:5] = ["32768", "65536"]
wrapped = write("devices_wrap.csv", "\n".join(ranks_rows[:2] + [",".join(wrap)]) + "\n")
for args in (["fit", wrapped], ["validate", wrapped, "--coeffs", "default"]):
    refused(args, wrapped, 3, "nodes x gpus_per_node = 32768 x 65536 is more than 1048576 devices")
# fit --device-out wrote its description before the coefficients were fitted: on the rows of one
# network (their terms cannot be separated) the fit failed, exit 1, with the description written
# ("wrote d.ini: ... compute efficiency 1") beside no coefficient file. Neither is written now.
one_net = write("one_network.csv", "\n".join(
    [h100_rows[0]] + [r for r in h100_rows[1:] if r.startswith("resnet50,")]) + "\n")
dev_out, coeffs_out = os.path.join(tmp, "one_network_dev.ini"), os.path.join(tmp, "one_net.ini")
for extra, why in (([], "rank-deficient system"), (["-o", coeffs_out], "rank-deficient system"),
                   (["--cv", "loo"], "needs rows of at least two models")):
    refused(["fit", one_net, "--device-out", dev_out, *extra], one_net, None, why)
    check(not os.path.exists(dev_out) and not os.path.exists(coeffs_out),
          f"fit --device-out {extra} of one network wrote a file")
# rows measuring inference alone: the solver said "term 2 is zero at every point", an index the
# user cannot read (the hostile round of 2026-11-26); the key and the column are named now
def h100_fp32_times(name, **times):
    """The H100 fp32 runs with the times given set on every row: a CSV in tmp."""
    path = os.path.join(tmp, name)
    with open("configs/calibrations/h100-pytorch-fp32.csv", newline="") as f:
        rows = list(csv_module.DictReader(f))
    with open(path, "w", newline="") as f:
        w = csv_module.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            r.update(times)
            w.writerow(r)
    return path


infer_only = h100_fp32_times("infer_only.csv", t_fwd="", t_bwd="", t_grad="", t_step="")
refused(["fit", infer_only, "--device-out", dev_out, "--no-weight-term"], infer_only, None,
        "device keys: no row measures t_fwd, so nothing fits dispatch_fwd_us")
# fit --device-out bounds each efficiency at 1: H100 runs fitted on --device-base a10 asked a tf32
# compute efficiency of 5.79 (2.82 before its matrix products took 0.7 at tf32) and a memory
# efficiency of 3.81, were written as 1 with no word, and
# the description predicted the runs 1.75 times slower than measured. Said now.
bounded = os.path.join(tmp, "bounded_a10.ini")
rc, out, err = run("fit", "configs/calibrations/h100-pytorch-tf32.csv", "--device-out", bounded,
                   "--device-base", "a10")
check(rc == 0 and "warning: configs/calibrations/h100-pytorch-tf32.csv: the runs went faster "
      "than" in err and re.search(r"a10\.ini allows: its compute_efficiency_tf32 fits "
                                  r"[1-9][0-9.]*, its memory efficiency fits [1-9][0-9.]*, "
                                  r"above 1; written as 1", err),
      f"fit --device-out --device-base a10 of H100 runs: exit {rc}: {err.strip()}")
# runs of a nanosecond: the memory-bound layers' time fits 0 and the efficiency it divides had
# no bound, said as "inf" (the hostile round of 2026-11-26)
fast = h100_fp32_times("fast.csv", t_infer="1e-9", t_fwd="1e-9", t_bwd="1e-9", t_grad="1e-9",
                       t_step="4e-9")
rc, out, err = run("fit", fast, "--device-out", bounded)
check(rc == 0 and "fits no bound (the time it divides fits 0)" in err and " inf," not in err,
      f"fit --device-out of runs of a nanosecond: exit {rc}: {err.strip()}")
rc, out, err = run("fit", "configs/calibrations/h100-pytorch-tf32.csv", "--device-out", bounded)
check(rc == 0 and "faster than" not in err and "slower than" not in err,
      f"fit --device-out of H100 runs on h100 warned: exit {rc}: {err.strip()}")
# and far below: one CPU thread's runs on the h100 base (a 67 TFLOP/s fp32 peak, 3.35 TB/s,
# for a core of some 50 GFLOP/s and 20 GB/s: 1e-3 of each) wrote efficiencies near 0.001 with
# no word, where every GPU description takes more than 0.2. Said as the bound above 1 is.
rc, out, err = run("fit", "configs/calibrations/cpu-amd-epyc-1thread.csv", "--device-out",
                   bounded, "--device-base", "h100")
check(rc == 0 and "warning: configs/calibrations/cpu-amd-epyc-1thread.csv: the runs went far "
      "slower than" in err and "h100.ini allows: its fp32 compute efficiency fits " in err and
      ", its memory efficiency fits " in err and "below 0.01, far below any GPU's" in err,
      f"fit --device-out --device-base h100 of CPU runs: exit {rc}: {err.strip()}")
# A power limit just above the power model's static part left a clock no GPU runs at, where a
# given sustained_clock_mhz below 100 MHz is refused: 175.4 W for an H100's 132 SMs held 82 MHz
# and made a description without efficiency keys predict every layer 20 times slower.
low_power = write("low_power.ini", H100.replace("power_limit_w = 700", "power_limit_w = 175.4"))
line = H100[:H100.index("power_limit_w = 700")].count("\n") + 1
refused(["predict", "resnet50", "--device", low_power, "--batch", "8"], low_power, line,
        "power_limit_w = 175.4 leaves 132 hopper SMs 82 MHz in the model, below any GPU's lowest "
        "clock (100 MHz): give the board's limit (at least 176 W here)")
at_176 = write("power_176.ini", H100.replace("power_limit_w = 700", "power_limit_w = 176"))
rc, out, err = run("predict", "resnet50", "--device", at_176, "--batch", "8")
check(rc == 0, f"predict at power_limit_w = 176: exit {rc}: {err.strip()}")
# fit-comm read a CSV without a nodes column as one node: 4 nodes of 8 A100s (32 ranks) were one
# node of 32, and the intra-node bandwidth came out at the network's 200 GB/s for NVLink's 240,
# written so by --device-out. A one-node run of more ranks than the base's node holds is refused.
sweep = ["--algorithm", "Ring", "--protocol", "Simple", "--min-bytes", "1M", "--max-bytes", "1G",
         "--format", "csv"]
rc1, one_node, _ = run("allreduce", "--device", "a100", "--nodes", "1", *sweep)
rc4, four_nodes, _ = run("allreduce", "--device", "a100", "--nodes", "4", *sweep)
one_csv = write("a100_one_node.csv", one_node)
no_nodes = write("a100_no_nodes.csv", "".join(
    ",".join(f for k, f in enumerate(l.split(",")) if k != 3) + "\n"
    for l in four_nodes.splitlines()))
refused(["fit-comm", one_csv, no_nodes, "--device-base", "a100"], no_nodes, 2,
        "32 ranks on one node, more than a node of a100 holds (8, devices_per_node in")
rc, out, err = run("fit-comm", one_csv, no_nodes + "@4", "--device-base", "a100", "--format",
                   "json")
fitted = json.loads(out) if rc == 0 else {}
check(rc1 == rc4 == rc == 0 and abs(fitted["intra"]["bandwidth_gb_s"] - 240) < 1,
      f"fit-comm of the A100 runs with @4: exit {rc}: {err.strip()} {out[:300]}")
# A TF32 peak below the FP32 one: TF32's default efficiency rises to the fp32 rate, at which the
# element-wise layers run too, and mfu over the TF32 peak read 401.8% (an L4 given 1 TFLOP/s of
# TF32). Over the faster of the two it reads what the L4's own TF32 peak gives, at half the rate.
l4 = open("configs/devices/l4.ini").read()
low_tf32 = write("low_tf32.ini", l4.replace("peak_tf32_tflops = 60", "peak_tf32_tflops = 1"))
mfu = {}
for name, dev in (("low", low_tf32), ("l4", "l4")):
    rc, out, err = run("predict", "resnet50", "--device", dev, "--batch", "32", "--format", "json")
    mfu[name] = json.loads(out)["mfu"] if rc == 0 else None
    check(rc == 0, f"predict resnet50 --device {dev}: exit {rc}: {err.strip()}")
check(mfu["low"] is not None and mfu["l4"] is not None and 0 < mfu["low"] <= 1 and
      abs(mfu["low"] - mfu["l4"] * 60 / 30.3) < 1e-3 * mfu["low"],
      f"mfu over a TF32 peak below FP32's: {mfu}")
# bench resumed under another name of one network (./net.ini for net.ini, a zoo name for its
# file's path) measured every configuration again, under the new name: "2 configurations
# measured, 0 already there", rows that fit then read as a second network. It resumes under the
# name the CSV holds.
shutil.copy("tests/data/fit/tiny_a.ini", os.path.join(tmp, "bench_net.ini"))


# An empty image field is the network file's own size (224 for the zoo's CNNs), not 0: fit
# printed "image 0-224" and wrote image_min = 0, so predicting at image 32 warned of nothing.
tf32_rows = open("configs/calibrations/h100-pytorch-tf32.csv").read().splitlines()
path = write("empty_image.csv", "\n".join(
    [tf32_rows[0]] + [r.replace("resnet18,224,", "resnet18,,") for r in tf32_rows[1:40]]) + "\n")
coeffs = os.path.join(tmp, "empty_image.ini")
rc, out, err = run("fit", path, "-o", coeffs)
written = open(coeffs).read() if rc == 0 else ""
check(rc == 0 and "image 96-224," in out and "\nimage_min = 96\n" in written,
      f"fit of rows of an empty image: exit {rc}: {out.splitlines()[:1]} {err.strip()}")
rc, out, err = run("predict", "resnet50", "--coeffs", coeffs, "--batch", "16", "--image", "32")
check(rc == 0 and "image 32 is outside the calibrated range (96 to 224)" in err,
      f"predict at image 32 beside rows of an empty image: exit {rc}: {err.strip()}")


def run_bench(*args):
    """run, with LeakSanitizer off for bench alone: Open MPI's own allocations, as
    tests/bench.cmake's SM_BENCH_ENV (the other commands here stay checked for leaks)."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    p = subprocess.run([cli_checks.SM, *args], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr



bench_csv = os.path.join(tmp, "bench_resume.csv")
bench = ["bench", "--image", "8", "--reps", "3", "--min-time", "0.01", "--warmup", "1", "-q",
         "-o", bench_csv]
rc1, _, err1 = run_bench(*bench, os.path.join(tmp, "bench_net.ini"), "--batch", "1")
rc2, _, err2 = run_bench(*bench, os.path.join(tmp, ".", "bench_net.ini"), "--batch", "1,2")
models = [r.split(",")[0] for r in open(bench_csv).read().splitlines()[1:]]
check(rc1 == rc2 == 0 and models == [os.path.join(tmp, "bench_net.ini")] * 2 and
      "1 configurations measured, 0 out of memory, 1 already there" in err2,
      f"bench resumed under ./: exit {rc1} {rc2}, models {models}: {err2.strip()}")
# A configuration named twice on one command line (--batch 1,1, --image 8,8, one network by two
# names) was measured twice: two rows of one configuration, which fit weighs double. Once now.
once_csv = os.path.join(tmp, "bench_once.csv")
net = os.path.join(tmp, "bench_net.ini")
rc, _, err = run_bench("bench", "--reps", "3", "--min-time", "0.01", "--warmup", "1", "-q",
                       "-o", once_csv, f"{net},{os.path.join(tmp, '.', 'bench_net.ini')}",
                       "--image", "8,8", "--batch", "1,1")
rows = open(once_csv).read().splitlines()[1:] if rc == 0 else []
check(rc == 0 and len(rows) == 1 and rows[0].startswith(f"{net},8,1,") and
      "1 configurations measured, 0 out of memory, 0 already there" in err,
      f"bench of one configuration named eight ways: exit {rc}, rows {rows}: {err.strip()}")
# A standard output that cannot be written (/dev/full, a full disk): said once, with the first
# failed write's reason. allreduce said it twice, the second time "Input/output error" (its
# module's finish, then the program's); bench, which flushes each row, said only "Input/output
# error" (the failed flush dropped the buffer, and its errno with it); curve's long outputs said
# "standard output: write failed" before the one line.
def full_stdout(*args):
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    with open("/dev/full", "w") as full:
        p = subprocess.run([cli_checks.SM, *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, env=env)
    return p.returncode, p.stderr


if os.path.exists("/dev/full"):
    full_csv = os.path.join(tmp, "bench_full.csv")
    for args, notes in ((["allreduce", "--device", "h100", "--format", "csv"], 0),
                        (["allreduce", "--device", "h100"], 0),
                        (["curve", "resnet50", "--device", "h100", "--batch", "1,2,4", "--nodes",
                          "1:64", "--format", "svg"], 0),
                        (["curve", "resnet50", "--device", "h100", "--batch", "1,2,4", "--nodes",
                          "1:1024", "--format", "json"], 0),
                        (["bench", "--image", "8", "--reps", "3", "--min-time", "0.01",
                          "--warmup", "1", "-q", "-o", full_csv, net, "--batch", "1,2"], 1)):
        rc, err = full_stdout(*args)
        lines = err.strip().splitlines()
        cmd = args[0]
        check(rc == 1 and len(lines) == notes + 1 and lines[-1] ==
              f"scalemeter {cmd}: cannot write the output: No space left on device",
              f"{' '.join(args)} > /dev/full: exit {rc}: {err.strip()}")

# --- the eighth campaign: measurements in and out ---------------------------------------------
cpu_rows = open("configs/calibrations/cpu-amd-epyc-1thread.csv").read().splitlines()
# two files of a byte-order mark joined with cat: the second header, behind its mark, was read
# as a row not measured (its status "status") and the rows after it under the first file's
# columns, silently: it is the repeated header it is
bom_twice = write("bom_twice.csv", "\ufeff" + "\n".join(cpu_rows[:8] + ["\ufeff" + cpu_rows[0]] +
                                                        cpu_rows[1:8]) + "\n")
refused(["fit", bom_twice], bom_twice, 9, "header repeated at line 9 (files concatenated?)")
# rows of 1 and of 16 threads on one layout were fitted as one machine without a word
mixed = write("mixed_threads.csv", "\n".join(
    [cpu_rows[0]] + [r.replace(",cpu,1,fp32", ",cpu,16,fp32") if i % 2 else r
                     for i, r in enumerate(cpu_rows[1:])]) + "\n")
refused(["fit", mixed], mixed, 3, "a row of 16 threads among rows of 1 at 1 rank a node (line 2)")
# calibrate gives each layout's ranks their share of the cores: other layouts, other threads
ranks = open("tests/data/scaling/cpu-16-ranks-1-to-4.csv").read().splitlines()
def threads_at(row, threads):
    f = row.split(",")
    f[11] = str(threads)  # the threads column
    return ",".join(f)


by_layout = write("threads_by_layout.csv", "\n".join(
    [ranks[0]] + [threads_at(r, 4) if r.split(",")[4] == "1" else r for r in ranks[1:]]) + "\n")
rc, out, err = run("fit", by_layout)
check(rc == 0, f"threads that differ by layout: exit {rc}: {err.strip()}")
# fit --device-out on rows of 4 ranks a node with a base of 2 devices a node wrote a description
# that validate then refused on the same rows
four = 1 + next(i for i, r in enumerate(ranks[1:], 1) if r.split(",")[4] == "4")
rc, out, err = run("fit", "tests/data/scaling/cpu-16-ranks-1-to-4.csv", "--device-out",
                   os.path.join(tmp, "cpu-fitted.ini"), "--device-base", "cpu")
last = err.strip().splitlines()[-1] if err.strip() else ""
check(rc == 1 and f"cpu-16-ranks-1-to-4.csv:{four}: cpu: a node has 2 devices, not 4" in last,
      f"fit --device-out on rows its base's node cannot hold: {rc} {err.strip()}")
check(not os.path.exists(os.path.join(tmp, "cpu-fitted.ini")), "no description written")
# a fit of negative coefficients scored its own negative predictions without a word
rc, out, err = run("fit", "configs/calibrations/cpu-amd-epyc-1thread.csv", "--no-nonneg",
                   "--weighting", "none", "-o", os.path.join(tmp, "nn.ini"))
check(rc == 0 and "not positive" in err and "predict, curve and validate refuse" in err,
      f"fit --no-nonneg's negative predictions: {rc} {err.strip()}")
# validate left rows not measured out without a word (fit says it)
ok_upper = write("ok_upper.csv", "\n".join(
    [ranks[0]] + [r[:-3] + ",OK" if i < 8 else r for i, r in enumerate(ranks[1:])]) + "\n")
rc, out, err = run("validate", ok_upper, "--coeffs", "default")
check("8 rows not measured" in err, f"validate of 8 rows not measured: {rc} {err.strip()}")
# an empty image is the network's own size: the same configuration as 224 written out
dup_image = write("dup_image.csv", "\n".join(cpu_rows + [cpu_rows[7].replace(",224,", ",,", 1)])
                  + "\n")
rc, out, err = run("fit", dup_image, "-o", os.path.join(tmp, "dup.ini"))
check(rc == 0 and f"dup_image.csv:{len(cpu_rows) + 1}: the configuration of line 8 measured "
      "again" in err, f"an empty image repeating 224: {rc} {err.strip()}")


# --- network files accepted with a meaning of their own ----------------------------------------
# an argument named i in a repeated block took the place of ${i}, the repetition's index
arg_i = write("arg_i.ini", "[network]\nname = t\ninput = 4x8x8\n[template t]\n"
              "b = conv2d out=${i} kernel=1\n[block x{3..4}]\nuse = t\ni = 5\n")
refused(["metrics", arg_i], arg_i, 8, "an argument named i in a repeated block")
# a layer of an empty name, or of one from= cannot spell (a comma splits it, a space is trimmed)
for name, key in (("empty_name", ""), ("comma_name", "a,b"), ("space_name", "a b")):
    bad = write(name + ".ini", f"[network]\nname = t\ninput = 4x8x8\n[layers]\n{key} = relu\n")
    refused(["metrics", bad], bad, 5, "the layer name '" + key + "'")
# maxpool2d's padding is at most half the kernel whatever its dilation (ATen's
# pool2d_shape_check: kW/2 >= padW): nn.MaxPool2d(3, 1, 2, 2) raises
pool = write("pool_pad.ini", "[network]\nname = t\ninput = 1x8x8\n[layers]\n"
             "p = maxpool2d kernel=3 stride=1 padding=2 dilation=2\n")
refused(["metrics", pool], pool, 5, "padding 2 must be at most half the kernel 3")
pool_ok = write("pool_ok.ini", "[network]\nname = t\ninput = 1x8x8\n[layers]\n"
                "p = maxpool2d kernel=3 stride=1 padding=1 dilation=2\n")
rc, out, err = run("metrics", pool_ok, "--format", "json")
check(rc == 0, f"maxpool2d kernel 3 padding 1 dilation 2: {rc} {err.strip()}")

# --- the eighth campaign: rates, totals and names at their edges --------------------------------
# a rate per SM and clock of 1e-300 (or a denormal) made one layer's time inf and the queue's sum
# NaN, printed as '-' with exit 0, or a stream of 0 taken for "no bound", faster than the
# shipped rate: a thousandth is the floor, 0 still turns the term off
hopper = open("configs/frameworks/pytorch-eager-hopper.ini").read()
for key in ("transpose_elements_per_sm_clock", "stem_fwd_macs_per_sm_clock",
            "batchnorm_bf16_train_bytes_per_sm_clock"):
    for value in ("4.9e-324", "1e-300", "1e-9"):
        fw = write("tiny_rate.ini", re.sub(rf"(?m)^{key} = .*$", f"{key} = {value}", hopper))
        line = next(i for i, l in enumerate(hopper.splitlines(), 1) if l.startswith(key + " ="))
        refused(["predict", "resnet50", "--device", "h100", "--framework", fw, "--batch", "8",
                 "--precision", "bf16"], fw, line,
                f"{key} = {value}: expected 0 (none) or a number from 0.001 to")
off = write("rate_off.ini", re.sub(r"(?m)^transpose_elements_per_sm_clock = .*$",
                                   "transpose_elements_per_sm_clock = 0", hopper))
rc, out, err = run("predict", "resnet50", "--device", "h100", "--framework", off, "--batch", "8",
                   "--precision", "bf16", "--format", "json")
check(rc == 0 and json.loads(out)["t_step"] > 0, f"a rate of 0, the term off: {rc} {err.strip()}")
nvls = write("nvls_tiny.ini", re.sub(r"(?m)^nvls_efficiency = .*$", "nvls_efficiency = 1e-12", H100))
refused(["predict", "resnet50", "--device", nvls, "--batch", "8", "-g", "8"], nvls,
        next(i for i, l in enumerate(H100.splitlines(), 1) if l.startswith("nvls_efficiency =")),
        "nvls_efficiency = 1e-12: expected 0 (none) or a number from 0.01 to 1")
# a coefficient file's idle power had no bound where --idle-watts has a megawatt: 1e20 W gave
# epochs of 1e23 J with exit 0
idle20 = write("idle20.ini", cal.replace("idle_watts = 0", "idle_watts = 1e20"))
refused(["predict", "resnet50", "--coeffs", idle20, "--batch", "8"], idle20,
        next(i for i, l in enumerate(cal.splitlines(), 1) if l.startswith("idle_watts =")),
        "idle_watts = 1e20: expected watts from 0 to 1000000")
# a step of 1e16 s passed the phases' 1e17 s bound and its epoch of 4e20 s, its training of
# 4e23 s, printed as "4.63e+15 d" with exit 0: the totals are held to it too. Every phase's
# intercept 1e16 s: a step of 2e16 s (forward and backward; one device syncs nothing), ImageNet's
# 1,281,167 images at 32 a step in 40,037 steps: 8.0074e20 s, and 1000 epochs 8.0074e23 s
slow = write("slow.ini", "\n".join("c4_intercept = 1e16" if l.startswith("c4_intercept =")
                                   else l for l in cal.splitlines()) + "\n")
refused(["predict", "resnet50", "--coeffs", slow, "--batch", "32"], None, None,
        "t_epoch = 8.0074e+20 s over 40037 steps: beyond 1e17 s")
refused(["curve", "resnet50", "--coeffs", slow, "--batch", "32", "--nodes", "1:2", "--epochs",
         "1000"], None, None, "t_train = 8.0074e+23 s over 40037000 steps: beyond 1e17 s")
# an empty --device, --framework or --precision was read as a name: "no .../devices/.ini",
# "precision : expected fp32, ..." with exit 1
for option, metavar in (("--device", "NAME"), ("--framework", "F"), ("--precision", "P")):
    args = ["predict", "resnet50", "--batch", "8", option, ""]
    if option != "--device":
        args += ["--device", "h100"]
    rc, out, err = run(*args)
    check(rc == 2 and err.strip().endswith(f"{option} is empty: give its {metavar} (--help says "
                                           "what it takes)"), f"{option} '': {rc} {err.strip()}")
# fit took a one-device row whose step (1e-8 s) was a millionth of its passes without a word;
# the held-out MAPE it made (65439) chose the weight term
bf16_rows = open("configs/calibrations/h100-pytorch-bf16.csv").read().splitlines()
head = bf16_rows[0].split(",")
row = bf16_rows[1].split(",")
row[head.index("t_step")] = "1e-08"
short = write("short_step.csv", "\n".join([bf16_rows[0], ",".join(row)] + bf16_rows[2:]) + "\n")
rc, out, err = run("fit", short, "-o", os.path.join(tmp, "short.ini"))
check("short_step.csv: 1 row of one device (line 2) has t_step below half of t_fwd + t_bwd"
      in err, f"fit of a step shorter than its passes: {rc} {err.strip()}")
# ... and validate scored it (a step MAPE of 237047 over five such rows) without a word; rows
# of several devices whose step is no longer than their passes were left out of grad silently
rc, out, err = run("validate", short, "--device", "h100")
check(rc == 0 and "short_step.csv: 1 row of one device (line 2) has t_step below half" in err,
      f"validate of a step shorter than its passes: {rc} {err.strip()}")
row = bf16_rows[1].split(",")
row[head.index("gpus_per_node")] = "8"
row[head.index("t_step")] = str(float(row[head.index("t_fwd")]) + float(row[head.index("t_bwd")]))
several = write("several_short.csv", "\n".join([bf16_rows[0], ",".join(row)] + bf16_rows[2:]) + "\n")
rc, out, err = run("validate", several, "--device", "h100", "--format", "json")
check(rc == 0 and "several_short.csv: 1 row of several devices (line 2) has t_step <= t_fwd + "
      "t_bwd, impossible with a gradient phase; it is left out of grad's comparison" in err
      and "left out of grad's comparison" in (json.loads(out).get("warning") or ""),
      f"validate of a step of several devices no longer than its passes: {rc} {err.strip()}")
# a runs CSV wider than the reader's 256 fields: the header and a row of one field more (a
# decimal comma, "1,0101888", read t_step as 1) both counted 256, and the row was taken
cols = bf16_rows[0].split(",") + [f"x{i}" for i in range(250)]
row = bf16_rows[1].split(",")
row[head.index("t_step")] = '1,0101888'
row = row + [str(i) for i in range(250)]
wide = write("wide.csv", ",".join(cols) + "\n" + ",".join(row) + "\n")
for cmd in (["validate", wide, "--device", "h100"], ["fit", wide]):
    refused(cmd, wide, 1, "more than 256 fields in the header")
wide = write("wide_row.csv", ",".join(cols[:256]) + "\n" + ",".join(row[:257]) + "\n")
refused(["validate", wide, "--device", "h100"], wide, 2, "more than 256 fields where the header "
        "has 256")
# fit-comm's CSV likewise at its 32: the last field held the rest of the line, commas and all
comm = write("wide_comm.csv", ",".join(["bytes", "ranks", "time_s"] + [f"x{i}" for i in range(29)])
             + "\n" + ",".join(["1048576", "8", "0.001"] + ["1"] * 30) + "\n")
refused(["fit-comm", comm], comm, 2, "more than 32 fields")
# validate said nothing of a configuration measured twice, once with an empty image and once
# with the network's own size written out, where fit says it
rc, out, err = run("validate", dup_image, "--coeffs", "default")
check(rc == 0 and f"dup_image.csv:{len(cpu_rows) + 1}: the configuration of line 8 measured "
      "again" in err, f"validate of an empty image repeating 224: {rc} {err.strip()}")

finish()
