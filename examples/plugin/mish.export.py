"""Export rules of the mish plugin (mish.c): how scalemeter-export-torch writes PyTorch's Mish as
a layer of type mish. Installed beside the plugin, as mish.export.py next to mish.so in a folder
of SCALEMETER_PLUGIN_PATH, it is read by every export; --rules mish.export.py names it once.

A rule gets the module (or, for a function, a Call with .function, .args and .kwargs), the
per-sample shapes of its tensor inputs and the per-sample shape PyTorch computed for its
output, and returns the layer's type and parameters, or None for a configuration the plugin
cannot count (docs/plugins.md, "Export rules").
"""
import torch.nn.functional as F
from torch import nn


def mish(op, inputs, output):
    """Mish(x) = x * tanh(softplus(x)), element-wise: one input, shape unchanged."""
    if len(inputs) != 1 or output != inputs[0]:
        return None  # not the element-wise activation mish.c counts
    inplace = op.inplace if isinstance(op, nn.Mish) else \
        getattr(op, "kwargs", {}).get("inplace", False)
    return ("mish", {"inplace": True}) if inplace else "mish"


MODULES = {
    nn.Mish: mish,  # PyTorch's own (and its subclasses)
    "Mish": mish,  # a model's own class named Mish, from wherever it is defined
}
FUNCTIONS = {
    F.mish: mish,  # F.mish(x)
}
