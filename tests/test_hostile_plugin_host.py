"""A user's plugin that misbehaves inside the host (tests/hostile_plugin.c, tests/hostile.cmake):
- one that prints to standard output while it loads and counts must not corrupt a command's
  results: metrics --format json stays one JSON document, the plugin's lines go to stderr;
- one whose metrics calls exit(0) must not end the command with status 0 and no output: the
  command fails with a line naming the plugin's type;
- kernel_exits.so, whose CPU kernel calls exit(0) while bench measures: bench fails naming
  the kernel, its type and plugin;
- kernel_crashes.so, whose CPU kernel faults while check-plugin or bench runs it: a line names
  the kernel, the type, the plugin and the case (or bench) before the process dies of it;
- ctor_spins.so, whose constructor never returns: loading ends after ten times
  SCALEMETER_PLUGIN_TIMEOUT naming the plugin;
- spins.so, whose metrics never returns: the command ends after SCALEMETER_PLUGIN_TIMEOUT
  seconds naming the plugin, instead of hanging;
- shadow.so, named otherwise, provides conv2d as the shipped conv2d.so does: every command is
  refused with the duplicate error naming both files, whichever type its network asks for
  first, never silently using one of them;
- sets_locale.so, whose constructor calls setlocale(LC_ALL, "") as Qt and GTK do: under a
  German locale predict's CSV and JSON kept '.' (they wrote "6,3e-05");
- prints_late.so, whose destructor and atexit handler print: nothing follows the JSON document
  on stdout or in -o's file;
- quick_exits.so, whose metrics calls quick_exit(0): a failure naming the type, as exit(0).

usage: test_hostile_plugin_host.py SCALEMETER HOSTILE_FOLDER LOCALE_FOLDER
  (LOCALE_FOLDER holds de_DE.UTF-8, built by localedef; the locale check skips without it)
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

from cli_checks import SM, check, finish

HOSTILE = sys.argv[2]
LOCALES = sys.argv[3] if len(sys.argv) > 3 else ""


def run_with(folder, *args, **extra_env):
    env = dict(os.environ, SCALEMETER_PLUGIN_PATH=os.path.join(HOSTILE, folder), **extra_env)
    p = subprocess.run([SM, *args], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def network(tmp, name, layers):
    path = os.path.join(tmp, name + ".ini")
    with open(path, "w") as f:
        f.write(f"[network]\nname = {name}\ninput = 3x8x8\n[layers]\n{layers}")
    return path


def inside(net, line, plugin_type, folder):
    """How a message names the code of layer h of net (at its line) that ended the process:
    the network's file and line, the layer, its type and the plugin's file."""
    so = os.path.join(HOSTILE, folder, folder + ".so")
    return f"{net}:{line}: layer h: the plugin of layer type '{plugin_type}' ({so})"


def predict_dies(tmp, folder, name, layers, plugin_type, how, what):
    """predict of a network whose plugin ends the process: one line on stderr names the layer's
    line, its type and plugin, then says HOW, before anything is printed on stdout."""
    net = network(tmp, name, layers)
    rc, out, err = run_with(folder, "predict", net, "--device", "h100", "-g", "1", "--batch", "4")
    line = 5 + layers.split("\n").index(next(x for x in layers.split("\n") if x.startswith("h =")))
    want = f"scalemeter: {inside(net, line, plugin_type, folder)}{how}; the command did not finish"
    check(rc != 0 and out == "" and err.startswith(want),
          f"predict with a plugin {what}: exit {rc}: {err[:300]!r}")


with tempfile.TemporaryDirectory() as tmp:
    # prints: stdout is the JSON document alone; every print went to stderr
    net = network(tmp, "prints", "a = relu\nh = test_hostile_prints\n")
    rc, out, err = run_with("prints", "metrics", net, "--format", "json")
    check(rc == 0, f"metrics with a printing plugin: exit {rc}: {err.strip()}")
    try:
        doc = json.loads(out)
        check(doc.get("model") == "prints", f"metrics json names the network: {doc}")
    except ValueError:
        check(False, f"metrics --format json is not JSON with a printing plugin: {out!r}")
    check("hostile plugin output" not in out, f"a plugin's print reached stdout: {out!r}")
    for what in ("a constructor", "parse", "infer", "metrics"):
        check(f"hostile plugin output from {what}" in err,
              f"the plugin's print from {what} is on stderr: {err!r}")

    # exits: a failure naming the type, not status 0
    net = network(tmp, "exits", "h = test_hostile_exits\n")
    rc, out, err = run_with("exits", "metrics", net, "--format", "json")
    check(rc != 0, f"metrics with a plugin calling exit(0) exited {rc}")
    check(out == "", f"no result printed: {out!r}")
    want = (f"scalemeter: {inside(net, 5, 'test_hostile_exits', 'exits')} called exit() inside "
            "scalemeter; the command did not finish")
    check(err.startswith(want), f"stderr starts with '{want}': {err!r}")

    # kernel_exits: its CPU kernel calls exit(0) while bench measures: the command fails,
    # saying so, and leaves no row claiming a measurement
    net = network(tmp, "kexits", "a = relu\nk = test_kernel_exits\n")
    runs = os.path.join(tmp, "kexits.csv")
    rc, out, err = run_with("kernel_exits", "bench", net, "--image", "8", "--batch", "1",
                            "--reps", "1", "--warmup", "1", "--min-time", "0.01", "--threads",
                            "1", "-o", runs)
    check(rc != 0, f"bench with a kernel calling exit(0) exited {rc}: {err.strip()}")
    so = os.path.join(HOSTILE, "kernel_exits", "kernel_exits.so")
    check(f"scalemeter: the CPU forward kernel of layer type 'test_kernel_exits' (plugin {so}) "
          "in bench called exit() inside scalemeter; the command did not finish" in err,
          f"bench says the kernel ended it: {err!r}")

    # kernel_crashes under bench: Open MPI's backtrace alone named no plugin or kernel
    net = network(tmp, "kcrash", "a = relu\nk = test_kernel_crashes\n")
    so = os.path.join(HOSTILE, "kernel_crashes", "kernel_crashes.so")
    rc, out, err = run_with("kernel_crashes", "bench", net, "--image", "8", "--batch", "1",
                            "--reps", "1", "--warmup", "1", "--min-time", "0.01", "--threads",
                            "1", "-o", os.path.join(tmp, "kcrash.csv"))
    want = (f"scalemeter: the CPU forward kernel of layer type 'test_kernel_crashes' (plugin "
            f"{so}) in bench crashed (a fault inside its code); the command did not finish")
    check(rc != 0 and want in err, f"bench with a kernel that faults: exit {rc}: {err[:400]!r}")

    # a constructor that never returns: `scalemeter plugins` hung for good; loading has ten
    # times SCALEMETER_PLUGIN_TIMEOUT, here 10 s
    spin = os.path.join(HOSTILE, "ctor_spins", "ctor_spins.so")
    rc, out, err = run_with("ctor_spins", "plugins", SCALEMETER_PLUGIN_TIMEOUT="1")
    want = (f"scalemeter: plugin {spin} did not finish loading within 10 s (an endless loop in a "
            "constructor or its entry point?); the command did not finish "
            "(SCALEMETER_PLUGIN_TIMEOUT sets the limit in seconds, ten times it for loading)")
    check(rc == 1 and err.strip() == want, f"plugins with a constructor that spins: exit {rc}: "
          f"{err[:400]!r}")

    # kernel_crashes: check-plugin died with "Segmentation fault" alone, naming no plugin,
    # kernel or case
    so = os.path.join(HOSTILE, "kernel_crashes", "kernel_crashes.so")
    cases = os.path.join(tmp, "kernel_crashes_cases.ini")
    with open(cases, "w") as f:
        f.write("[case one]\ninput = 8\nlayer = test_kernel_crashes\n")
    rc, out, err = run_with("kernel_crashes", "check-plugin", so, "--cases", cases)
    want = (f"scalemeter: the CPU forward kernel of layer type 'test_kernel_crashes' (plugin "
            f"{so}) in case one ({cases}:1) crashed (a fault inside its code); the command did "
            "not finish")
    check(rc != 0 and err.startswith(want),
          f"check-plugin with a kernel that faults: exit {rc}: {err[:400]!r}")

    # shadow: conv2d asked for first, or relu first and conv2d after, or conv2d never
    dup = "layer type 'conv2d' is already provided by"
    rename = "; give your type another name"
    for layers in ("c = conv2d out=4 kernel=3\nr = relu\n", "r = relu\nc = conv2d out=4 kernel=3\n",
                   "r = relu\n"):
        net = network(tmp, "shadow", layers)
        rc, out, err = run_with("shadow", "metrics", net)
        first = layers.splitlines()[0]
        check(rc != 0, f"metrics ({first}) with shadow.so providing conv2d exited 0: {out!r}")
        check(dup in err and "shadow.so" in err and "conv2d.so" in err,
              f"({first}) the duplicate error names both files: {err!r}")
        check(rename in err, f"({first}) the duplicate error says what to do: {err!r}")
        check(err.count("\n") == 1, f"({first}) one line: {err!r}")
    rc, out, err = run_with("shadow", "plugins")
    check(rc != 0 and dup in err, f"plugins with shadow.so: exit {rc}: {err!r}")

    # saved() declaring what no layer keeps: 2^63 - 2 elements of its own a sample (accepted,
    # predict printed activations of 295147905179353088000 bytes at batch 4 and check-plugin
    # passed it), and input 1 of a layer of one input (refused without saying what was
    # wrong): each refused in one line naming the layer, its type and the field
    for kind, want in (("saved_huge", "the plugin's saved() declares extra_elems "
                        "9223372036854775806: its bytes a sample overflow 64 bits"),
                       ("saved_input", "the plugin's saved() keeps input 1 (inputs 0x2) of a "
                        "layer of 1 input")):
        net = network(tmp, kind, f"a = relu\nh = test_hostile_{kind}\n")
        rc, out, err = run_with(kind, "predict", net, "--device", "h100", "-g", "1", "--batch",
                                "4", "--format", "json")
        check(rc == 1 and out == "" and err.count("\n") == 1 and
              f"{kind}.ini:6: layer h (test_hostile_{kind}): {want}" in err,
              f"predict with {kind}: exit {rc}: {err!r} {out[:200]!r}")
        so = os.path.join(HOSTILE, kind, f"{kind}.so")
        cases = os.path.join(tmp, f"{kind}_cases.ini")
        with open(cases, "w") as f:
            f.write(f"[case one]\ninput = 8\nlayer = test_hostile_{kind}\ngradient = no\n")
        rc, out, err = run_with(kind, "check-plugin", so, "--cases", cases)
        check(rc != 0 and f"FAIL {cases}:1 case one (test_hostile_{kind}): does not load: "
              f"{cases}:3: layer g (test_hostile_{kind}): {want}" in out,
              f"check-plugin {kind}: exit {rc}: {out!r} {err!r}")

    # traits with bits plugin.h names no trait for: ignored, the plugin got less than it
    # declared; refused at load, naming the file, the type and the unknown bits
    so = os.path.join(HOSTILE, "unknown_traits", "unknown_traits.so")
    want = (f"{so}: layer type 'test_hostile_unknown_traits' declares traits 0xffffffff, of "
            "which 0xffff8000 are no SM_TRAIT_ of plugin.h")
    rc, out, err = run_with("unknown_traits", "plugins")
    check(rc == 1 and err.count("\n") == 1 and want in err,
          f"plugins with unknown traits: exit {rc}: {err!r}")
    net = network(tmp, "traits", "h = test_hostile_unknown_traits\n")
    rc, out, err = run_with("unknown_traits", "predict", net, "--device", "h100", "-g", "1",
                            "--batch", "4")
    check(rc == 1 and out == "" and want in err, f"predict with unknown traits: {rc} {err!r}")

    # 2^63 - 2 weights: the count fits, its bytes (4 a weight) do not; every command failed
    # naming no file or line ("layer h: counts at batch 1 overflow 64 bits (a smaller batch or
    # input keeps them in range)"), and check-plugin passed the plugin
    want = ("layer h (test_hostile_huge_weights): its counts at batch 1 overflow 64 bits "
            "(weights 9223372036854775806")
    net = network(tmp, "huge_weights", "a = relu\nh = test_hostile_huge_weights\n")
    rc, out, err = run_with("huge_weights", "predict", net, "--device", "h100", "-g", "1",
                            "--batch", "4")
    check(rc == 1 and out == "" and err.count("\n") == 1 and f"huge_weights.ini:6: {want}" in err,
          f"predict with 2^63 - 2 weights: exit {rc}: {err!r}")
    so = os.path.join(HOSTILE, "huge_weights", "huge_weights.so")
    cases = os.path.join(tmp, "huge_weights_cases.ini")
    with open(cases, "w") as f:
        f.write("[case one]\ninput = 8\nlayer = test_hostile_huge_weights\ngradient = no\n")
    rc, out, err = run_with("huge_weights", "check-plugin", so, "--cases", cases)
    check(rc != 0 and "does not load: " in out and
          want.replace("layer h ", "layer g ") in out,
          f"check-plugin with 2^63 - 2 weights: exit {rc}: {out!r} {err!r}")

    # a fault inside metrics: the process dies of it, as it must (the plugin's state cannot be
    # trusted), but first says whose code it was; it died with "Segmentation fault" alone
    predict_dies(tmp, "metrics_crash", "metrics_crash",
                 "a = relu\nh = test_hostile_metrics_crash\n", "test_hostile_metrics_crash",
                 " crashed in its metrics (a fault inside its code)", "crashing in metrics")

    # abort() (a failed assert), an integer division by zero and a recursion that overflows
    # the stack ended the process with "Aborted", "Floating point exception" or "Segmentation
    # fault" alone, naming no plugin: the guard took SIGSEGV and SIGBUS only, on the stack the
    # recursion had used up
    for kind, how in (("aborts", " aborted in its metrics (abort() or a failed assert() inside "
                       "its code)"),
                      ("divides", " crashed in its metrics (a fault inside its code)"),
                      ("recurses", " crashed in its infer (a fault inside its code)")):
        predict_dies(tmp, kind, kind, f"a = relu\nh = test_hostile_{kind}\n",
                     f"test_hostile_{kind}", how, f"that {kind}")

    # a callback writing 64 KiB past a struct the host hands it (a memset of the wrong size)
    # corrupted the host's heap, to crash later inside malloc naming nothing or to leave a
    # wrong number: each struct now ends against a page no one may touch, and the write faults
    # inside the plugin's call, which names it. past=none, the same plugin well behaved, runs.
    net = network(tmp, "overruns_none", "a = relu\nh = test_hostile_overruns past=none\n")
    rc, out, err = run_with("overruns", "predict", net, "--device", "h100", "-g", "1",
                            "--batch", "4")
    check(rc == 0 and "t_step" in out, f"predict with a plugin that overruns nothing: exit {rc}: "
          f"{err[:300]!r}")
    # The message says which callback wrote past which struct: psize0.so, of params_size 0,
    # writing its 8-byte struct, was "crashed (a fault inside its code)", naming no file.
    overran = {
        "params": "parse wrote past params_size (4 bytes): set .params_size = sizeof(your "
                  "params struct)",
        "output": "infer wrote past the output shape it was handed (one sm_shape)",
        "metrics": "metrics wrote past the sm_layer_metrics it was handed",
        "saved": "saved wrote past the sm_layer_saved it was handed",
        "strides": "view_strides wrote past the SM_MAX_DIMS strides it was handed",
        "error": "metrics wrote past its sm_error (SM_ERROR_LEN bytes: write the reason with "
                 "sm_error_set)",
    }
    for past, how in overran.items():
        predict_dies(tmp, "overruns", "overruns_" + past,
                     f"a = relu\nh = test_hostile_overruns past={past}\n",
                     "test_hostile_overruns", f": its {how}", f"writing past its {past}")

    # metrics that never returns: the command hung with no word (ctest's timeout was the only
    # end); past SCALEMETER_PLUGIN_TIMEOUT seconds it ends naming the plugin
    net = network(tmp, "spins", "a = relu\nh = test_hostile_spins\n")
    rc, out, err = run_with("spins", "predict", net, "--device", "h100", "-g", "1", "--batch",
                            "4", SCALEMETER_PLUGIN_TIMEOUT="1")
    want = (f"scalemeter: {inside(net, 6, 'test_hostile_spins', 'spins')} did not return "
            "within 1 s (an endless loop inside its code?); the command did not finish "
            "(SCALEMETER_PLUGIN_TIMEOUT sets the limit in seconds)")
    check(rc == 1 and out == "" and err.strip() == want,
          f"predict with a plugin that spins: exit {rc}: {err[:300]!r}")
    # the limit itself is checked: a word is refused in one line naming the variable
    for bad in ("soon", "-1", "86401"):
        rc, out, err = run_with("spins", "metrics", net, SCALEMETER_PLUGIN_TIMEOUT=bad)
        check(rc == 1 and err.count("\n") == 1 and
              f"SCALEMETER_PLUGIN_TIMEOUT={bad}: expected whole seconds from 0" in err,
              f"SCALEMETER_PLUGIN_TIMEOUT={bad}: exit {rc}: {err!r}")
    # a plugin that returns is not limited by it: 0 turns it off, and a zoo network counts
    rc, out, err = run_with("prints", "metrics", "resnet50", SCALEMETER_PLUGIN_TIMEOUT="0")
    check(rc == 0, f"metrics resnet50 with no limit: exit {rc}: {err[:300]!r}")

    # a constructor's setlocale(LC_ALL, "") under de_DE: predict wrote "6,30165e-05" into its
    # CSV (more fields than the header) and its JSON (no JSON), with status 0. The plugin need
    # not be in the network: SCALEMETER_PLUGIN_PATH's plugins all load at the first lookup
    if os.path.isdir(os.path.join(LOCALES, "de_DE.UTF-8")):
        net = network(tmp, "locale", "a = relu\n")
        german = {"LOCPATH": LOCALES, "LC_ALL": "de_DE.UTF-8"}
        rc, out, err = run_with("sets_locale", "predict", net, "--device", "h100", "--batch",
                                "8", "--format", "csv", **german)
        rows = list(csv.reader(io.StringIO(out)))
        check(rc == 0 and len(rows) == 2 and len(rows[1]) == len(rows[0]),
              f"predict csv with a plugin taking de_DE: exit {rc}: {out!r} {err!r}")
        if rc == 0 and len(rows) == 2:
            t_infer = dict(zip(rows[0], rows[1])).get("t_infer", "")
            check("," not in t_infer and float(t_infer) > 0, f"t_infer is a number: {t_infer!r}")
        rc, out, err = run_with("sets_locale", "predict", net, "--device", "h100", "--batch",
                                "8", "--format", "json", **german)
        try:
            check(rc == 0 and json.loads(out)["t_infer"] > 0, f"predict json: exit {rc}")
        except ValueError:
            check(False, f"predict --format json is no JSON with a plugin taking de_DE: {out!r}")
    else:
        print(f"note: no de_DE.UTF-8 in {LOCALES!r} (localedef): the locale check is skipped")

    # a destructor and an atexit handler that print as the process ends: their lines followed
    # the JSON document ("Extra data"), on stdout or in -o's file
    lines = ("hostile plugin output from an atexit handler",
             "hostile plugin output from a destructor")
    written = os.path.join(tmp, "late.json")
    for to_file in (False, True):
        rc, out, err = run_with("prints_late", "metrics", "resnet18", "--format", "json",
                                *(("-o", written) if to_file else ()))
        if to_file:
            with open(written) as f:
                out = f.read()
        try:
            check(rc == 0 and json.loads(out)["model"] == "resnet18",
                  f"metrics json (-o: {to_file}) with late prints: exit {rc}: {err!r}")
        except ValueError:
            check(False, f"metrics json (-o: {to_file}) is no JSON with late prints: {out!r}")
        check(all(line in err for line in lines), f"the late prints are on stderr: {err!r}")

    # quick_exit(0) inside metrics skips atexit's handlers: status 0 and no output at all
    net = network(tmp, "quick_exits", "h = test_hostile_quick_exits\n")
    rc, out, err = run_with("quick_exits", "metrics", net, "--format", "json")
    want = (f"scalemeter: {inside(net, 5, 'test_hostile_quick_exits', 'quick_exits')} called "
            "quick_exit() inside scalemeter; the command did not finish")
    check(rc == 1 and out == "" and err.startswith(want),
          f"metrics with a plugin calling quick_exit(0): exit {rc}: {err!r}")

finish()
