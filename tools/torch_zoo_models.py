"""torchvision's networks as the zoo's files hold them, for the tools that run them on a GPU
(torch_gpu_memory.py, torch_repeat_runs.py, torch_layer_profile.py). Import after
require_torch()."""
import torchvision


def build(name):
    """The untrained torchvision network `name`; GoogLeNet and Inception v3 without their
    auxiliary heads, which the network files do not have."""
    kwargs = {"weights": None}
    if name in ("googlenet", "inception_v3"):
        kwargs.update(aux_logits=False, init_weights=False)
    return getattr(torchvision.models, name)(**kwargs)
