#!/usr/bin/env python3
"""The shipped calibrations (configs/calibrations/*.ini) are what `scalemeter fit` makes of
their own CSVs today: each is refitted from the CSV its [fit] section names, with the options
that section records, and every key must come back (numbers within 1e-6, the date aside).

A coefficient file goes stale when a network's counts (F, I, O, W, K) or the fit's terms
change after it was written: the default calibration was fitted on counts eleven commits
older than the code that read it, and it had no `backend` key, so predictions made with it
counted CUDA's dropout masks for a CPU. tools/accuracy_report.py refits them all.

usage: test_shipped_calibrations.py SCALEMETER   (run from the source root)
"""
import configparser
import glob
import os
import tempfile

from cli_checks import check, finish, run

FLAGS = {"nonneg": ("--nonneg", "--no-nonneg"), "weight_term": ("--weight-term",
                                                                 "--no-weight-term"),
         "update_term": ("--update-term", None)}
VALUED = {"form": "--form", "weighting": "--weighting", "grad_model": "--grad-model",
          "bucket_mb": "--bucket-mib", "idle_watts": "--idle-watts", "device": "--device-name"}


def read(path):
    ini = configparser.ConfigParser(inline_comment_prefixes=None, interpolation=None)
    ini.read(path)
    return ini


def options(fit):
    """The fit's options as `scalemeter fit` takes them, from the [fit] section written."""
    opts = []
    for key, flag in VALUED.items():
        if key in fit:
            opts += [flag, fit[key]]
    for key, (yes, no) in FLAGS.items():
        flag = yes if fit.get(key) == "yes" else no
        if flag:
            opts.append(flag)
    return opts


def same(a, b):
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    return abs(x - y) <= 1e-6 * max(abs(x), abs(y)) + 1e-300


shipped = sorted(glob.glob("configs/calibrations/*.ini"))
check(len(shipped) >= 5, f"the shipped calibrations: {shipped}")
with tempfile.TemporaryDirectory() as tmp:
    for path in shipped:
        old = read(path)
        fit = old["fit"]
        out = os.path.join(tmp, os.path.basename(path))
        rc, _, err = run("fit", fit["source"], *options(fit), "-o", out)
        check(rc == 0, f"{path}: refitting {fit['source']}: {err.strip()}")
        if rc:
            continue
        new = read(out)
        check(old.sections() == new.sections(),
              f"{path}: sections {old.sections()}, refitted {new.sections()}")
        stale = [f"[{s}] {k} = {old[s].get(k)}, refitted {new[s].get(k)}"
                 for s in new.sections() if s in old
                 for k in sorted(set(old[s]) | set(new[s])) if (s, k) != ("fit", "date")
                 and not same(old[s].get(k, "(none)"), new[s].get(k, "(none)"))]
        check(not stale, f"{path} is stale against {fit['source']} (refit it with "
              f"tools/accuracy_report.py): " + "; ".join(stale[:4]))
finish()
