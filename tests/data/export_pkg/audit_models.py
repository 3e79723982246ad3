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


class SplitTrickyTotal(nn.Module):
    """torch.split into [6, 5, 5]: written as a chunk of 3 (pieces 6, 6, 4), only the first
    piece checked; the head then read 4 features, not 5."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.c = nn.Linear(5, 2)

    def forward(self, x):
        p, q, r = torch.split(self.fc(x), [6, 5, 5], dim=1)
        return self.c(r)


class ChunkNegIndex(nn.Module):
    """parts[-1] of chunk(2): written index=-1, which scalemeter refused. MACs 16 x 5 = 80."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        return self.fc(x).chunk(2, 1)[-1]


class Chunk4of6(nn.Module):
    """torch.chunk(6 features, 4) gives 3 pieces of 2: parts[-1] is piece 2.
    MACs 16 x 6 + 2 x 2 = 100."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 6)
        self.out = nn.Linear(2, 2)

    def forward(self, x):
        parts = torch.chunk(self.fc(x), 4, dim=1)
        return self.out(parts[-1])


class ClsTokenWide(nn.Module):
    """Four register tokens expanded and put in front: written as one cls_token (6 x 16 out
    of an input of 5 x 16; PyTorch gives 9 x 16)."""

    def __init__(self):
        super().__init__()
        self.reg = nn.Parameter(torch.zeros(1, 4, 16))

    def forward(self, x):
        return torch.cat([self.reg.expand(x.size(0), -1, -1), x], 1)


class TrainOnlyBranch(nn.Module):
    """A branch taken only in training: the trace (eval mode) has fc alone, 68 weights of
    136. MACs 16 x 4 = 64."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)
        self.aux = nn.Linear(16, 4)

    def forward(self, x):
        y = self.fc(x)
        if self.training:
            y = y + self.aux(x)
        return y


class UnusedParams(nn.Module):
    """Parameters never used: fc's 272 weights of 17,772. MACs 256."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.unused = nn.Linear(16, 1000)
        self.extra = nn.Parameter(torch.zeros(500))

    def forward(self, x):
        return self.fc(x)


class DeadFunctional(nn.Module):
    """F.linear computed and discarded: torch.fx drops it, 16,000 weights. MACs 256."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.w = nn.Parameter(torch.randn(1000, 16))

    def forward(self, x):
        _ = F.linear(x, self.w)
        return self.fc(x)


class BuffersFrozen(nn.Module):
    """A frozen nn.Linear: its 272 weights were counted as trainable."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.ones(16))
        self.fc = nn.Linear(16, 16)
        self.frozen = nn.Linear(16, 16)
        for p in self.frozen.parameters():
            p.requires_grad = False

    def forward(self, x):
        return self.frozen(self.fc(x))


class FrozenFunctional(nn.Module):
    """F.linear with a frozen parameter: refused as 'not a parameter of the model'."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(16, 16), requires_grad=False)

    def forward(self, x):
        return F.linear(x, self.w)


class InplaceReturnThenUse(nn.Module):
    """y.add_(...) then fc3(y): fc3 read fc, the add left dangling. MACs 3 x 16 x 16 - 16 x 12
    = 576 (fc and fc2 16 x 16 each, fc3 16 x 4)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 4)

    def forward(self, x):
        y = self.fc(x)
        y.add_(self.fc2(x))
        return self.fc3(y)


class InplaceDiscarded(nn.Module):
    """torch.relu_(y), its result discarded, then fc2(y): fc2 read fc. MACs 2 x 256 = 512."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.fc2 = nn.Linear(16, 16)

    def forward(self, x):
        y = self.fc(x)
        torch.relu_(y)
        return self.fc2(y)


class InplaceSigmoidMul(nn.Module):
    """y.sigmoid_() then y * x: the product read fc. MACs 256."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        y = self.fc(x)
        y.sigmoid_()
        return y * x


class ConvTOutSize(nn.Module):
    """ConvTranspose2d called with output_size: written 4 x 15 x 15, PyTorch gives 4 x 16 x 16
    (output_padding 1). MACs: input elements x out channels x kernel, 8 x 8 x 8 x 4 x 9 =
    18,432."""

    def __init__(self):
        super().__init__()
        self.c = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1)

    def forward(self, x):
        return self.c(x, output_size=(16, 16))


class ReflectPad(nn.Module):
    """padding_mode='reflect', written as zero padding. MACs 8 x 8 x 8 x 3 x 9 = 13,824."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 8, 3, padding=1, padding_mode="reflect")

    def forward(self, x):
        return self.c(x)
