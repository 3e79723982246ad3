"""Command-line misuse (tests/cli_misuse.cmake): what fit does
with `-o -` and options it would ignore, bench's --warmup 0 and a bad network list, `help
help`, an energy the rows cannot separate, a device given as a network file, a comma in curve's
paths, the baseline of scaling efficiency where the first node count does not fit, - given
for two inputs, and check-plugin's usage errors.
test_calibrate_failures.py has the parts that start MPI. Each check, unless it says otherwise,
failed before its fix.

    test_cli_misuse.py SCALEMETER
"""
import csv
import io
import json
import os
import shutil
import subprocess
import tempfile

from cli_checks import SM, check, finish, good_json, near, run

CPU_CSV = os.path.abspath("configs/calibrations/cpu-amd-epyc-1thread.csv")
TINY = [os.path.abspath(f"tests/data/fit/tiny_{n}.ini") for n in "abc"]


def run_in(cwd, *args, stdin=None):
    p = subprocess.run([SM, *args], capture_output=True, text=True, cwd=cwd, input=stdin)
    return p.returncode, p.stdout, p.stderr


def one_line_error(rc, err, want_rc, text, what):
    check(rc == want_rc, f"{what}: exit {rc}, expected {want_rc}: {err.strip()}")
    check(text in err, f"{what}: expected '{text}' in: {err.strip()}")
    check(len(err.strip().splitlines()) == 1, f"{what}: one line, got: {err.strip()}")
    check("LeakSanitizer" not in err, f"{what}: leaks: {err}")


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


