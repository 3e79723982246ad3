#!/usr/bin/env python3
"""tools/gpus_validation.py's choice of the framework Lambda's containers ran (cuDNN 8's
transposes, pytorch-eager-cudnn8, for every part whose description keeps plain eager PyTorch),
read from the description's [framework] base: the shipped plain descriptions take it and the
rebuilt Hopper ones do not, and a plain description queued by a key of its own
(host_runs_ahead = 1, as an experiment or a user's file sets it) still takes it. Before, the
choice was read from host_runs_ahead alone, and such a file silently lost cuDNN 8's
transposes: those alone take Lambda's ResNet-50 fp16 rows of the A10, RTX A6000, RTX 4090 and
RTX 6000 Ada from 0.74-0.79 of their published rate to 0.96-1.04, and the A100s' from
0.92-1.07 to 1.17-1.36, enough to pass for a better model of the GDDR parts.

usage: test_validation_era.py SCALEMETER   (run from the source root)
"""
import os
import sys
import tempfile

from cli_checks import check, finish

sys.path.insert(0, "tools")
import gpus_validation  # noqa: E402

CUDNN8 = ["--framework", "pytorch-eager-cudnn8"]
for part in ("a100", "rtx4090", "v100", "t4"):
    check(gpus_validation.plain_eager(part), f"{part}: plain eager")
    check(gpus_validation.era(part) == CUDNN8, f"{part}: cuDNN 8's framework in 22.09-22.10")
for part in ("h100", "h200", "h100-pcie"):
    check(not gpus_validation.plain_eager(part), f"{part}: the rebuilt framework")
    check(gpus_validation.era(part) == [], f"{part}: its own framework")

with open("configs/devices/a100.ini") as f:
    text = f.read()
check("\nbase = pytorch-eager\n" in text, "a100.ini starts from pytorch-eager")
with tempfile.TemporaryDirectory() as tmp:
    queued = os.path.join(tmp, "a100-queued.ini")
    with open(queued, "w") as f:
        f.write(text.replace("\nbase = pytorch-eager\n",
                             "\nbase = pytorch-eager\nhost_runs_ahead = 1\n", 1))
    check(gpus_validation.plain_eager(queued), "a plain description queued stays plain")
    check(gpus_validation.era(queued) == CUDNN8, "and takes cuDNN 8's framework")

finish()
