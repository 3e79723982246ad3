#!/usr/bin/env python3
"""The zoo's DeepLearningExamples networks (resnext101_32x4d, se_resnext101_32x4d) against a
count worked out here from the shapes DLE's code publishes (PyTorch/Classification/ConvNets,
image_classification/models/resnet.py and common.py): weights and multiply-accumulates at
224 x 224, batch 1. torchvision builds neither network, so there is no PyTorch reference file;
ResNeXt101-32x4d's 44.18 million weights and about 8.0 GMACs are also the figures the ResNeXt
literature gives for it (Xie et al. 2017, Table 3: 8.0 GFLOPs, which are MACs).

Usage: test_dle_zoo_params.py SCALEMETER   (run from the source root)
"""
import json
import subprocess
import sys

STAGES = [(128, 3, 1), (256, 4, 2), (512, 23, 2), (1024, 3, 2)]  # width, blocks, stride
GROUPS, EXPANSION, SE = 32, 2, 16


def count(se):
    """(weights, MACs) of DLE's ResNet with Bottleneck (se=False) or SEBottleneck (se=True)."""
    side = 56  # after the 7x7 stride-2 convolution (112) and the stride-2 max pool
    weights = 3 * 64 * 7 * 7 + 2 * 64  # stem convolution and its batch norm
    macs = 3 * 64 * 7 * 7 * 112 * 112
    inplanes = 64
    for width, blocks, stride in STAGES:
        out = EXPANSION * width
        for b in range(blocks):
            s = stride if b == 0 else 1
            hw_in, hw = side * side, (side // s) * (side // s)
            conv1 = inplanes * width
            conv2 = width * (width // GROUPS) * 9
            conv3 = width * out
            weights += conv1 + conv2 + conv3 + 2 * (width + width + out)
            macs += conv1 * hw_in + (conv2 + conv3) * hw
            if b == 0:  # the projection shortcut and its batch norm
                weights += inplanes * out + 2 * out
                macs += inplanes * out * hw
            if se:  # two 1x1 convolutions with bias on a 1x1 map
                weights += out * SE + SE + SE * out + out
                macs += 2 * out * SE
            inplanes, side = out, side // s
    weights += 2048 * 1000 + 1000  # fc
    macs += 2048 * 1000
    return weights, macs


failures = 0
out = subprocess.run([sys.argv[1], "models", "--format", "json"], check=True,
                     capture_output=True, text=True).stdout
got = {m["model"]: (m["weights"], m["macs"]) for m in json.loads(out)["models"]}
for name, se in (("resnext101_32x4d", False), ("se_resnext101_32x4d", True)):
    want = count(se)
    if got.get(name) != want:
        print(f"FAIL {name}: {got.get(name)} (weights, MACs), want {want}")
        failures += 1
# the hand count against the literature's size of ResNeXt101-32x4d
w, m = count(False)
if round(w / 1e6, 2) != 44.18 or round(m / 1e9, 1) != 8.0:
    print(f"FAIL the hand count {w} weights, {m} MACs is not 44.18 M and 8.0 G")
    failures += 1
print(f"2 networks, {failures} failures")
sys.exit(1 if failures else 0)
