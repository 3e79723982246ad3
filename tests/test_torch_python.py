#!/usr/bin/env python3
"""SCALEMETER_PYTHON, the interpreter the torch tools (tools/torch_python.py) re-run under: where
the user sets it, it is the one used, and one that cannot be (missing, a folder, not executable,
without the modules) stops the tool with one line naming the variable and the path, rather than
another interpreter running in its place. Needs no torch: require_torch is asked for a module
that is there (json) or one that is nowhere.

usage: test_torch_python.py SCALEMETER   (run from the source root)
"""
import os
import stat
import subprocess
import sys
import tempfile

from cli_checks import SM, check, finish

NOWHERE = "sm_no_such_module_anywhere"


def require(modules, value):
    """require_torch('tool', modules) under SCALEMETER_PYTHON=value (None: unset)."""
    env = dict(os.environ)
    env.pop("SCALEMETER_PYTHON", None)
    env.pop("SCALEMETER_TORCH_REEXEC", None)
    if value is not None:
        env["SCALEMETER_PYTHON"] = value
    code = ("import sys; sys.path.insert(0, 'tools'); import torch_python; "
            f"torch_python.require_torch('tool', modules={modules!r}); print('ran')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as tmp:
    missing = os.path.join(tmp, "no", "python3")
    plain = os.path.join(tmp, "plain")  # a file without the execute bits
    with open(plain, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(plain, 0o644)
    bare = os.path.join(tmp, "bare")  # runs, but imports nothing: every `python -c` fails
    with open(bare, "w") as f:
        f.write("#!/bin/sh\nexit 1\n")
    os.chmod(bare, 0o755)

    # an unusable path stops the tool even where this interpreter has the modules: the user's
    # setting is wrong, and said so
    for value, why in [(missing, "no such file"), (tmp, "a folder, not a Python interpreter"),
                       (plain, "not executable")]:
        for modules in [("json",), (NOWHERE,)]:
            rc, out, err = require(modules, value)
            want = f"tool: SCALEMETER_PYTHON={value}: {why} (name a python3, or unset it)"
            check(rc != 0 and out == "" and err.splitlines() == [want],
                  f"SCALEMETER_PYTHON={value}, {modules}: exit {rc}, stderr {err!r}")

    # usable but without the modules: said, and no other interpreter (/usr/bin/python3, PATH's)
    # tried in its place; before, the tool went on to them in silence
    rc, out, err = require((NOWHERE,), bare)
    want = (f"tool: SCALEMETER_PYTHON={bare} has no {NOWHERE} (tried {sys.executable}, {bare}); "
            "name a python3 that has them, or unset it")
    check(rc != 0 and err.splitlines() == [want], f"bare interpreter: exit {rc}, stderr {err!r}")

    # unset or empty: as before, this interpreter when it has the modules
    for value in [None, ""]:
        rc, out, err = require(("json",), value)
        check(rc == 0 and out == "ran\n" and err == "", f"SCALEMETER_PYTHON={value!r}: {err!r}")

    # through the C binary's external command and the installed wrapper
    # (scalemeter export-torch -> scalemeter-export-torch -> tools/export_torch.py), which stop
    # before torch is imported
    if os.access(os.path.join(os.path.dirname(SM), "scalemeter-export-torch"), os.X_OK):
        env = dict(os.environ, SCALEMETER_PYTHON=missing)
        p = subprocess.run([SM, "export-torch", "resnet18", "-o", os.path.join(tmp, "r.ini")],
                           capture_output=True, text=True, env=env)
        want = (f"scalemeter-export-torch: SCALEMETER_PYTHON={missing}: no such file (name a "
                "python3, or unset it)")
        check(p.returncode != 0 and p.stderr.splitlines() == [want],
              f"scalemeter export-torch: exit {p.returncode}, stderr {p.stderr!r}")
        check(not os.path.exists(os.path.join(tmp, "r.ini")), "export-torch wrote nothing")

finish()
