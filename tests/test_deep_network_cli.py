#!/usr/bin/env python3
"""A network as deep as a network file may expand to (10^6 layers, the default
SCALEMETER_MAX_LAYERS), predicted under the fusing frameworks: it must finish, and fuse what
the frameworks' rule fuses (docs/scaling.md, "Frameworks"). The rule decided a layer by
recursing through its input, so a chain of N activations cost N^2 steps (200,000 ReLUs: 157 s)
and a recursion N deep.

A convolution, a batch norm, then a chain of ReLUs. By the rule, with fuse_epilogues
(configs/frameworks/fused.ini) the norm rides in the convolution's epilogue and every ReLU in
its input's, so the chain costs what the convolution alone costs; with fuse_bn_relu
(fused-bn-relu.ini) the norm is a kernel of its own and every ReLU rides in it (the first
fed by the norm, each next one by a fused layer), so the chain costs what the convolution and
the norm cost. Both networks are predicted the same way; the passes must match to the digit.

usage: test_deep_network_cli.py SCALEMETER   (run from the source root)
"""
import os
import tempfile

from cli_checks import check, finish, good_json

RELUS = 1000000 - 3  # with the convolution and the norm: under the 10^6 the parser allows
tmp = tempfile.mkdtemp()


def write(name, relus):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("[network]\nname = chain\ninput = 3x8x8\n\n[layers]\n"
                "conv = conv2d out=4 kernel=1 bias=false\nbn = batchnorm2d\n")
        f.writelines(f"r{i} = relu\n" for i in range(relus))
    return path


deep, short = write("deep.ini", RELUS), write("short.ini", 0)
for framework in ("fused", "fused-bn-relu"):
    args = ["--device", "h100", "--framework", framework, "--batch", "2"]
    d, s = good_json("predict", deep, *args), good_json("predict", short, *args)
    for key in ("t_infer", "t_fwd", "t_bwd"):
        check(key in d and d.get(key) == s.get(key),
              f"{framework}: {RELUS:,} fused ReLUs: {key} {d.get(key)}, the chain's head alone "
              f"{s.get(key)}")
finish()
