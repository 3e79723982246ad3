"""What the command-line tests written in Python share: the binary under test (argv[1]), a
check that counts and reports, a relative comparison, running the binary, its JSON, and a
description's text with its framework's base written out.

    from cli_checks import SM, check, near, run, good_json, finish, flattened
"""
import json
import os
import re
import subprocess
import sys

SM = sys.argv[1]
failures = []
_checks = [0]


def check(cond, what):
    _checks[0] += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def near(actual, expected, rel=1e-5):
    return abs(actual - expected) <= rel * abs(expected)


def run(*args):
    p = subprocess.run([SM, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def flattened(path):
    """The description's text with its [framework] base's keys in place of the `base = NAME`
    line (configs/frameworks/NAME.ini beside the description's folder), less those the
    section gives after it: what the loader reads, as keys a test can see and edit."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"(?m)^base\s*=\s*([\w-]+)[ \t]*$", text)
    if not m:
        return text
    rest = text[m.end():]
    rest_section = rest[:re.search(r"(?m)^\[|\Z", rest).start()]
    own = set(re.findall(r"(?m)^(\w+)\s*=", rest_section))
    fw = os.path.join(os.path.dirname(os.path.abspath(path)), "..", "frameworks",
                      m.group(1) + ".ini")
    with open(fw) as f:
        body = f.read().split("[framework]\n", 1)[1]
    body = "".join(line for line in body.splitlines(True)
                   if not (re.match(r"\w+\s*=", line) and line.split("=")[0].strip() in own))
    return text[:m.start()] + body.rstrip("\n") + rest


def good_json(*args):
    rc, out, err = run(*args, "--format", "json")
    check(rc == 0, f"{' '.join(args)}: exit {rc}: {err.strip()}")
    try:
        return json.loads(out)
    except ValueError:
        return {}


def finish():
    """Prints the tally and exits non-zero if any check failed."""
    print(f"{_checks[0] - len(failures)} of {_checks[0]} checks passed")
    sys.exit(1 if failures else 0)
