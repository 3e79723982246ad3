"""A PyTorch model with an activation of its own, for the mish plugin's export rules
(mish.export.py): MishNet is mish_net.ini's network, FunctionalMishNet the same through F.mish.

  cc -std=c11 -O2 -shared -fPIC -I<scalemeter>/include -o /tmp/plugins/mish.so mish.c -lm
  cp mish.export.py /tmp/plugins/
  SCALEMETER_PLUGIN_PATH=/tmp/plugins scalemeter-export-torch --module mish_model.py:MishNet \\
      --input 3x32x32 -o mish_net.ini
"""
import torch
import torch.nn.functional as F
from torch import nn


class Mish(nn.Module):
    """Misra's activation written out, as models did before nn.Mish: torch.fx would trace it
    into softplus, tanh and a product, which have no layer type; the rule keeps it whole."""

    def forward(self, x):
        return x * torch.tanh(F.softplus(x))


class MishNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.act = Mish()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flat = nn.Flatten()
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.fc(self.flat(self.pool(self.act(self.conv(x)))))


class FunctionalMishNet(MishNet):
    def forward(self, x):
        return self.fc(self.flat(self.pool(F.mish(self.conv(x)))))
