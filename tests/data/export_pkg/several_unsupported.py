"""Models for tests/test_export_torch.py's checks of --module and --kwargs, and of a model with
several operations the exporter has no layer type for (each must be listed in one run)."""
import torch
from torch import nn

from export_sibling import Stem  # a sibling module: found only with this folder on the path


class SeveralUnsupported(nn.Module):
    """sin (line 18), cos (line 19) and erf (in Stem) have no layer type."""

    def __init__(self):
        super().__init__()
        self.stem = Stem(erf=True)

    def forward(self, x):
        x = self.stem(x)
        x = torch.sin(x)
        x = torch.cos(x)
        return x


class SiblingNet(nn.Module):
    """Stem, then a linear head of num_classes outputs: 3*8*3*3 + 8 = 224 weights in the stem,
    8 * num_classes + num_classes in the head."""

    def __init__(self, num_classes):
        super().__init__()
        self.stem = Stem(erf=False)
        self.head = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.head(self.stem(x).mean((2, 3)))