tmp = tempfile.mkdtemp(prefix="sm-misuse-")
try:
    # 1. -o - is the standard output, as for every other command (cli/output.c output_to):
    # the coefficient file there, in place of the table, and no file named '-'
    rc, out, err = run_in(tmp, "fit", CPU_CSV, "--no-weight-term", "-o", "-")
    check(rc == 0, f"fit -o -: exit {rc}: {err}")
    check(not os.path.exists(os.path.join(tmp, "-")), "fit -o - wrote a file named '-'")
    check(out.startswith("; scalemeter coefficient file"), f"fit -o -: stdout: {out[:200]}")
    check("[infer]" in out and "c1_flops" in out and "RMSE" not in out,
          "fit -o -: the coefficient file alone on stdout")
    check("wrote the coefficients to the standard output" in err, f"fit -o -: {err}")
    ini = os.path.join(tmp, "from_stdout.ini")
    with open(ini, "w") as f:
        f.write(out)
    rc, pout, perr = run("predict", "resnet18", "--coeffs", ini, "--batch", "1", "--format", "json")
    check(rc == 0 and json.loads(pout or "{}").get("t_step", 0) > 0,
          f"predict --coeffs (the file fit wrote on stdout): {perr}")
    for extra, text in ((["--format", "json"], "--format prints its table"),
                        (["--cv", "loo"], "--cv loo prints its validation")):
        rc, out, err = run_in(tmp, "fit", CPU_CSV, "-o", "-", *extra)
        one_line_error(rc, err, 2, f"-o - writes the file on the standard output, where {text}",
                       f"fit -o - {' '.join(extra)}")
        check(out == "", f"fit -o - {extra}: nothing on stdout: {out[:100]}")
    rc, out, err = run_in(tmp, "fit", CPU_CSV, "--no-weight-term", "--device-out", "-")
    check(rc == 0 and out.startswith("; Device description written by `scalemeter fit "
                                     "--device-out`"), f"fit --device-out -: {rc} {err}")
    check(not os.path.exists(os.path.join(tmp, "-")), "--device-out - wrote a file named '-'")

    if os.path.exists("/dev/full"):  # a standard output that cannot take the file
        with open("/dev/full", "w") as full:
            p = subprocess.run([SM, "fit", CPU_CSV, "--no-weight-term", "-o", "-"], stdout=full,
                               stderr=subprocess.PIPE, text=True, cwd=tmp)
        one_line_error(p.returncode, p.stderr, 1, "cannot write the standard output: No space "
                       "left on device", "fit -o - > /dev/full")
    # bench's -o is a file it reads back to resume, calibrate's a prefix: '-' is refused
    rc, out, err = run_in(tmp, "bench", "resnet18", "-o", "-")
    one_line_error(rc, err, 2, "-o -: the rows go to a file that a second run reads back",
                   "bench -o -")
    rc, out, err = run_in(tmp, "calibrate", "-o", "-")
    one_line_error(rc, err, 2, "-o -: -o is a prefix of the files written", "calibrate -o -")
    check(not [n for n in os.listdir(tmp) if n.startswith("-")], f"no '-' file: {os.listdir(tmp)}")

    # 2. options that would be ignored: one line naming the option and what it needs
    rc, out, err = run("fit", CPU_CSV, "--idle-watts", "50")
    one_line_error(rc, err, 2, "--idle-watts: no row of " + CPU_CSV + " measures energy",
                   "--idle-watts without energy")
    rc, out, err = run("fit", CPU_CSV, "--idle-watts", "0", "-o", os.path.join(tmp, "i.ini"))
    check(rc == 0, f"--idle-watts 0, the default, changes nothing: refits repeat it: {err}")
    rc, out, err = run("fit", CPU_CSV, "--device-base", "h100")
    one_line_error(rc, err, 2, "--device-base h100: only with --device-out FILE",
                   "--device-base without --device-out")

    # 3. --warmup 0 is refused with its reason: the first untimed step checks the all-reduce
    # and times a step (calibrate/bench_step.c warm_up); --help says so
    rc, out, err = run("bench", "resnet18", "--warmup", "0", "-o", os.path.join(tmp, "w.csv"))
    one_line_error(rc, err, 2, "--warmup 0: expected an integer from 1 to 1000: the first "
                   "untimed step checks the all-reduce's sums", "bench --warmup 0")
    rc, out, err = run("bench", "--help")
    check("at least 1: the first checks the" in out, "bench --help: --warmup's minimum")

    # 4. help help: the command list, as `scalemeter help`
    for arg in ("help", "--help"):
        rc, out, err = run("help", arg)
        check(rc == 0 and "commands:" in out and "  fit " in out and err == "",
              f"help {arg}: exit {rc}: {err.strip()}")

    # 5. split_list's error return: nothing made is left (test_split_list; here the exit
    # status, which LeakSanitizer changes in a SCALEMETER_SANITIZE build)
    rc, out, err = run("bench", "squeezenet1_0,,vgg11", "-o", os.path.join(tmp, "l.csv"))
    one_line_error(rc, err, 2, "--model 'squeezenet1_0,,vgg11': an empty item",
                   "bench with an empty network name")

    # 7. energy the rows cannot separate: the time fit is written, the energy left out with a
    # warning. energy_j on 2 rows; the step's energy takes bwd_grad's 7 terms (dispatch form,
    # no weight term, one device: b F, b I, b O, 1, K, P, W); K and W, which can be given up,
    # leave 5 > 2 points
    with open(CPU_CSV) as f:
        lines = f.read().splitlines()
    en = os.path.join(tmp, "en.csv")
    with open(en, "w") as f:
        f.write(lines[0] + ",energy_j\n")
        for i, line in enumerate(lines[1:]):
            f.write(line + (",5.0\n" if i < 2 else ",\n"))
    out_ini = os.path.join(tmp, "en.ini")
    rc, out, err = run("fit", en, "--no-weight-term", "-o", out_ini)
    check(rc == 0, f"fit with too little energy: exit {rc}: {err}")
    check("warning: " + en + ": energy of step: 2 points for 5 coefficients: too few points" in err
          and "that energy (energy_j of 2 rows) is left out of the fit, the times are fitted"
          in err, f"fit with too little energy: {err}")
    text = open(out_ini).read() if os.path.exists(out_ini) else ""
    sections = [line for line in text.splitlines() if line.startswith("[")]
    check("[bwd_grad]" in sections and "[energy_step]" not in sections,
          f"the time fit written, without [energy_step]: {sections}")
    rc, out, err = run("fit", en, "--no-weight-term", "--format", "json")
    doc = json.loads(out) if rc == 0 else {}
    check("energy of step: 2 points" in (doc.get("warning") or ""), f"fit json warning: {doc}")
    check("energy_step" not in doc.get("phases", {}), "fit json: no energy_step phase")
    rc, out, err = run("fit", en, "--no-weight-term", "--idle-watts", "1")
    check(rc == 0, f"--idle-watts with energy measured: exit {rc}: {err}")

    # 8. an error of the rows names file:line once
    mix = os.path.join(tmp, "mix.csv")
    with open(mix, "w") as f:
        f.write("\n".join(lines) + "\n")
        f.write("resnet18,64,2,1,1,0.01,0.01,0.02,0.01,0.04,cuda,1,fp32,cpu\n")
    rc, out, err = run("fit", mix)
    one_line_error(rc, err, 1, f"scalemeter fit: {mix}:202: a gpu row among cpu rows (line 2)",
                   "fit of mixed backends")
    check(err.count("mix.csv") == 1, f"the file named once: {err.strip()}")

    # 11. a network 'file' that is a device or a pipe is not missing
    rc, out, err = run("metrics", "/dev/zero")
    one_line_error(rc, err, 1, "/dev/zero: is a character device, not a model file",
                   "metrics /dev/zero")
    check("no such file" not in err, "metrics /dev/zero: not 'no such file'")
    fifo = os.path.join(tmp, "pipe")
    os.mkfifo(fifo)
    rc, out, err = run("metrics", fifo)
    one_line_error(rc, err, 1, fifo + ": is a pipe, not a model file", "metrics FIFO")

    # 12. commas in curve's paths: a network file with one is one network (it was split in
    # two); an empty name is refused; an output path with one is written as named (this part
    # did not fail before: kept as a guard)
    os.mkdir(os.path.join(tmp, "d,e"))
    net = os.path.join(tmp, "d,e", "net.ini")
    shutil.copy(TINY[0], net)
    rc, out, err = run("curve", net, "--batch", "8", "--nodes", "1,2", "--device", "h100",
                       "--format", "csv")
    rows = csv_rows(out) if rc == 0 else []
    check(rc == 0 and len(rows) == 2 and rows[0]["model"] == net,
          f"curve on a network file with a comma: exit {rc}: {err.strip()}")
    rc, out, err = run("curve", "resnet18,,vgg11", "--batch", "8", "--nodes", "1",
                       "--device", "h100")
    one_line_error(rc, err, 2, "MODEL 'resnet18,,vgg11': an empty name in the list",
                   "curve with an empty name")
    svg = os.path.join(tmp, "a,b.svg")
    rc, out, err = run("curve", "resnet18", "--batch", "8", "--nodes", "1,2", "--device", "h100",
                       "--format", "svg", "-o", svg)
    check(rc == 0 and open(svg).read().startswith("<?xml"), f"curve -o a,b.svg: {err}")

    # 13. strong-scaling efficiency against the first node count that fits: resnet50 at a
    # global batch of 8192 on h100 needs more than the device at 1 node (1024 per device);
    # efficiency(N) = ips(N) / (N / N0 x ips(N0)) with N0 = 2 nodes, the first that fits
    rc, out, err = run("curve", "resnet50", "--device", "h100", "--global-batch", "8192",
                       "--nodes", "1,2,4", "--format", "csv")
    rows = csv_rows(out) if rc == 0 else []
    fits = [r["fits"] for r in rows]
    check(fits == ["false", "true", "true"], f"precondition: 1 node does not fit, 2 do: {out}")
    if fits == ["false", "true", "true"]:
        ips = [float(r["images_per_s"]) for r in rows]
        check(rows[0]["efficiency"] == "", f"no efficiency at 1 node: {rows[0]['efficiency']}")
        check(rows[1]["efficiency"] == "1", f"1 at 2 nodes: {rows[1]['efficiency']}")
        check(near(float(rows[2]["efficiency"] or 0), ips[2] / (2 * ips[1]), 1e-5),
              f"4 nodes against 2: {rows[2]['efficiency']} vs {ips[2] / (2 * ips[1])}")
    rc, out, err = run("curve", "resnet50", "--device", "h100", "--global-batch", "8192",
                       "--nodes", "1,2,4", "--format", "json")
    pts = json.loads(out)["curves"][0]["points"] if rc == 0 else []
    check(len(pts) == 3 and pts[0]["efficiency"] is None and pts[1]["efficiency"] == 1,
          f"json: efficiency null at 1 node, 1 at 2: {[p.get('efficiency') for p in pts]}")
    rc, out, err = run("curve", "resnet50", "--device", "h100", "--global-batch", "8192",
                       "--nodes", "1,2,4")
    check("efficiency is against 2 nodes" in out, f"table: the baseline said: {out}")
    table = [line for line in out.splitlines() if line.startswith("resnet50 ")]
    check(len(table) == 3 and "%" not in table[0] and " 100.0% " in table[1],
          f"table: no efficiency at 1 node, 100.0% at 2: {table}")
    # the chart: ideal scaling starts where the efficiency does, on the series' first drawn
    # point (it started from the throughput of 1 node, which does not fit)
    rc, out, err = run("curve", "resnet50", "--device", "h100", "--global-batch", "8192",
                       "--nodes", "1,2,4", "--format", "svg")

    def first_point(cls):
        at = out.find(f'<polyline class="{cls}"')
        return out[at:].split('points="')[1].split(" ")[0] if at >= 0 else None

    check(rc == 0 and first_point("series") and first_point("series") == first_point("ideal"),
          f"svg: ideal from {first_point('ideal')}, series from {first_point('series')}")
    # weak scaling above 1 with --shard (docs/scaling.md): the update shrinks per device, so
    # the step does: efficiency(2) = t_step(1) / t_step(2) at a fixed per-device batch
    rc, out, err = run("curve", "resnet152", "--device", "cpu", "--batch", "1", "--nodes", "1,2",
                       "--shard", "full", "--format", "csv")
    rows = csv_rows(out) if rc == 0 else []
    if len(rows) == 2:
        t1, t2 = float(rows[0]["t_step"]), float(rows[1]["t_step"])
        eff = float(rows[1]["efficiency"])
        check(near(eff, t1 / t2, 1e-5) and eff > 1, f"--shard full: {eff} = {t1} / {t2} > 1")
    else:
        check(False, f"curve --shard full: {rc} {err}")
    # 14. the commands of the cpu module (allreduce, bench, check-plugin) name themselves in
    # errors the library words: the module's copy of output.c never saw main's command, and
    # said "scalemeter: h100: no algorithm ..."
    rc, out, err = run("allreduce", "--device", "h100", "--algorithm", "NVLS", "--protocol",
                       "LL", "--nodes", "2")
    one_line_error(rc, err, 1, "scalemeter allreduce: h100: no algorithm of NVLS",
                   "allreduce --device: an NVLS run across nodes")
    rc, out, err = run("allreduce", "--device", os.path.join(tmp, "no-such-device"))
    one_line_error(rc, err, 1, "scalemeter allreduce: unknown device",
                   "allreduce --device: a missing description")
    # 15. check-plugin's cases file, line by line as the INI readers: fgets cut a line longer
    # than its 1024 bytes in two and read the tail as a line of its own (a long `torch =` line
    # ending "output = 9x9" failed a right case), and a NUL byte ended a value silently; a
    # byte-order mark before the first line was "expected KEY = VALUE".
    conv1d = os.path.join(os.path.dirname(SM), "..", "lib", "scalemeter", "plugins", "conv1d.so")
    cases = open("plugins/conv1d/cases.ini").read()
    torch = "torch = nn.Conv1d(4, 6, 3, stride=2, padding=1)"
    long_line = torch + " #" + "x" * (1023 - len(torch) - 2) + "output = 9x9"
    bad_cases = {"long": (cases.replace(torch, long_line, 1).encode(),
                          cases[:cases.index(torch)].count("\n") + 1,
                          "a line longer than 1023 characters"),
                 "nul": (cases.replace("kernel=3 stride=2", "kernel=3\0 stride=2", 1).encode(),
                         cases[:cases.index("kernel=3 stride=2")].count("\n") + 1,
                         "a NUL byte in the line")}
    for name, (data, line, phrase) in bad_cases.items():
        path = os.path.join(tmp, f"{name}_cases.ini")
        with open(path, "wb") as f:
            f.write(data)
        rc, out, err = run("check-plugin", conv1d, "--cases", path)
        one_line_error(rc, err, 1, f"{path}:{line}: {phrase}", f"check-plugin: {name} line")
    path = os.path.join(tmp, "bom_cases.ini")
    with open(path, "wb") as f:
        f.write(b"\xef\xbb\xbf" + cases.encode())
    rc, out, err = run("check-plugin", conv1d, "--cases", path)
    check(rc == 0 and "2 cases, 0 refusals, 2 gradient checks: all passed" in out,
          f"check-plugin reads past a byte-order mark: exit {rc} {out} {err}")
    # a folder for the cases file was "no case of type conv1d", and "-" "No such file or
    # directory" (the hostile round of 2026-11-26): said for what it is, and the standard input
    rc, out, err = run("check-plugin", conv1d, "--cases", tmp)
    one_line_error(rc, err, 1, f"{tmp}: is a folder, not a cases file", "check-plugin: a folder")
    rc, out, err = run_in(".", "check-plugin", conv1d, "--cases", "-", stdin=cases)
    check(rc == 0 and "2 cases, 0 refusals, 2 gradient checks: all passed" in out,
          f"check-plugin --cases - (the standard input): exit {rc} {out} {err}")
    # 15b. check-plugin's cases file holds what was written or says why not: sscanf's
    # "%127[^]]" cut a longer case name silently (and took a header without its ']'), and a
    # value below a float's range (1e-50, 1e-40: FLT_MIN is 1.17549e-38) was checked as 0 or
    # a subnormal. Here linear's [case values] and its input_values, at their lines.
    linear = os.path.join(os.path.dirname(SM), "..", "lib", "scalemeter", "plugins", "linear.so")
    lin = open("plugins/linear/cases.ini").read()
    lin_lines = lin.split("\n")
    at_header = lin_lines.index("[case values]") + 1
    at_values = lin_lines.index("input_values = 1 2 3") + 1
    long_name = "n" * 128
    bad_cases = {
        "name128": (lin.replace("[case values]", f"[case {long_name}]"), at_header,
                    "a [case] name of 128 characters: at most 127"),
        "refuse128": (lin.replace("[case values]", f"[refuse  {long_name} ]"), at_header,
                      "a [refuse] name of 128 characters: at most 127"),
        "unclosed": (lin.replace("[case values]", "[case values"), at_header,
                     "a section is [case NAME] or [refuse NAME], not [case values"),
        "tail": (lin.replace("[case values]", "[case values] x"), at_header,
                 "a section is [case NAME] or [refuse NAME], not [case values] x"),
        # as every INI file reads: a comment after a header or a value begins with ';', '#'
        # only on a line of its own ('#' after the header was taken, "= 40 # c" compared)
        "hash_header": (lin.replace("[case values]", "[case values] # x"), at_header,
                        "'# x' after the header: a comment after a header begins with ';'"),
        "hash_value": (lin.replace("input_values = 1 2 3", "input_values = 1 2 3 # c"),
                       at_values,
                       "input_values = 1 2 3 # c: '#' begins a comment on a line of its own"),
        # 1 x 1 + 2 x 0 + 0 x (-1) + 0.5 = 1.5, 2 + 2 + 0 - 1 = 3: the case passed with 1e-50
        # read as 0
        "underflow": (lin.replace("input_values = 1 2 3", "input_values = 1 2 1e-50")
                      .replace("output_values = -1.5 4.5", "output_values = 1.5 3"), at_values,
                      "input_values: 1e-50 is below a float's smallest normal number"),
        "subnormal": (lin.replace("input_values = 1 2 3", "input_values = 1 2 1e-40"),
                      at_values,
                      "input_values: 1e-40 is below a float's smallest normal number"),
    }
    # ';' after a blank is a comment, after a header and after a value, as in every INI file
    semi = os.path.join(tmp, "semicolon_cases.ini")
    with open(semi, "w") as f:
        f.write(lin.replace("[case values]", "[case values] ; c")
                .replace("input_values = 1 2 3", "input_values = 1 2 3 ; c"))
    rc, out, err = run("check-plugin", linear, "--cases", semi)
    check(rc == 0 and "all passed" in out, f"check-plugin: ';' comments: {rc} {out} {err}")
    for name, (text, line, phrase) in bad_cases.items():
        path = os.path.join(tmp, f"{name}_cases.ini")
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = run("check-plugin", linear, "--cases", path)
        one_line_error(rc, err, 1, f"{path}:{line}: {phrase}", f"check-plugin: {name}")
    # 127 characters, spaces around and a comment after: the name whole
    path = os.path.join(tmp, "name127_cases.ini")
    with open(path, "w") as f:
        f.write(lin.replace("[case values]", f"[case  {'n' * 127} ]  ; the longest"))
    rc, out, err = run("check-plugin", linear, "--cases", path)
    check(rc == 0 and f"case {'n' * 127} (linear)" in out and "all passed" in out,
          f"check-plugin: a 127-character name: exit {rc} {err}")
    # 15c. a message with a path of 1,200 characters kept the path and lost the reason (the
    # 1,024 bytes of an sm_status cut its end); now the path's middle goes
    deep = os.path.join(tmp, *(["d" * 200] * 6))
    os.makedirs(deep)
    net = os.path.join(deep, "net.ini")
    with open(net, "w") as f:
        f.write("[network]\nname = x\ninput = 3x8x8\n[layers]\nc = conv2d out=4 kernel=3 bogus=1\n")
    for args, tail in (
            (["metrics", net], "/net.ini:5: layer c (conv2d): unknown parameter bogus (it takes "),
            (["metrics", os.path.join(deep, "none.ini")], "/none.ini': no such file"),
            (["predict", "resnet50", "--batch", "1", "--device", os.path.join(deep, "dev.ini")],
             "/dev.ini': no such file"),
            (["predict", "resnet50", "--batch", "1", "--coeffs", net],
             "/net.ini:2: unknown section [network]")):
        rc, out, err = run(*args)
        check(rc != 0 and tail in err and "..." in err and len(err.strip().splitlines()) == 1,
              f"{args[0]} {args[-1][-12:]}: the reason after a long path: {err[-160:]!r}")
    # 15d. fit --device-out reads its base description by name (--device-base h100, or h100
    # by default); -o or --device-out naming that file replaced the shipped h100.ini, since
    # only the paths as given were compared. Kept and put back whatever happens.
    h100 = os.path.normpath(os.path.join(os.path.dirname(SM), "..", "share", "scalemeter",
                                         "configs", "devices", "h100.ini"))
    with open(h100, "rb") as f:
        shipped = f.read()
    try:
        for args, option in (
                (["--device-out", os.path.join(tmp, "d.ini"), "--device-base", "h100", "-o", h100],
                 "-o"),
                (["--device-out", os.path.join(tmp, "d.ini"), "-o", h100], "-o"),
                (["--device-out", h100, "--device-base", "h100"], "--device-out")):
            rc, out, err = run("fit", CPU_CSV, *args)
            one_line_error(rc, err, 2, f"scalemeter fit: {option} {h100} is the input {h100}",
                           f"fit {' '.join(args[-2:])}")
            with open(h100, "rb") as f:
                check(f.read() == shipped, f"fit {' '.join(args[-2:])}: h100.ini as shipped")
    finally:
        with open(h100, "wb") as f:
            f.write(shipped)
    # 16. a flag and its opposite in one command: the last one won, silently (fit
    # --weight-term --no-weight-term fitted without the weight term)
    for pair in (["--weight-term", "--no-weight-term"], ["--no-nonneg", "--nonneg"]):
        for flags in (pair, pair[::-1]):
            rc, out, err = run("fit", CPU_CSV, *flags, "-o", os.path.join(tmp, "pair.ini"))
            first, second = sorted(flags, key=len)
            one_line_error(rc, err, 2, f"scalemeter fit: {first} and {second}: one of the two",
                           f"fit {' '.join(flags)}")
    check(not os.path.exists(os.path.join(tmp, "pair.ini")), "the refused fits wrote nothing")
    rc, out, err = run("fit", CPU_CSV, "--nonneg", "--nonneg", "--weight-term", "--weight-term",
                       "-o", os.path.join(tmp, "twice.ini"))
    check(rc == 0, f"fit: a flag given twice is no contradiction: exit {rc} {err}")
    # 17. - (the standard input) for two inputs: the first read it all and the second was an
    # empty file, refused for its content ("-: no [network] section", "<stdin>: no data rows")
    # though the file piped in was whole
    net = open("models/resnet18.ini").read()
    runs = open(CPU_CSV).read()
    for args, stdin, pair in (
            (["predict", "-", "--coeffs", "-", "--batch", "8"], net, "MODEL and --coeffs"),
            (["predict", "-", "--device", "-", "--batch", "8"], net, "MODEL and --device"),
            (["curve", "resnet18,-,-", "--device", "h100", "--batch", "8", "--nodes", "1"], net,
             "MODEL 2 and MODEL 3"),
            (["curve", "-", "--device", "h100", "--framework", "-", "--batch", "8", "--nodes",
              "1"], net, "MODEL and --framework"),
            (["validate", "-", "--coeffs", "-"], runs, "RUNS.csv and --coeffs"),
            (["fit", "-", "--device-base", "-", "--device-out", os.path.join(tmp, "d.ini")],
             runs, "RUNS.csv and --device-base"),
            (["fit-comm", "-", "-"], runs, "file 1 and file 2")):
        rc, out, err = run_in(tmp, *args, stdin=stdin)
        one_line_error(rc, err, 2, f"scalemeter {args[0]}: {pair} are both - (the standard "
                       "input), which is read once: give one of them as a file", " ".join(args))
    rc, out, err = run_in(tmp, "predict", "-", "--coeffs", "default", "--batch", "8", stdin=net)
    check(rc == 0, f"predict - alone reads the network from the standard input: {err}")
    # 18. check-plugin's usage errors in one line, as every command's: getopt_long printed its
    # own ("check-plugin: unrecognized option '--bogus'"), then "scalemeter check-plugin: see
    # --help"
    for args, text in ((["--bogus"], "unknown option '--bogus'"),
                       (["--cases"], "option --cases needs a value"),
                       (["-o", "out.txt"], "unknown option '-o'")):
        rc, out, err = run("check-plugin", "mish.so", *args)
        one_line_error(rc, err, 2, f"scalemeter check-plugin: {text}",
                       f"check-plugin {' '.join(args)}")
    # 19. integer options in decimal digits alone, as the real-valued ones (plain_decimal):
    # strtol skipped a leading space and took a sign, so --batch " 12", --batch +12 and
    # --warmup -0 ran as 12 and 0; an item of a list or range likewise (--nodes "1, +2").
    # Every command's integer parser: opt_int (predict, curve, predict_options), opt_list
    # (curve's lists), parse_positive (metrics, fit-comm's FILE@NODES), parse_count
    # (allreduce), parse_int and parse_int_list (bench).
    H100 = ["--device", "h100"]
    cases = [
        (["predict", "resnet50", *H100, "--batch", "{}"], "--batch"),
        (["predict", "resnet50", *H100, "--batch", "8", "--nodes", "{}"], "--nodes"),
        (["predict", "resnet50", *H100, "--batch", "8", "-g", "{}"], "--gpus-per-node"),
        (["predict", "resnet50", *H100, "--batch", "8", "--accumulate", "{}"], "--accumulate"),
        (["predict", "resnet50", *H100, "--batch", "8", "--image", "{}"], "--image"),
        (["predict", "gpt2", *H100, "--batch", "8", "--seq", "{}"], "--seq"),
        (["predict", "resnet50", *H100, "--batch", "8", "--dataset", "{}"], "--dataset"),
        (["predict", "resnet50", *H100, "--batch", "8", "--epochs", "{}"], "--epochs"),
        (["curve", "resnet50", *H100, "--batch", "{}", "--nodes", "1"], "--batch"),
        (["curve", "resnet50", *H100, "--global-batch", "{}", "--nodes", "1"], "--global-batch"),
        (["curve", "resnet50", *H100, "--batch", "8", "--nodes", "{}"], "--nodes"),
        (["curve", "resnet50", *H100, "--batch", "8", "--nodes", "1,{}"], "--nodes"),
        (["curve", "resnet50", *H100, "--batch", "8", "--nodes", "1:{}"], "--nodes"),
        (["metrics", "resnet50", "--batch", "{}"], "--batch"),
        (["metrics", "resnet50", "--image", "{}"], "--image"),
        (["allreduce", *H100, "--nodes", "{}"], "--nodes"),
        (["allreduce", *H100, "-g", "{}"], "--gpus-per-node"),
        (["allreduce", *H100, "--iters", "{}"], "--iters"),
        (["allreduce", *H100, "--warmup", "{}"], "--warmup"),
        (["bench", "resnet18", "--batch", "{}"], "--batch"),
        (["bench", "resnet18", "--batch", "1,{}"], "--batch"),
        (["bench", "resnet18", "--image", "{}"], "--image"),
        (["bench", "resnet18", "--reps", "{}"], "--reps"),
        (["bench", "resnet18", "--warmup", "{}"], "--warmup"),
        (["bench", "resnet18", "--threads", "{}"], "--threads"),
        (["fit-comm", "runs.csv@{}"], "FILE@NODES"),
    ]
    for args, option in cases:
        for value in (" 2", "+2", "-0", "0x10", "1e3", "2abc", ""):
            argv = [a.replace("{}", value) for a in args] + ["-o", os.path.join(tmp, "int.out")]
            rc, out, err = run_in(tmp, *argv)
            # bench's lists say an empty item is one
            text = "an empty item" if "an empty item" in err and value == "" else "in decimal digits"
            one_line_error(rc, err, 2, text, f"{' '.join(argv)!r}")
            check(option in err, f"{' '.join(argv)!r}: names {option}: {err.strip()}")
    check(not os.path.exists(os.path.join(tmp, "int.out")), "the refused commands wrote nothing")
    # a network file whose name begins with a blank was written unquoted and read back trimmed,
    # another network or none (the bench round of 2026-11-26): refused before measuring
    lead = os.path.join(tmp, " lead.ini")
    shutil.copy("examples/tiny_resnet.ini", lead)
    rc, out, err = run_in(tmp, "bench", " lead.ini", "--image", "16", "--batch", "1", "-o",
                          os.path.join(tmp, "lead.csv"))
    one_line_error(rc, err, 2, "network ' lead.ini': a name beginning or ending with a blank",
                   "bench of a name beginning with a blank")
    check(not os.path.exists(os.path.join(tmp, "lead.csv")), "bench ' lead.ini' wrote a CSV")
    # an empty -o wrote '.csv' (calibrate: .csv, .ini, -loo.json, hidden) or said ": No such
    # file or directory"; --conv-algo on the CPU gave --precision's reason (the bench round)
    for args, want in ((["bench", "resnet18", "-o", ""], "-o '': an empty name"),
                       (["calibrate", "resnet18", "-o", ""], "-o: a prefix names the files"),
                       (["calibrate", "resnet18", "-o", "cal/"], "give the name after the folder"),
                       (["bench", "resnet18", "--conv-algo", "heuristic", "-o", "x.csv"],
                        "--conv-algo: only with --backend cuda (cuDNN's algorithms")):
        rc, out, err = run_in(tmp, *args)
        one_line_error(rc, err, 2, want, " ".join(args))
    check(not {".csv", ".ini", "-loo.json"} & set(os.listdir(tmp)), "an empty prefix wrote files")
    # --shard full runs its collectives by FSDP unit: DDP's bucket size and overlap were taken,
    # said in the header and the JSON, and changed nothing (the hostile round of 2026-11-26)
    for cmd in (["predict", "gpt2"], ["curve", "gpt2"]):
        for extra in (["--overlap"], ["--bucket-mib", "1"]):
            rc, out, err = run(*cmd, *H100, "--batch", "8", "--nodes", "2", "--shard", "full",
                               *extra)
            one_line_error(rc, err, 2, "--shard full runs its collectives by FSDP unit",
                           f"{cmd[0]} --shard full {' '.join(extra)}")
    # digits alone, a leading zero among them, are a decimal integer
    rc, out, err = run("predict", "resnet50", *H100, "--batch", "012", "--format", "json")
    check(rc == 0 and json.loads(out or "{}").get("batch") == 12, f"--batch 012: {rc} {err}")
    # an option given twice with two values used the last without a word (round 7): said,
    # named by its long name whichever spelling came first; the same value twice is silent
    for args, want in ((["predict", "resnet50", *H100, "--batch", "8", "--batch", "16"],
                        "--batch given twice (8, then 16): 16 is used"),
                       (["predict", "resnet50", *H100, "--batch", "8", "-g", "1",
                         "--gpus-per-node", "2"], "--gpus-per-node given twice (1, then 2)"),
                       (["curve", "resnet50", *H100, "--batch", "8", "--nodes", "1",
                         "--nodes", "2", "--format", "json"], "--nodes given twice (1, then 2)"),
                       (["fit", CPU_CSV, "--weighting", "none", "--weighting", "relative",
                         "-o", os.path.join(tmp, "twice.ini")],
                        "--weighting given twice (none, then relative)")):
        rc, out, err = run(*args)
        check(rc == 0, f"{' '.join(args)}: exit {rc}: {err.strip()}")
        check(f"warning: {want}" in err, f"{' '.join(args)}: expected '{want}' in: {err.strip()}")
    # a device name that the coefficient file cannot carry: a line break wrote "[fit]" and a key
    # of its own into the file, which predict then refused ("precision given twice"), and ' ;'
    # came back cut (round 7); refused, one line, nothing written. An empty name is refused as
    # an option; a ';' without a blank before it reads back whole.
    twice = os.path.join(tmp, "named.ini")
    for name, want in (("evil\n[fit]\nprecision = fp32", "'evil\\x0a[fit]\\x0aprecision"),
                       ("cafe ; x", "'cafe ; x'")):
        rc, out, err = run("fit", CPU_CSV, "--no-weight-term", "--device-name", name, "-o", twice)
        one_line_error(rc, err, 1, "its [fit] device would not read back as given", name)
        check(want in err, f"--device-name {name!r}: {err.strip()}")
        check(not os.path.exists(twice), f"--device-name {name!r} wrote the file")
    rc, out, err = run("fit", CPU_CSV, "--device-name", "", "-o", twice)
    one_line_error(rc, err, 2, "--device-name '': an empty name", "--device-name ''")
    with open(CPU_CSV) as f:
        rows = f.read().replace(",cpu,1,", ',"cpu\nnode 7",1,')
    quoted = os.path.join(tmp, "quoted-device.csv")
    with open(quoted, "w") as f:
        f.write(rows)
    rc, out, err = run("fit", quoted, "--no-weight-term", "-o", twice)
    one_line_error(rc, err, 1, "'cpu\\x0anode 7'", "a runs CSV's device with a line break")
    rc, out, err = run("fit", CPU_CSV, "--no-weight-term", "--device-name", "cafe; x", "-o", twice)
    check(rc == 0 and "device = cafe; x\n" in open(twice).read(), f"cafe; x: {err.strip()}")
    rc, out, err = run("predict", "resnet18", "--coeffs", twice, "--batch", "1")
    check(rc == 0 and "cafe; x" in out, f"cafe; x read back: {err.strip()} {out[:200]}")
    # what stderr warns of is in the JSON's "warning" too (docs/output.md); curve's --nodes 1:3,
    # fit's and validate's runs-CSV warnings and an option given twice were on stderr alone
    # (round 7)
    ROUNDS = os.path.abspath("configs/calibrations/h200-pytorch-bf16-rounds.csv")
    ZERO_J = os.path.abspath("configs/calibrations/h100-scalemeter-fp32.csv")
    for args, want in (
            (["curve", "resnet50", *H100, "--batch", "8", "--nodes", "1:3"],
             "--nodes 1:3: doubling from 1 stops at 2"),
            (["predict", "resnet50", *H100, "--batch", "8", "--batch", "16"],
             "--batch given twice (8, then 16)"),
            (["fit", ROUNDS, "--no-weight-term"], "the configuration of line 8 measured again"),
            (["fit", ROUNDS, "--no-weight-term", "--cv", "loo"], "measured again"),
            (["validate", ZERO_J, "--coeffs", "h100-scalemeter-fp32"], "read 0 J")):
        rc, out, err = run(*args, "--format", "json")
        doc = json.loads(out) if rc == 0 and out.strip() else {}
        check(rc == 0 and want in err and want in (doc.get("warning") or ""),
              f"{args[0]} JSON warning: exit {rc}: {doc.get('warning')!r}; stderr {err.strip()}")
    # help takes one command: `help predict extra` printed predict's help and exited 0
    rc, out, err = run("help", "predict", "extra")
    one_line_error(rc, err, 2, "help: one command at a time ('extra' after predict", "help x y")
    # CSV's memory is the peak plus the context; JSON's memory.peak leaves the context out, so a
    # field-by-field comparison failed (round 7): memory.total is the CSV's number
    rc, out, err = run("predict", "gpt2", *H100, "--batch", "8", "--format", "csv")
    csv_memory = int(csv_rows(out)[0]["memory"]) if rc == 0 else -1
    doc = good_json("predict", "gpt2", *H100, "--batch", "8").get("memory", {})
    check(csv_memory == doc.get("total") == doc.get("peak", 0) + doc.get("context", 0) > 0,
          f"memory: CSV {csv_memory}, JSON {doc}")
    rc, out, err = run("predict", "resnet50", *H100, "--batch", "8", "--batch", "8")
    check(rc == 0 and "given twice" not in err, f"--batch 8 --batch 8: {err.strip()}")
    # options that change nothing were taken without a word (round 23's audit): the
    # all-reduce's on one device, --attention on a network without attention; each is a
    # warning on stderr and in the JSON, and the numbers are those without it
    plain = good_json("predict", "resnet50", *H100, "--batch", "8", "-g", "1")
    for extra, option in ((["--overlap"], "--overlap"), (["--bucket-mib", "100"], "--bucket-mib"),
                          (["--algorithm", "Ring"], "--algorithm"),
                          (["--protocol", "Simple"], "--protocol"),
                          (["--collective", "ring"], "--collective"),
                          (["--attention", "eager"], "--attention eager")):
        rc, out, err = run("predict", "resnet50", *H100, "--batch", "8", "-g", "1", *extra,
                           "--format", "json")
        doc = json.loads(out) if rc == 0 else {}
        check(rc == 0 and f"warning: {option} changes nothing" in err
              and f"{option} changes nothing" in (doc.get("warning") or "")
              and doc.get("t_step") == plain.get("t_step"),
              f"{option} on one device / a CNN: exit {rc}: {err.strip()}")
    for args in ((*H100, "-g", "2", "--overlap"), (*H100, "-g", "1", "--nodes", "2", "--overlap")):
        rc, out, err = run("predict", "resnet50", "--batch", "8", *args)
        check(rc == 0 and "changes nothing" not in err, f"{args}: {err.strip()}")
    rc, out, err = run("curve", "resnet50", *H100, "--batch", "8", "-g", "1", "--nodes", "1,2",
                       "--overlap")
    check(rc == 0 and "changes nothing" not in err, f"curve to 2 nodes, --overlap: {err.strip()}")
    rc, out, err = run("predict", "bert_base", *H100, "--batch", "8", "--attention", "eager")
    check(rc == 0 and "changes nothing" not in err, f"bert_base --attention: {err.strip()}")
    # the model read from - was labelled "-" in curve's rows, which CSV readers take for a
    # missing value: its network's name, "(stdin)" after it where another model has it
    with open("models/resnet18.ini") as f:
        r18 = f.read()
    for given, want in (("resnet50,-", "resnet18"), ("resnet18,-", "resnet18 (stdin)")):
        p = subprocess.run([SM, "curve", given, *H100, "--batch", "8", "--nodes", "1", "--format",
                            "csv"], capture_output=True, text=True, input=r18)
        models = [row["model"] for row in csv_rows(p.stdout)] if p.returncode == 0 else []
        check(models == [given.split(",")[0], want], f"curve {given}: {models} {p.stderr.strip()}")
    # predict, curve's one-point case, labelled it "-" in every output: the network's name,
    # "stdin" for a network that names none (whose name was its file's, "-"), in curve too
    nameless = "[network]\ninput = 3x8x8\n[layers]\na = conv2d out=4 kernel=1\n"
    for text, want in ((r18, "resnet18"), (nameless, "stdin")):
        base = [SM, "predict", "-", *H100, "--batch", "2"]
        p = subprocess.run(base + ["--format", "csv"], capture_output=True, text=True, input=text)
        models = [row["model"] for row in csv_rows(p.stdout)] if p.returncode == 0 else []
        check(models == [want], f"predict - csv: {models} {p.stderr.strip()}")
        for extra in ([], ["--per-layer"], ["--per-block"]):
            p = subprocess.run(base + extra + ["--format", "json"], capture_output=True,
                               text=True, input=text)
            got = json.loads(p.stdout).get("model") if p.returncode == 0 else p.stderr
            check(got == want, f"predict - {extra} json: model {got!r}, want {want!r}")
        p = subprocess.run(base, capture_output=True, text=True, input=text)
        check(p.returncode == 0 and p.stdout.startswith(want + " (-), input"),
              f"predict - table: {p.stdout[:60]!r}")
        # --per-layer's table headed a nameless network "-", its file's name
        p = subprocess.run(base + ["--per-layer"], capture_output=True, text=True, input=text)
        check(p.returncode == 0 and p.stdout.startswith(want + ", batch 2 per device: h100 ("),
              f"predict - --per-layer table: {p.stdout[:60]!r}")
        p = subprocess.run([SM, "curve", "-", *H100, "--batch", "2", "--nodes", "1", "--format",
                            "csv"], capture_output=True, text=True, input=text)
        models = [row["model"] for row in csv_rows(p.stdout)] if p.returncode == 0 else []
        check(models == [want], f"curve - csv: {models} {p.stderr.strip()}")
    # and its table of the inference pass alone, where training does not fit: 16x1024x1024
    # floats are 64 MiB a sample, 20 GiB at batch 320; inference holds at most three such
    # tensors (60 GiB, in H100's 80 GB), training keeps three for the backward pass and needs
    # their gradients beside them
    wide = ("[network]\ninput = 16x1024x1024\n[layers]\na = conv2d out=16 kernel=3 padding=1\n"
            "b = relu\nc = conv2d out=16 kernel=3 padding=1\n")
    p = subprocess.run([SM, "predict", "-", *H100, "--batch", "320", "-g", "1", "--per-layer"],
                       capture_output=True, text=True, input=wide)
    lines = p.stdout.splitlines()
    check(p.returncode == 0 and len(lines) > 1 and
          lines[0].startswith("stdin, batch 320 per device: h100 (") and
          lines[1].startswith("the inference pass, layer by layer: training does not fit"),
          f"predict - --per-layer, inference alone: {lines[:2]}")
    # a list starting with - read as a cluster of short options ("unknown option '-,'")
    rc, out, err = run("curve", "-,resnet50", *H100, "--batch", "8")
    one_line_error(rc, err, 2, "'-,resnet50' reads as options: give a list that starts with - "
                   "(the standard input) after --", "-,resnet50")
    p = subprocess.run([SM, "curve", *H100, "--batch", "8", "--nodes", "1", "--format", "csv",
                        "--", "-,resnet50"], capture_output=True, text=True, input=r18)
    models = [row["model"] for row in csv_rows(p.stdout)] if p.returncode == 0 else []
    check(models == ["resnet18", "resnet50"], f"curve -- -,resnet50: {models} {p.stderr.strip()}")
    # a plugin folder holding mish_gpu.so and no mish.so: every scan skips a companion as its
    # plugin's kernels, and "unknown layer type 'mish'" named no file (the measuring commands'
    # audit); the message names the companion. Its content is not read: an empty file
    plugins = os.path.join(tmp, "orphans")
    os.mkdir(plugins)
    open(os.path.join(plugins, "mish_gpu.so"), "w").close()
    mish = os.path.join(tmp, "mish.ini")
    with open(mish, "w") as f:
        f.write("[network]\ninput = 3x8x8\n[layers]\na = mish\n")
    p = subprocess.run([SM, "metrics", mish], capture_output=True, text=True,
                       env=dict(os.environ, SCALEMETER_PLUGIN_PATH=plugins))
    one_line_error(p.returncode, p.stderr, 1, f"unknown layer type 'mish': {plugins}/mish_gpu.so "
                   "is a companion module (a plugin's kernels), and no mish.so beside it",
                   "an orphan companion")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

finish()
