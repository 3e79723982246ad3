"""Small models of the kinds issue 35 found the exporter refusing, one per layer type it lacked:
tests/test_export_torch.py exports each, and checks its parameters against sum(p.numel()) and
its MACs against the hand-derived numbers in each docstring."""
import torch
from torch import nn
import torch.nn.functional as F


class TextCNN(nn.Module):
    """Embedding 100x16; Conv1d(16, 32, 3, padding=1) over 20 tokens; mean over the sequence;
    Linear(32, 4). MACs: conv 32*20 outputs x 16 x 3 = 30,720; linear 128. 30,848."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.conv = nn.Conv1d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32, 4)

    def forward(self, x):
        y = self.embed(x).transpose(1, 2)  # N x 16 x S
        y = F.relu(self.conv(y))
        return self.fc(y.mean(2))


class SentenceClassifier(nn.Module):
    """Embedding 50x8, a linear 8->8, y.mean(1) over 12 tokens, Linear(8, 3).
    MACs: 12 x 64 = 768, then 24. 792."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.proj = nn.Linear(8, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        y = torch.tanh(self.proj(self.embed(x)))
        return self.head(y.mean(1))


class Video3D(nn.Module):
    """Conv3d(3, 8, (3, 3, 3), padding=1) on 3x4x8x8, Conv3d(8, 8, (1, 3, 3), stride=(1, 2, 2),
    padding=(0, 1, 1)); mean over D, H, W; Linear(8, 2).
    MACs: 8*4*8*8 x 3 x 27 = 165,888; 8*4*4*4 x 8 x 9 = 36,864; 16. 202,768."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv3d(3, 8, 3, padding=1)
        self.c2 = nn.Conv3d(8, 8, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        x = F.relu(self.c2(F.relu(self.c1(x))))
        return self.fc(x.mean((2, 3, 4)))


class TinyUNet(nn.Module):
    """3x16x16: down Conv2d(3, 8, 3, stride 2, padding 1) to 8x8x8; ConvTranspose2d(8, 8, 2,
    stride 2) to 8x16x16; nn.Upsample(scale 2, bilinear) to 8x32x32; F.interpolate to 16x16
    (nearest); Conv2d(8, 1, 1).
    MACs: 8*8*8 x 27 = 13,824; 8*8*8 x 8 x 4 = 16,384; 0; 0; 256 x 8 = 2,048. 32,256."""

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(8, 8, 2, stride=2)
        self.resize = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.out = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        y = self.resize(self.up(F.relu(self.down(x))))
        return self.out(F.interpolate(y, size=(16, 16)))


class SuperResolution(nn.Module):
    """ESPCN-like on 1x8x8: Conv2d(1, 16, 3, padding 1), Conv2d(16, 4, 3, padding 1), then
    nn.PixelShuffle(2) of that and F.pixel_shuffle(., 2) of Conv2d(4, 4, 3, padding 1) of it,
    added (1x16x16). MACs: 16*64 x 9 = 9,216; 4*64 x 144 = 36,864; 4*64 x 36 = 9,216. 55,296."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 4, 3, padding=1)
        self.ps = nn.PixelShuffle(2)
        self.c3 = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        y = self.c2(F.relu(self.c1(x)))
        return self.ps(y) + F.pixel_shuffle(self.c3(y), 2)


class FunctionalLayers(nn.Module):
    """A module calling F.conv2d and F.linear with its own parameters (weight 8x3x3x3 with a
    bias, stride 2, padding 1, on 3x8x8 -> 8x4x4; then flatten and a 128->5 linear without
    bias). MACs: 128 x 27 = 3,456; 640. 4,096."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(8, 3, 3, 3))
        self.bias = nn.Parameter(torch.zeros(8))
        self.fc_weight = nn.Parameter(torch.randn(5, 128))

    def forward(self, x):
        y = F.conv2d(x, self.weight, self.bias, stride=2, padding=1)
        return F.linear(torch.flatten(y, 1), self.fc_weight)
