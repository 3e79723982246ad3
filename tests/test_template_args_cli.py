#!/usr/bin/env python3
"""A template of 50,000 layers used by a block of 50,000 arguments, each layer naming its own
argument: it must load, each ${...} the value of its argument. An argument was looked up by
comparing its name with each of the block's in turn, layers x arguments (40,000 of each: 3 s);
the names are now sorted once per block and bisected.

Layer k is `linear out=${ak} from=@in`, ak = 1 + k % 7, so every layer reads the block's
8-wide input: it holds 8 ak + ak weights, and the network 9 (sum of ak) beside the embedding's
100 x 8. A name that is a prefix of another (a1, a10, a100) finds its own.

usage: test_template_args_cli.py SCALEMETER   (run from the source root)
"""
import os
import tempfile

from cli_checks import check, finish, good_json

N = 50000
tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "args.ini")
with open(path, "w") as f:
    f.write("[network]\nname = args\ninput = 16\n\n[layers]\nemb = embedding vocab=100 dim=8\n\n"
            "[template t]\n")
    f.writelines(f"l{k} = linear out=${{a{k}}} from=@in\n" for k in range(N))
    f.write("\n[block b]\nuse = t\n")
    f.writelines(f"a{k} = {1 + k % 7}\n" for k in range(N))

m = good_json("metrics", path, "--per-layer")
layers = {l.get("name"): l for l in m.get("per_layer", [])}
expect = 100 * 8 + 9 * sum(1 + k % 7 for k in range(N))
check(m.get("weights") == expect, f"weights {m.get('weights')}, by hand {expect:,}")
for k in (1, 10, 100, 1000, 10000, N - 1):
    out = layers.get(f"b.l{k}", {}).get("output")
    check(out == [16, 1 + k % 7], f"b.l{k}: output {out}, not 16x{1 + k % 7}")
finish()
