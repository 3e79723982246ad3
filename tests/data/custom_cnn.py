"""Small CNNs that the zoo lacks, for tests/test_export_torch.py.

CustomCNN: a stem (conv-bn-relu in an nn.Sequential), a second conv-bn, a residual add, a max
pool, a flatten written as x.view(n, -1) and a linear classifier, on 3 x 32 x 32 inputs. Its
counts, by hand (conv MACs: out * Ho * Wo * in * kh * kw; linear: in * out):

  stem.0  Conv2d(3, 16, 3, padding=1, bias=False)   weights 16*3*9   =    432
                                                    MACs 16*32*32*3*9  =  442,368
  stem.1  BatchNorm2d(16)                           weights 2*16     =     32
  conv2   Conv2d(16, 16, 3, padding=1, bias=False)  weights 16*16*9  =  2,304
                                                    MACs 16*32*32*16*9 = 2,359,296
  bn2     BatchNorm2d(16)                           weights 2*16     =     32
  pool    MaxPool2d(2): 16 x 32 x 32 -> 16 x 16 x 16
  fc      Linear(16*16*16 = 4096, 10)               weights 4096*10+10 = 40,970
                                                    MACs 4096*10       =  40,960
  total   weights 43,770; MACs 2,842,624; conv inputs (I) 3*32*32 + 16*32*32 = 19,456;
          conv outputs (O) 2 * 16*32*32 = 32,768; layers with weights 5; parameter tensors 8

WithPixelUnshuffle and WithSine use operations scalemeter has no layer type for; the exporter must
refuse them naming the node.
"""
import torch
from torch import nn
import torch.nn.functional as F


class CustomCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU(inplace=True))
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 16 * 16, 10)

    def forward(self, x):
        y = self.stem(x)
        z = F.relu(self.bn2(self.conv2(y)) + y)
        z = self.pool(z)
        z = z.view(z.size(0), -1)
        return self.fc(z)


class WithPixelUnshuffle(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.shuffle = nn.PixelUnshuffle(2)

    def forward(self, x):
        return self.shuffle(self.conv(x))


class WithSine(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        return torch.sin(self.conv(x))
