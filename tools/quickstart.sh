#!/bin/sh
# The README's first command: install the dependencies, build, and predict a scaling curve of
# ResNet-50 on H100 nodes from the shipped device description, then its step on one H100 from
# the shipped H100 calibration (measured: 0.138 s, configs/calibrations/h100-pytorch-tf32.csv).
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
set -x
build/bin/scalemeter curve resnet50 --device h100 --batch 256 --nodes 1:64
build/bin/scalemeter predict resnet50 --batch 256 --coeffs h100-pytorch-tf32
