#!/usr/bin/python3
"""Measures, with PyTorch on the CPU, the activation memory of one training step with and without
activation checkpointing: the outside reference of `scalemeter predict --checkpoint` (issue 33).

Per network, batch and policy it builds the torchvision model (random weights, train mode),
runs one step (forward, cross-entropy loss on random labels, backward), frees the gradients
(zero_grad(set_to_none=True), PyTorch 2's default) and profiles a second step with
profile_memory=True. Every allocation and free of the CPU allocator is recorded with its
address and size (the CPU allocator caches nothing, so these are the tensors themselves);
their running sum from the step's start, at its largest, less the parameters' gradients
(the allocation at each .grad's address that the step ends with: scalemeter counts the
gradients apart), is the activations' peak:

  peak_bytes   the step's peak above its start, gradients of the weights left out: the
               tensors autograd keeps, the output and the loss's, the gradients of
               activations while the backward pass makes them, and the CPU kernels' own
               temporaries (oneDNN's reorders, im2col)
  peak_between_ops_bytes  the same less each operator's scratch, an allocation freed before
               the outermost ATen operator that made it returns (a kernel's workspace, which
               scalemeter counts apart from the activations): the tensors alone
  end_of_forward_bytes  the tensors alive when the loss has been computed: what is kept
  input_bytes  the input batch's, made before the step and so in none of the above (scalemeter
               counts it where a layer keeps it: add it to compare)

Policies, each checkpointing the modules named by the network file's [block]s of more than
one layer (models/NAME.ini), as scalemeter's model does (core/src/network/checkpoint.c):
  none       no checkpointing
  full       torch.utils.checkpoint (use_reentrant=False) around each such module
  selective  the same with torchtitan's op policy (create_selective_checkpoint_contexts,
             PyTorch 2.4 or later): the outputs of matrix products are saved, all but every
             second one, and of the attention kernel; the rest is recomputed. torchtitan lists
             aten.mm and CUDA's attention kernels; here aten.addmm (a linear with a bias) and
             the CPU's flash attention kernel are matrix product and attention too. A network
             whose in-place operator changes a saved output (alexnet's ReLU(inplace=True)
             after a linear) cannot run under it: PyTorch's error is recorded instead.

Output: one JSON object, {"torch", "models": {NAME: {BATCH: {POLICY: {...}}}}}, to -o FILE
(tests/data/reference/torch2/checkpoint_memory.json is this tool's under PyTorch 2.5.1 and
torchvision 0.20.1: `pip install torch==2.5.1 torchvision==0.20.1` in a venv, then
VENV/bin/python tools/torch_checkpoint_memory.py -o FILE).

Usage: PYTHON tools/torch_checkpoint_memory.py [-o FILE] [--batches 2,8] [MODEL ...]
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_python import require_torch  # noqa: E402

require_torch("torch_checkpoint_memory.py")
import torch  # noqa: E402
import torchvision  # noqa: E402
from torch.utils.checkpoint import checkpoint  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMAGE = 224
MODELS = ["alexnet", "resnet50", "mobilenet_v2", "vit_b_16", "resnet18", "vgg11_bn", "squeezenet1_0",
          "densenet121", "mnasnet0_5", "mobilenet_v3_small", "shufflenet_v2_x1_0", "efficientnet_b0",
          "regnet_y_400mf", "convnext_tiny"]


def expand(name):
    """'layer1.{1..2}' -> ['layer1.1', 'layer1.2'], as the network reader expands names."""
    m = re.search(r"\{(\d+)\.\.(\d+)\}", name)
    if not m:
        return [name]
    return [n for i in range(int(m.group(1)), int(m.group(2)) + 1)
            for n in expand(name[:m.start()] + str(i) + name[m.end():])]


def blocks(model_name):
    """Names of the network file's [block]s of more than one layer."""
    sections, current = {}, None
    for line in open(os.path.join(ROOT, "models", model_name + ".ini")):
        line = line.split(";")[0].strip()
        if line.startswith("["):
            current = line.strip("[]").split(None, 1)
            sections.setdefault(tuple(current), [])
        elif "=" in line and current:
            key, value = (s.strip() for s in line.split("=", 1))
            sections[tuple(current)].append((key, value))
    names = []
    for sec, lines in sections.items():
        if sec[0] != "block":
            continue
        use = [v for k, v in lines if k == "use"]
        n = len(sections.get(("template", use[0]), [])) if use else len(lines)
        if n > 1:
            names += expand(sec[1])
    return names


def selective_context():
    from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts
    aten = torch.ops.aten
    products = {aten.mm.default, aten.addmm.default}
    save = products | {aten._scaled_dot_product_flash_attention_for_cpu.default,
                       aten._scaled_dot_product_efficient_attention.default,
                       aten._scaled_dot_product_flash_attention.default}
    count = {"forward": 0, "recompute": 0}

    def policy(ctx, func, *args, **kwargs):
        mode = "recompute" if ctx.is_recompute else "forward"
        if func in products:
            count[mode] += 1
        keep = func in save and not (func in products and count[mode] % 2 == 0)
        return CheckpointPolicy.MUST_SAVE if keep else CheckpointPolicy.PREFER_RECOMPUTE

    return create_selective_checkpoint_contexts(policy)


