"""What the command-line tests written in Python share: the binary under test (argv[1]), a
check that counts and reports, a relative comparison, running the binary, and its JSON.

    from cli_checks import SM, check, near, run, good_json, finish
"""
import json
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
