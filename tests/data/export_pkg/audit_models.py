"""Models of the exporter's audit of 2026-11-29 (tests/test_export_torch.py,
check_audit_models): each was written silently wrong, or stopped with a traceback. Those the
exporter writes are checked against PyTorch (sum(p.numel()), the output's shape) and MACs
derived here; the others must be refused in one line."""
import torch
import torch.nn.functional as F
from torch import nn


class TiedLMHeadFunctional(nn.Module):
    """An LM head tied to its embedding through F.linear: 32,000 weights counted twice."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(1000, 32)
        self.ln = nn.LayerNorm(32)

    def forward(self, x):
        return F.linear(self.ln(self.embed(x)), self.embed.weight)


class ModuleAndFunctional(nn.Module):
    """A module's weight given again to F.linear."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        return F.linear(torch.relu(self.fc(x)), self.fc.weight, self.fc.bias)


class FunctionalConvTwice(nn.Module):
    """One nn.Parameter given to F.conv2d twice."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 8, 3, 3))

    def forward(self, x):
        return F.conv2d(F.conv2d(x, self.w, padding=1), self.w, padding=1)
