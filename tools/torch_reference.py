#!/usr/bin/python3
"""Records, with PyTorch, the reference counts that tests/test_zoo_reference.c checks the model
zoo (models/*.ini) against.

For every zoo network and image size it builds the torchvision model (random weights, eval mode),
runs one image of zeros through it with a forward hook on every leaf module, and writes:

  params               sum of p.numel() over model.parameters()
  param_tensors        len(list(model.parameters()))
  layers_with_weights  modules holding parameters of their own (ConvMeter's L)
  macs                 Conv2d: output elements * in_channels / groups * kh * kw,
                       Linear: output elements * in_features
  conv_inputs          summed input elements of every Conv2d call (ConvMeter's I)
  conv_outputs         summed output elements of every Conv2d call (ConvMeter's O)

all computed here from the hooks' real tensors, never from scalemeter; and, at the model's native
size only, the output shape of every leaf module called exactly once (a module called several
times, such as ResNet's shared ReLU, has no single shape). Beside the counts, "published" holds
what torchvision itself publishes for the model's weights at the native crop size: their
meta["num_params"], a number written into torchvision rather than counted, which the test
compares the zoo file with.

Sizes a model rejects (its spatial size shrinks below 1 somewhere) are listed with PyTorch's
error, so the JSON says which sizes each model accepts.

Output: tests/data/reference/torchvision.json (one line per layer, so that diffs stay readable):
  {"generator", "torch", "torchvision",
   "models": {NAME: {"source", "native": 224,
                     "published": {"weights": "ResNet50_Weights.IMAGENET1K_V1",
                                   "num_params": 25557032, "crop_size": 224},
                     "rejected": {"64": "PyTorch's error"},
                     "sizes": {"224": {"params": ..., "macs": ..., ...}, ...},
                     "layers": {"layer1.0.conv1": [64, 56, 56], ...}}}}

Usage: /usr/bin/python3 tools/torch_reference.py [-o DIR] [MODEL ...]
Needs torch and torchvision (Debian: python3-torchvision); the comparison does not.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also when imported
from torch_python import require_torch  # noqa: E402  (torch may be in another Python)

require_torch("torch_reference.py")
import torch  # noqa: E402
import torchvision
from torch import nn

# name -> (constructor arguments, image sizes tried, native size). GoogLeNet and Inception v3
# without their auxiliary heads, as they run at inference.
ZOO = {
    "alexnet": ({}, (64, 128, 224), 224),
    "vgg11": ({}, (64, 128, 224), 224),
    "vgg11_bn": ({}, (64, 128, 224), 224),
    "vgg13": ({}, (64, 128, 224), 224),
    "vgg13_bn": ({}, (64, 128, 224), 224),
    "vgg16": ({}, (64, 128, 224), 224),
    "vgg16_bn": ({}, (64, 128, 224), 224),
    "vgg19": ({}, (64, 128, 224), 224),
    "vgg19_bn": ({}, (64, 128, 224), 224),
    "resnet18": ({}, (64, 128, 224), 224),
    "resnet34": ({}, (64, 128, 224), 224),
    "resnet50": ({}, (64, 128, 224), 224),
    "resnet101": ({}, (64, 128, 224), 224),
    "resnet152": ({}, (64, 128, 224), 224),
    "resnext50_32x4d": ({}, (64, 128, 224), 224),
    "resnext101_32x8d": ({}, (64, 128, 224), 224),
    "resnext101_64x4d": ({}, (64, 128, 224), 224),
    "wide_resnet50_2": ({}, (64, 128, 224), 224),
    "wide_resnet101_2": ({}, (64, 128, 224), 224),
    "mobilenet_v2": ({}, (64, 128, 224), 224),
    "mobilenet_v3_large": ({}, (64, 128, 224), 224),
    "mobilenet_v3_small": ({}, (64, 128, 224), 224),
    "squeezenet1_0": ({}, (64, 128, 224), 224),
    "squeezenet1_1": ({}, (64, 128, 224), 224),
    # EfficientNets are published at their own crop sizes (the weights' transforms)
    "efficientnet_b0": ({}, (64, 128, 224), 224),
    "efficientnet_b1": ({}, (64, 128, 224, 240), 240),
    "efficientnet_b2": ({}, (64, 128, 224, 288), 288),
    "efficientnet_b3": ({}, (64, 128, 224, 300), 300),
    "efficientnet_b4": ({}, (64, 128, 224, 380), 380),
    "efficientnet_b5": ({}, (64, 128, 224, 456), 456),
    "efficientnet_b6": ({}, (64, 128, 224, 528), 528),
    "efficientnet_b7": ({}, (64, 128, 224, 600), 600),
    "efficientnet_v2_s": ({}, (64, 128, 224, 384), 384),
    "efficientnet_v2_m": ({}, (64, 128, 224, 480), 480),
    "efficientnet_v2_l": ({}, (64, 128, 224, 480), 480),
    "regnet_y_400mf": ({}, (64, 128, 224), 224),
    "regnet_y_800mf": ({}, (64, 128, 224), 224),
    "regnet_y_1_6gf": ({}, (64, 128, 224), 224),
    "regnet_y_3_2gf": ({}, (64, 128, 224), 224),
    "regnet_y_8gf": ({}, (64, 128, 224), 224),
    "regnet_y_16gf": ({}, (64, 128, 224), 224),
    "regnet_y_32gf": ({}, (64, 128, 224), 224),
    # only SWAG weights, published at 384 (end to end) and 224 (linear classifier): 224 here
    "regnet_y_128gf": ({}, (64, 128, 224), 224),
    "regnet_x_400mf": ({}, (64, 128, 224), 224),
    "regnet_x_800mf": ({}, (64, 128, 224), 224),
    "regnet_x_1_6gf": ({}, (64, 128, 224), 224),
    "regnet_x_3_2gf": ({}, (64, 128, 224), 224),
    "regnet_x_8gf": ({}, (64, 128, 224), 224),
    "regnet_x_16gf": ({}, (64, 128, 224), 224),
    "regnet_x_32gf": ({}, (64, 128, 224), 224),
    "densenet121": ({}, (64, 128, 224), 224),
    "densenet161": ({}, (64, 128, 224), 224),
    "densenet169": ({}, (64, 128, 224), 224),
    "densenet201": ({}, (64, 128, 224), 224),
    "shufflenet_v2_x0_5": ({}, (64, 128, 224), 224),
    "shufflenet_v2_x1_0": ({}, (64, 128, 224), 224),
    "shufflenet_v2_x1_5": ({}, (64, 128, 224), 224),
    "shufflenet_v2_x2_0": ({}, (64, 128, 224), 224),
    "mnasnet0_5": ({}, (64, 128, 224), 224),
    "mnasnet0_75": ({}, (64, 128, 224), 224),
    "mnasnet1_0": ({}, (64, 128, 224), 224),
    "mnasnet1_3": ({}, (64, 128, 224), 224),
    "googlenet": ({"aux_logits": False, "init_weights": False}, (64, 128, 224), 224),
    # Inception v3 shrinks 64 x 64 below 1 x 1 (it needs 75 x 75): tried, so the JSON says so
    "inception_v3": ({"aux_logits": False, "init_weights": False}, (64, 128, 224, 299), 299),
    "convnext_tiny": ({}, (64, 128, 224), 224),
    "convnext_small": ({}, (64, 128, 224), 224),
    "convnext_base": ({}, (64, 128, 224), 224),
    "convnext_large": ({}, (64, 128, 224), 224),
}


def build(name):
    kwargs = ZOO[name][0]
    torch.manual_seed(0)
    return getattr(torchvision.models, name)(weights=None, **kwargs).eval()


def published(name, native):
    """torchvision's own record of the model: the parameter count its weights' metadata publish
    (meta["num_params"], a number written into torchvision, not counted here) for the weights
    whose crop size is the native size (IMAGENET1K_V1 where there are several)."""
    enum = torchvision.models.get_model_weights(name)
    fitting = [w for w in enum if list(w.transforms().crop_size) == [native]]
    if not fitting:
        sys.exit(f"torch_reference.py: {name}: no weights of torchvision at crop size {native}")
    w = next((w for w in fitting if w.name == "IMAGENET1K_V1"), fitting[0])
    return {"weights": f"{enum.__name__}.{w.name}", "num_params": w.meta["num_params"],
            "crop_size": native}


def measure(model, image):
    """Totals of one forward pass at image x image, and the leaf modules' output shapes."""
    names = {m: n for n, m in model.named_modules()}
    totals = {"macs": 0, "conv_inputs": 0, "conv_outputs": 0}
    calls, shapes = {}, {}

    def hook(module, inputs, output):
        name = names[module]
        calls[name] = calls.get(name, 0) + 1
        shapes[name] = list(output.shape[1:])
        if isinstance(module, nn.Conv2d):
            kh, kw = module.kernel_size
            totals["macs"] += output.numel() * module.in_channels // module.groups * kh * kw
            totals["conv_inputs"] += inputs[0].numel()
            totals["conv_outputs"] += output.numel()
        elif isinstance(module, nn.Linear):
            totals["macs"] += output.numel() * module.in_features

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if next(m.children(), None) is None]
    try:
        with torch.no_grad():
            model(torch.zeros(1, 3, image, image))
    finally:
        for h in handles:
            h.remove()
    params = list(model.parameters())
    totals["params"] = sum(p.numel() for p in params)
    totals["param_tensors"] = len(params)
    totals["layers_with_weights"] = sum(
        1 for m in model.modules() if next(m.parameters(recurse=False), None) is not None)
    layers = {n: shapes[n] for n in shapes if calls[n] == 1}
    return totals, layers


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default=os.path.join(here, "..", "tests", "data", "reference"),
                    help="output folder (default: tests/data/reference)")
    ap.add_argument("models", nargs="*", help="zoo models (default: all)")
    args = ap.parse_args()
    for m in args.models:
        if m not in ZOO:
            sys.exit(f"torch_reference.py: unknown model {m!r}; known: {', '.join(ZOO)}")
    wanted = args.models or list(ZOO)
    result = {"generator": "tools/torch_reference.py", "torch": torch.__version__,
              "torchvision": torchvision.__version__, "models": {}}
    path = os.path.join(args.out, "torchvision.json")
    kept = {}
    if args.models and os.path.exists(path):  # regenerate some: keep the others as they are
        with open(path) as f:
            kept = json.load(f)["models"]
    for name in wanted:
        _, sizes, native = ZOO[name]
        model = build(name)
        entry = {"source": f"torchvision.models.{name}", "native": native,
                 "published": published(name, native), "sizes": {}, "rejected": {}, "layers": {}}
        for image in sizes:
            try:
                totals, layers = measure(model, image)
            except RuntimeError as e:  # the feature map shrank below 1x1 somewhere
                entry["rejected"][str(image)] = str(e).splitlines()[0]
                continue
            entry["sizes"][str(image)] = totals
            if image == native:
                entry["layers"] = layers
        result["models"][name] = entry
        print(f"{name}: sizes {list(entry['sizes'])}, rejected {list(entry['rejected'])}, "
              f"params {entry['sizes'][str(native)]['params']}, "
              f"macs {entry['sizes'][str(native)]['macs']}", file=sys.stderr)

    measured = result["models"]
    result["models"] = {n: measured[n] if n in measured else kept[n]
                        for n in ZOO if n in measured or n in kept}
    os.makedirs(args.out, exist_ok=True)
    with open(path, "w") as f:
        # one line per layer keeps the file diffable and small
        f.write(json.dumps({k: v for k, v in result.items() if k != "models"})[:-1])
        f.write(', "models": {')
        for i, (name, e) in enumerate(result["models"].items()):
            f.write(("," if i else "") + f"\n{json.dumps(name)}: {{")
            f.write(f'"source": {json.dumps(e["source"])}, "native": {e["native"]}, ')
            f.write(f'"published": {json.dumps(e["published"])},\n ')
            f.write(f'"rejected": {json.dumps(e["rejected"])},\n "sizes": {{')
            f.write(",".join(f"\n  {json.dumps(s)}: {json.dumps(t)}"
                             for s, t in e["sizes"].items()))
            f.write('},\n "layers": {')
            f.write(",".join(f"\n  {json.dumps(n)}: {json.dumps(s)}"
                             for n, s in e["layers"].items()))
            f.write("}}")
        f.write("\n}}\n")


if __name__ == "__main__":
    main()
