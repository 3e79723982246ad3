#!/usr/bin/env python3
"""Runs the README's commands verbatim, in order, as a new user would.

Every ```sh block of README.md runs, top to bottom, in one scratch folder that holds the
repository's folders as symbolic links (so the files that the commands write, runs.csv,
coeffs.ini, curve.svg, land there and not in the source tree) with the build under test as
build/ and its bin/ first on PATH, as the README tells its reader to do. A block preceded by an
HTML comment `<!-- not run by tests/test_readme.py: WHY -->` is skipped (the two commands that
install and build, and what runs on another machine); the test prints the skipped blocks and why.

usage: test_readme.py SOURCE_DIR BUILD_DIR
"""
import os
import re
import subprocess
import sys
import tempfile
import time

SKIP = re.compile(r"<!--\s*not run by tests/test_readme\.py:\s*(.*?)\s*-->")


def blocks(readme):
    """(first line number, code, skip reason or None) of every ```sh block."""
    lines = open(readme).read().split("\n")
    out, i, skip = [], 0, None
    while i < len(lines):
        m = SKIP.search(lines[i])
        if m:
            skip = m.group(1)
        if lines[i].strip() == "```sh":
            start = i + 2
            body = []
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            out.append((start, "\n".join(body), skip))
            skip = None
        elif lines[i].strip() and not m and lines[i].strip().startswith("```"):
            skip = None
        i += 1
    return out


def main():
    src, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    readme = os.path.join(src, "README.md")
    found = blocks(readme)
    if len(found) < 5:
        sys.exit(f"FAIL: only {len(found)} sh blocks found in {readme}")
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for entry in os.listdir(src):
            if entry.startswith(".") or entry.startswith("build"):
                continue
            os.symlink(os.path.join(src, entry), os.path.join(work, entry))
        os.symlink(build, os.path.join(work, "build"))
        env = dict(os.environ, PATH=os.path.join(build, "bin") + os.pathsep + os.environ["PATH"])
        for line, code, skip in found:
            if skip:
                print(f"README.md:{line}: skipped: {skip}")
                continue
            started = time.monotonic()
            r = subprocess.run(["sh", "-ec", code], cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=900)
            took = time.monotonic() - started
            if r.returncode != 0:
                failed += 1
                print(f"FAIL: README.md:{line}: exit status {r.returncode} ({took:.0f} s)")
                print("  " + "\n  ".join(code.split("\n")))
                print("  output:\n    " + "\n    ".join(r.stdout.rstrip().split("\n")[-30:]))
            else:
                print(f"README.md:{line}: ok ({took:.0f} s, {len(code.splitlines())} lines)")
    if failed:
        sys.exit(f"FAIL: {failed} README block(s) failed")
    print("every README block that is not marked as skipped ran as written")


if __name__ == "__main__":
    main()