def wrap(module, policy):
    forward = module.forward
    extra = {"context_fn": selective_context} if policy == "selective" else {}

    def checkpointed(*args, **kwargs):
        return checkpoint(forward, *args, use_reentrant=False, **extra, **kwargs)

    module.forward = checkpointed


def build(name, policy):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).train()
    if policy != "none":
        modules = dict(model.named_modules())
        for b in blocks(name):
            if b not in modules:
                sys.exit(f"torch_checkpoint_memory.py: {name}: no module named {b}")
            wrap(modules[b], policy)
    return model


def step(model, x, y):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()


def profiled_step(model, x, y):
    """(peak, peak between ops, live at the forward pass's end) of one step, in bytes."""
    from torch.profiler import ProfilerActivity, profile, record_function
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as p:
        with record_function("forward"):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        del loss
    events, forward_end = [], None

    def walk(node, op_end):
        nonlocal forward_end
        if node.name == "forward":
            forward_end = node.end_time_ns
        if op_end is None and node.name.startswith("aten::"):
            op_end = node.end_time_ns  # the outermost ATen operator running
        ef = node.extra_fields
        if type(ef).__name__.endswith("Allocation"):
            events.append((node.start_time_ns, ef.ptr, ef.alloc_size, op_end))
        for c in node.children:
            walk(c, op_end)

    for node in p.profiler.kineto_results.experimental_event_tree():
        walk(node, None)
    events.sort(key=lambda e: e[0])
    # the parameters' gradients, made by the backward pass (set_to_none) and kept as .grad:
    # the last allocation at each one's address is the gradient's own, not counted here
    grads = {p.grad.data_ptr() for p in model.parameters() if p.grad is not None}
    last = {e[1]: i for i, e in enumerate(events) if e[2] > 0}
    skip = {last[ptr] for ptr in grads if ptr in last}
    # an operator's own scratch (oneDNN's reorders and scratchpads): allocated and freed
    # inside the one outermost operator, a kernel's workspace rather than a tensor
    scratch, open_at = set(), {}
    for i, (t, ptr, size, op_end) in enumerate(events):
        if size > 0:
            open_at[ptr] = i
        elif ptr in open_at:
            j = open_at.pop(ptr)
            if events[j][3] is not None and t <= events[j][3]:
                scratch |= {i, j}
    live = between = peak = peak_between = 0
    at_forward_end = None
    for i, (t, ptr, size, _) in enumerate(events):
        if at_forward_end is None and forward_end is not None and t > forward_end:
            at_forward_end = between
        if i in skip:
            continue
        live += size
        between += 0 if i in scratch else size
        peak, peak_between = max(peak, live), max(peak_between, between)
    return peak, peak_between, at_forward_end if at_forward_end is not None else between


def measure(name, batch, policy):
    model = build(name, policy)
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(batch, 3, IMAGE, IMAGE, generator=gen)
    y = torch.randint(0, 1000, (batch,), generator=gen)
    step(model, x, y)
    model.zero_grad(set_to_none=True)
    peak, between, kept = profiled_step(model, x, y)
    return {"peak_bytes": peak, "peak_between_ops_bytes": between, "end_of_forward_bytes": kept,
            "input_bytes": x.numel() * x.element_size(),
            "checkpointed_blocks": len(blocks(name)) if policy != "none" else 0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output")
    ap.add_argument("--batches", default="2,8")
    ap.add_argument("models", nargs="*", default=MODELS)
    args = ap.parse_args()
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    policies = ["none", "full"]
    try:
        from torch.utils.checkpoint import create_selective_checkpoint_contexts  # noqa: F401
        policies.append("selective")
    except ImportError:
        print("torch_checkpoint_memory.py: PyTorch before 2.4 has no selective checkpointing; "
              "none and full only", file=sys.stderr)
    out = {"generator": "tools/torch_checkpoint_memory.py", "torch": torch.__version__,
           "torchvision": torchvision.__version__, "image": IMAGE, "models": {}}
    for name in args.models:
        for batch in (int(b) for b in args.batches.split(",")):
            for policy in policies:
                try:
                    r = measure(name, batch, policy)
                except RuntimeError as e:  # alexnet's in-place ReLU on a saved linear output
                    r = {"error": str(e).splitlines()[0]}
                out["models"].setdefault(name, {}).setdefault(str(batch), {})[policy] = r
                print(f"{name} batch {batch} {policy}: {r}", file=sys.stderr)
    text = json.dumps(out, indent=1, sort_keys=True) + "\n"
    if args.output:
        open(args.output, "w").write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
