#!/usr/bin/env python3
"""`predict --per-block` on a network of 100,000 blocks: it must finish, and every block of
one template must cost the same. Each block's forward time was predicted by a walk over all
the layers, so the blocks cost blocks x layers (100,000 blocks of two layers: 47 s with
--device, over a minute with a calibration); one walk now fills every block's.

A stem convolution, then 100,000 repetitions of a block of a convolution and a ReLU, every one
fed a 4x8x8 map: by the roofline (--device h100 --dispatch added, each layer's dispatch added
to it; queued, the first layers issued carry the host's head start) a block costs the sum of
its two layers, so each one costs, to the digit, what the first block of the same network with
two repetitions costs. With a calibration (the default CPU one) each block is the forward equation on its own
counts with the intercept shared out by FLOPs, so the repetitions are equal to the digit and
the blocks add up to t_fwd (README: "so the blocks add up to t_fwd").

usage: test_many_blocks_cli.py SCALEMETER   (run from the source root)
"""
import os
import tempfile

from cli_checks import check, finish, good_json, near

REPS = 100000  # the most one [block] repeats
tmp = tempfile.mkdtemp()


def write(name, reps):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("[network]\nname = blocks\ninput = 3x8x8\n\n[layers]\n"
                "stem = conv2d out=4 kernel=1 bias=false\n\n"
                "[template unit]\nconv = conv2d out=4 kernel=1 bias=false\nrelu = relu\n\n"
                f"[block s.{{0..{reps - 1}}}]\nuse = unit\n")
    return path


deep, short = write("deep.ini", REPS), write("short.ini", 2)

d = good_json("predict", deep, "--device", "h100", "--dispatch", "added", "--batch", "2",
              "--per-block")
s = good_json("predict", short, "--device", "h100", "--dispatch", "added", "--batch", "2",
              "--per-block")
blocks, first = d.get("per_block", []), s.get("per_block", [{}, {}])[1]
check(len(blocks) == REPS + 1, f"--device: {len(blocks)} blocks, not the stem and {REPS:,}")
check(blocks and blocks[1].get("name") == "s.0" and blocks[-1].get("name") == f"s.{REPS - 1}",
      f"--device: the blocks in order: {blocks[1:2]} ... {blocks[-1:]}")
differ = [b for b in blocks[1:] if b.get("t_fwd") != first.get("t_fwd")]
check(first.get("t_fwd", 0) > 0 and not differ,
      f"--device: {len(differ)} of {REPS:,} blocks differ from the short network's "
      f"{first.get('t_fwd')}: {differ[:2]}")

c = good_json("predict", deep, "--batch", "2", "--per-block")
blocks = c.get("per_block", [])
check(len(blocks) == REPS + 1, f"calibration: {len(blocks)} blocks, not the stem and {REPS:,}")
reps = {b.get("t_fwd") for b in blocks[1:]}
check(len(reps) == 1, f"calibration: the repetitions predict {len(reps)} times, not one")
total = sum(b.get("t_fwd", 0) for b in blocks)
check(c.get("t_fwd", 0) > 0 and near(total, c.get("t_fwd", 0)),  # t_fwd: 6 digits
      f"calibration: the blocks add up to {total}, t_fwd {c.get('t_fwd')}")
finish()
