#!/usr/bin/env python3
"""A network file whose one [block] holds as many layers as a network may expand to (10^6,
the default SCALEMETER_MAX_LAYERS), written inline: it must load and count. The block's keys
were counted as a template's arguments and given three arrays on the stack, 20 bytes a key:
about 400,000 layers overflowed an 8 MiB stack (a segmentation fault, 800,000 layers).

A stem convolution (3x8x8 -> 4x8x8, 12 weights), then [block big] of ReLUs, the first a
linear layer on the map's last dimension so that the block holds weights: by hand, the linear
maps 4 x 8 rows of 8 to 8, 4 x 8 x 8 x 8 = 2,048 MACs and 256 bias additions, 72 weights, and
each ReLU costs 1 FLOP an element of the 256.

usage: test_deep_block_cli.py SCALEMETER   (run from the source root)
"""
import os
import tempfile

from cli_checks import check, finish, good_json

RELUS = 1000000 - 2  # with the stem and the linear: the 10^6 the parser allows
tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "deep_block.ini")
with open(path, "w") as f:
    f.write("[network]\nname = deep_block\ninput = 3x8x8\n\n[layers]\n"
            "stem = conv2d out=4 kernel=1 bias=false\n\n[block big]\nfc = linear out=8\n")
    f.writelines(f"r{i} = relu\n" for i in range(RELUS))

m = good_json("metrics", path, "--per-block")
blocks = {b.get("name"): b for b in m.get("per_block", [])}
big = blocks.get("big", {})
check(list(blocks) == ["stem", "big"], f"blocks {list(blocks)}, not stem and big")
check(big.get("macs") == 2048 and big.get("weights") == 72 and big.get("layers") == 1,
      f"big: macs {big.get('macs')}, weights {big.get('weights')}, layers {big.get('layers')}")
check(big.get("flops") == 2 * 2048 + 256 + RELUS * 256,
      f"big: flops {big.get('flops')}, by hand {2 * 2048 + 256 + RELUS * 256:,}")
check(big.get("output") == "4x8x8", f"big: output {big.get('output')}")
finish()
