#!/usr/bin/env python3
"""tools/broadcast_rates.py's reading of an op's shapes, by hand: a squeeze-and-excitation's
product, C x 1 x 1 over C x H x W, is one over its larger operand's 128 x 32 x 112 x 112 =
51,380,224 elements; BERT-large's mask, 96 x 1 x 1 x 384 over 96 x 16 x 384 x 384 scores (and
the scalar alpha, no shape) = 226,492,416; two operands of one shape (a residual sum) or one
operand are no broadcast (0); and the shipped keys are the profiles' (--check).

usage: test_broadcast_rates.py SCALEMETER   (run from the source root)
"""
import subprocess
import sys

from cli_checks import SM, check, finish

sys.path.insert(0, "tools")
import broadcast_rates  # noqa: E402

for shapes, want in (("[[128, 32, 1, 1], [128, 32, 112, 112]]", 51380224),
                     ("[[96, 16, 384, 384], [96, 1, 1, 384], []]", 226492416),
                     ("[[8, 64, 56, 56], [8, 64, 56, 56], []]", 0),
                     ("[[8, 64, 56, 56]]", 0), ("", 0)):
    got = broadcast_rates.broadcast_elements(shapes)
    check(got == want, f"{shapes}: {got}, by hand {want}")
p = subprocess.run([sys.executable, "tools/broadcast_rates.py", "--check", "--bin", SM],
                   capture_output=True, text=True)
check(p.returncode == 0 and "broadcast_elements_per_sm_clock = " in p.stdout,
      f"--check: exit {p.returncode}: {p.stderr.strip()}")
finish()
