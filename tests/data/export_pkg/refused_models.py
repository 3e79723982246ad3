"""Models the exporter must refuse in one line rather than write a file scalemeter reads wrongly
or refuses (tests/test_export_torch.py; the bench round of 2026-11-26)."""
from torch import nn


class TiedConv(nn.Module):
    """Two convolutions sharing one weight tensor: counted twice, 2304 weights too many."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.c2.weight = self.c1.weight

    def forward(self, x):
        return self.c2(self.c1(x))


class TiedHead(nn.Module):
    """A language model's head tied to its embedding, as GPT-2's and BERT's are."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.fc = nn.Linear(16, 100, bias=False)
        self.fc.weight = self.emb.weight

    def forward(self, x):
        return self.fc(self.emb(x))


class EmptyOutput(nn.Module):
    """A linear layer of no outputs: written as out=0, which every command refused."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 0)

    def forward(self, x):
        return self.fc(x.flatten(1))
