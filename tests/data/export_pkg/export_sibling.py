"""A module imported by its sibling several_unsupported.py, as a model's file imports its own."""
import torch
from torch import nn


class Stem(nn.Module):
    def __init__(self, erf):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.erf = erf

    def forward(self, x):
        x = self.conv(x)
        return torch.erf(x) if self.erf else x
