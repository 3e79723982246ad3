#!/usr/bin/python3
"""Writes a scalemeter network file (docs/network-format.md) from a PyTorch model.

  python3 tools/export_torch.py resnet18 -o models/resnet18.ini
  python3 tools/export_torch.py --module my_pkg.my_file:MyNet --input 3x32x32 -o my.ini
  python3 tools/export_torch.py --module path/to/file.py:MyNet -o my.ini

The model (a torchvision model name, or a class constructed with no arguments) is traced with
torch.fx and run once on zeros so every node has its real shape. Each node becomes
a layer of a plugin type (plugins/*.c):

  modules    Conv2d, Linear, BatchNorm1d/2d, LayerNorm (and ConvNeXt's LayerNorm2d), MaxPool2d,
             AvgPool2d, AdaptiveAvgPool2d, ReLU, ReLU6, SiLU, Sigmoid, Tanh, GELU, Hardswish,
             Hardsigmoid, Dropout, Flatten, Identity, StochasticDepth, Softmax, ChannelShuffle,
             torchvision's Permute
  functions  + += torch.add (two tensors), * torch.mul (two tensors, or a parameter of shape
             C x 1 x 1 times C x H x W: layer_scale), torch.cat, torch.flatten, view/reshape
             that flatten, chunk/split into equal pieces, permute/transpose, mean over H and W,
             F.relu & co, F.adaptive_avg_pool2d, F.max_pool2d, F.avg_pool2d, F.dropout,
             torchvision's stochastic_depth, and the view-transpose-view of a channel shuffle
  no layer   contiguous, a view or reshape that keeps the shape, size/getattr/getitem on
             integers

Names: a module's layer is named by the module's qualified name (layer1.0.conv1); a module called
several times (ResNet's shared ReLU) gives NAME, NAME_1, NAME_2; a function's layer is named
after the module whose forward calls it and the operation (layer1.0.add, features.3.add, add_1
for the second in one module).

Blocks follow the framework's modules: the block of a layer is the first module on its path,
from the root down, that has children and is not a grouping container (nn.Sequential,
nn.ModuleList, nn.ModuleDict) whose own children have children; grouping containers of the
latter kind are looked through. So ResNet gives layer1.0, MobileNetV2 features.0 and features.3,
DenseNet features.denseblock1.denselayer1 and features.transition1, VGG features and
classifier. Layers outside every block (ResNet's conv1, fc) go to [layers].

A torch.cat whose first inputs are the inputs of an earlier concatenation (DenseNet's growing
concatenations) is written as a concatenation of that earlier one and the rest: the same
tensor, elements, bytes and cost, and lines that stay short.

An operation without a layer type stops the export with a message naming the node; add a plugin
(docs/plugins.md) and a rule below (module_rule for modules, Exporter.on_function for functions
and methods).
"""
import argparse
import dis
import importlib
import importlib.util
import inspect
import operator
import os
import re
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also when imported
from torch_python import require_torch  # noqa: E402  (torch may be in another Python)

require_torch("export_torch.py")
import torch  # noqa: E402
import torch.fx as fx
import torch.nn.functional as F
from torch import nn

MAX_LINE = 198  # the network reader refuses longer lines
MAX_DIMS = 4  # SM_MAX_DIMS: dimensions of one sample

# Defaults of torchvision builders for the zoo: GoogLeNet and Inception v3 without their
# auxiliary heads (as at inference); Inception's native input is 299 x 299.
TORCHVISION_KWARGS = {
    "googlenet": {"aux_logits": False, "init_weights": False},
    "inception_v3": {"aux_logits": False, "init_weights": False},
}
TORCHVISION_INPUT = {"inception_v3": (3, 299, 299)}


class ExportError(Exception):
    pass


# ---- the model -------------------------------------------------------------------------------


def load_model(args):
    if args.module:
        path, _, cls = args.module.rpartition(":")
        if not path or not cls:
            raise ExportError(f"--module {args.module}: expected MODULE:CLASS "
                              "(my_pkg.my_file:MyNet or path/to/file.py:MyNet)")
        try:
            if path.endswith(".py") or os.sep in path:
                spec = importlib.util.spec_from_file_location(
                    os.path.splitext(os.path.basename(path))[0], path)
                if spec is None:
                    raise ImportError(f"cannot load {path}")
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
            else:
                sys.path.insert(0, os.getcwd())
                mod = importlib.import_module(path)
        except (ImportError, OSError, SyntaxError) as e:
            raise ExportError(f"--module {args.module}: cannot import {path}: {e}")
        if not hasattr(mod, cls):
            raise ExportError(f"--module {args.module}: {path} has no {cls}")
        return getattr(mod, cls)(), f"{path}:{cls}"
    import torchvision
    builder = getattr(torchvision.models, args.model, None)
    if builder is None or not callable(builder) or args.model.startswith("_"):
        raise ExportError(f"{args.model}: not a model of torchvision.models "
                          "(use --module MODULE:CLASS for your own)")
    kwargs = dict(TORCHVISION_KWARGS.get(args.model, {}))
    return builder(weights=None, **kwargs), f"torchvision.models.{args.model}"


def parse_input(text):
    try:
        dims = tuple(int(v) for v in text.split("x"))
    except ValueError:
        dims = ()
    if not 1 <= len(dims) <= MAX_DIMS or min(dims) < 1:
        raise ExportError(f"--input {text}: expected sizes joined by 'x', such as 3x224x224")
    return dims


class UnpackingProxy(fx.Proxy):
    """fx's Proxy, whose `a, b = x.chunk(2, 1)` finds the unpacking by the instruction's offset
    (torch 1.13 indexes the instruction list, which Python 3.11's inline caches shift)."""

    def __iter__(self):
        frame = inspect.currentframe().f_back
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti and inst.opname == "UNPACK_SEQUENCE":
                return (self[i] for i in range(inst.argval))
        return super().__iter__()


class ScopeTracer(fx.Tracer):
    """fx's tracer that also records, on every node, the module whose forward created it, and
    keeps the module types module_rule knows whole (leaves)."""

    def __init__(self):
        super().__init__()
        self.scope = ""

    def is_leaf_module(self, m, qualname):
        try:
            known = module_rule(m) is not None
        except ExportError:
            known = True  # a known type with parameters it cannot write: reported at its node
        return known or super().is_leaf_module(m, qualname)

    def call_module(self, m, forward, args, kwargs):
        saved, self.scope = self.scope, self.path_of_module(m)
        try:
            return super().call_module(m, forward, args, kwargs)
        finally:
            self.scope = saved

    def proxy(self, node):
        return UnpackingProxy(node, self)

    def create_node(self, *args, **kwargs):
        node = super().create_node(*args, **kwargs)
        node.meta["scope"] = self.scope
        return node


def trace(model, input_shape):
    model.eval()
    try:
        graph = ScopeTracer().trace(model)
    except Exception as e:  # fx raises many kinds for untraceable code
        raise ExportError(f"torch.fx cannot trace the model: {type(e).__name__}: {e}")
    remove_dead_nodes(graph)
    gm = fx.GraphModule(model, graph)
    prop = ShapeRecorder(gm)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's performance hints are not ours to print
            # batch 2: a batch dimension is then told apart from a dimension of size 1
            prop.run(torch.zeros(2, *input_shape))
    except Exception as e:
        node = prop.current
        where = f" at node {node.name}" if node is not None else ""
        text = str(e).strip().splitlines()
        raise ExportError(f"the model does not run on an input of "
                          f"{'x'.join(map(str, input_shape))}{where}: {type(e).__name__}: "
                          f"{text[0] if text else ''}")
    return gm


class ShapeRecorder(fx.Interpreter):
    """Runs the traced graph and keeps, on each node, the shape of the tensor it gives (with
    the batch) in meta["shape"], or a list of shapes for a tuple of tensors."""

    def __init__(self, gm):
        super().__init__(gm)
        self.current = None

    def run_node(self, n):
        self.current = n
        result = super().run_node(n)
        if isinstance(result, torch.Tensor):
            n.meta["shape"] = tuple(result.shape)
        elif isinstance(result, (tuple, list)) and result and all(
                isinstance(r, torch.Tensor) for r in result):
            n.meta["shape"] = [tuple(r.shape) for r in result]
        return result


def remove_dead_nodes(graph):
    """Drops operations whose result nothing uses (code that computes and discards), keeping
    in-place ones (x.relu_(), x += y), whose effect is on their input."""
    for node in reversed(list(graph.nodes)):
        if node.users or node.op in ("placeholder", "output"):
            continue
        name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
        if name.endswith("_") and not name.startswith("_") or name.startswith("__i"):
            continue
        if node.op == "call_module" or name in ("iadd", "imul"):
            continue  # a module may keep state; an in-place operator changes its input
        graph.erase_node(node)


def shape_of(node):
    """Per-sample shape of a node's tensor output, or None when it is not one tensor."""
    shape = node.meta.get("shape")
    return shape[1:] if isinstance(shape, tuple) else None


# ---- rules: node -> layer --------------------------------------------------------------------


class Layer:
    """A layer to write: type, parameters (ordered), input nodes, base name and scope."""

    def __init__(self, type_, params, inputs, base=None, name=None):
        self.type = type_
        self.params = params
        self.inputs = inputs  # nodes (or Layer objects for layers made by one rule)
        self.base = base
        self.name = name


def pair(v):
    if isinstance(v, (tuple, list)):
        return (int(v[0]), int(v[1])) if len(v) == 2 else (int(v[0]), int(v[0]))
    return (int(v), int(v))


def pair_str(v):
    a, b = pair(v)
    return str(a) if a == b else f"{a}x{b}"


def opt(params, key, value, default):
    """Adds key=value unless it is the plugin's default."""
    if value != default:
        params.append((key, value))


def fmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def conv2d_params(m):
    if isinstance(m.padding, str):
        if m.padding == "valid":
            padding = (0, 0)
        else:  # 'same' at stride 1; PyTorch pads the odd remainder on one side only
            tot = [d * (k - 1) for d, k in zip(m.dilation, m.kernel_size)]
            if any(t % 2 for t in tot):
                raise ExportError("padding='same' with an even kernel pads unevenly")
            padding = tuple(t // 2 for t in tot)
    else:
        padding = m.padding
    p = [("out", m.out_channels), ("kernel", pair_str(m.kernel_size))]
    opt(p, "stride", pair_str(m.stride), "1")
    opt(p, "padding", pair_str(padding), "0")
    opt(p, "dilation", pair_str(m.dilation), "1")
    opt(p, "groups", m.groups, 1)
    opt(p, "bias", m.bias is not None, True)
    return p


def pool_params(kernel, stride, padding, dilation, ceil_mode, is_max):
    stride = kernel if stride is None or stride == [] or stride == () else stride
    p = [("kernel", pair_str(kernel))]
    opt(p, "stride", pair_str(stride), pair_str(kernel))
    opt(p, "padding", pair_str(padding), "0")
    if is_max:
        opt(p, "dilation", pair_str(dilation), "1")
    opt(p, "ceil_mode", bool(ceil_mode), False)
    return p


def adaptive_size(size, in_shape):
    h, w = size if isinstance(size, (tuple, list)) else (size, size)
    h = in_shape[1] if h is None else h
    w = in_shape[2] if w is None else w
    return f"{h}" if h == w else f"{h}x{w}"


def axis_of(dim, ndim_with_batch):
    """A dim of the batched tensor as an axis of the per-sample shape (the batch is no axis)."""
    d = dim + ndim_with_batch if dim < 0 else dim
    if d == 0:
        raise ExportError("the operation works across the batch dimension")
    return d - 1


def is_layernorm2d(m):
    return isinstance(m, nn.LayerNorm) and type(m).__name__ == "LayerNorm2d"


def torchvision_class(m, name, module):
    t = type(m)
    return t.__name__ == name and t.__module__.startswith(module)


def module_rule(m):
    """(type, params) for a module exported whole, or None."""
    if isinstance(m, nn.Conv2d):
        return "conv2d", conv2d_params(m)
    if isinstance(m, nn.Linear):
        p = [("out", m.out_features)]
        opt(p, "bias", m.bias is not None, True)
        return "linear", p
    if isinstance(m, (nn.BatchNorm2d, nn.BatchNorm1d)):
        p = []
        opt(p, "affine", bool(m.affine), True)
        return "batchnorm2d", p
    if is_layernorm2d(m):
        p = [("channels", True)]
        opt(p, "affine", bool(m.elementwise_affine), True)
        return "layernorm", p
    if isinstance(m, nn.LayerNorm):
        p = []
        opt(p, "dims", len(m.normalized_shape), 1)
        opt(p, "affine", bool(m.elementwise_affine), True)
        return "layernorm", p
    if isinstance(m, nn.MaxPool2d):
        if m.return_indices:
            return None
        return "maxpool2d", pool_params(m.kernel_size, m.stride, m.padding, m.dilation,
                                        m.ceil_mode, True)
    if isinstance(m, nn.AvgPool2d):
        return "avgpool2d", pool_params(m.kernel_size, m.stride, m.padding, 1, m.ceil_mode,
                                        False)
    if isinstance(m, nn.AdaptiveAvgPool2d):
        return "adaptive_avgpool2d", [("size", m.output_size)]  # None sizes: resolved later
    for cls, name in ACTIVATION_MODULES:
        if type(m) is cls:
            return name, []
    if isinstance(m, (nn.Dropout, nn.Dropout2d)):
        return "dropout", [("p", float(m.p))]
    if isinstance(m, nn.Flatten):
        return "flatten", [("start_dim", m.start_dim), ("end_dim", m.end_dim)]
    if isinstance(m, nn.Identity) or torchvision_class(m, "StochasticDepth", "torchvision"):
        return "identity", []
    if isinstance(m, nn.Softmax):
        return "softmax", [("dim", m.dim)]
    if isinstance(m, nn.ChannelShuffle):
        return "channel_shuffle", [("groups", m.groups)]
    if torchvision_class(m, "Permute", "torchvision"):
        return "permute", [("dims", list(m.dims))]
    return None


ACTIVATION_MODULES = [(nn.ReLU, "relu"), (nn.ReLU6, "relu6"), (nn.SiLU, "silu"),
                      (nn.Sigmoid, "sigmoid"), (nn.Tanh, "tanh"), (nn.GELU, "gelu"),
                      (nn.Hardswish, "hardswish"), (nn.Hardsigmoid, "hardsigmoid")]

ACTIVATION_FUNCTIONS = {
    F.relu: "relu", torch.relu: "relu", torch.relu_: "relu", F.relu_: "relu",
    F.relu6: "relu6", F.silu: "silu", F.sigmoid: "sigmoid", torch.sigmoid: "sigmoid",
    F.tanh: "tanh", torch.tanh: "tanh", F.gelu: "gelu", F.hardswish: "hardswish",
    F.hardsigmoid: "hardsigmoid",
}
ACTIVATION_METHODS = {"relu": "relu", "relu_": "relu", "sigmoid": "sigmoid",
                      "sigmoid_": "sigmoid", "tanh": "tanh", "tanh_": "tanh"}


def stochastic_depth_functions():
    try:
        from torchvision.ops import stochastic_depth
        return {stochastic_depth}
    except ImportError:
        return set()


class Exporter:
    def __init__(self, model, gm):
        self.gm = gm
        # the model's own modules: the GraphModule keeps the leaves but turns the modules
        # around them into plain nn.Module, losing the containers that blocks follow
        self.modules = dict(model.named_modules())
        self.params = dict(model.named_parameters())
        self.layers = []  # in graph order
        self.value = {}  # node -> Layer or "@input" (the tensor the node produces)
        self.consumed = set()  # nodes folded into a pattern (channel shuffle)
        self.calls = {}  # module target -> times called
        self.stochastic_depth = stochastic_depth_functions()

    # -- helpers --

    def fail(self, node, what, hint=True):
        op = node.target if isinstance(node.target, str) else getattr(
            node.target, "__name__", str(node.target))
        scope = node.meta.get("scope") if node.op != "call_module" else None
        where = f"node {node.name} ({node.op} {op}" + (f", in {scope}" if scope else "") + ")"
        msg = f"{where}: {what}"
        if hint:
            msg += ("; scalemeter has no layer type for it: write a plugin (docs/plugins.md) and "
                    "map it in tools/export_torch.py (module_rule, Exporter.on_function)")
        raise ExportError(msg)

    def arg(self, node, i, name, default=None):
        if len(node.args) > i:
            return node.args[i]
        return node.kwargs.get(name, default)

    def tensor_inputs(self, node, values):
        out = []
        for v in values:
            if isinstance(v, fx.Node) and v in self.value:
                out.append(v)
            elif isinstance(v, fx.Node):
                self.fail(node, f"input {v.name} is not a tensor this exporter follows")
            else:
                self.fail(node, f"an operand is the constant {v!r}, not a tensor")
        return out

    def add(self, node, type_, params, inputs, base):
        layer = Layer(type_, params, inputs, base=base)
        layer.scope = node.meta.get("scope", "")
        layer.node = node
        self.layers.append(layer)
        self.value[node] = layer
        return layer

    def alias(self, node, src):
        self.value[node] = self.value[src]

    # -- the walk --

    def run(self):
        placeholders = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != 1:
            raise ExportError(f"the model's forward takes {len(placeholders)} inputs; "
                              "scalemeter networks have one")
        for node in self.gm.graph.nodes:
            if node in self.consumed:
                continue
            try:
                self.on_node(node)
            except ExportError as e:
                if not str(e).startswith("node "):
                    self.fail(node, str(e), hint=False)  # name the node of a rule's refusal
                raise
        if isinstance(self.output, str):
            raise ExportError("the model returns its input unchanged")
        return self.layers

    def on_node(self, node):
        if node.op == "placeholder":
            self.value[node] = "@input"
        elif node.op == "output":
            out = node.args[0]
            if not isinstance(out, fx.Node) or out not in self.value:
                self.fail(node, "the model returns something other than one tensor "
                                f"({out!r})", hint=False)
            self.output = self.value[out]
        elif node.op == "get_attr":
            pass  # parameters and buffers: used by the operation that reads them
        elif shape_of(node) is None:
            # integers (x.size(), x.shape[1] // g) and tuples: followed where used
            if node.op == "call_module":
                self.fail(node, "the module does not return one tensor")
        elif node.op == "call_module":
            self.on_module(node)
        else:
            self.on_function(node)

    def on_module(self, node):
        m = self.modules[node.target]
        rule = module_rule(m)
        if rule is None:
            self.fail(node, f"module {node.target} of type {type(m).__name__}")
        type_, params = rule
        inputs = self.tensor_inputs(node, node.args[:1])
        in_shape, out_shape = shape_of(inputs[0]), shape_of(node)
        # parameters that need the shapes
        if type_ == "adaptive_avgpool2d":
            params = [("size", adaptive_size(params[0][1], in_shape))]
        elif type_ == "flatten":
            params = self.flatten_params(node, params[0][1], params[1][1], len(in_shape) + 1)
        elif type_ == "softmax":
            dim = params[0][1]
            params = [] if dim is None else [("axis", axis_of(dim, len(out_shape) + 1))]
            params = [] if params == [("axis", len(out_shape) - 1)] else params
        elif type_ == "permute":
            params = self.permute_params(node, params[0][1])
        n = self.calls.get(node.target, 0)
        self.calls[node.target] = n + 1
        if n and next(m.parameters(), None) is not None:
            # every layer of a network file owns its weights: sharing would count them twice
            self.fail(node, f"module {node.target} holds weights and is called more than once; "
                            "scalemeter would count its weights once per call", hint=False)
        layer = self.add(node, type_, params, inputs, None)
        layer.name = node.target if n == 0 else f"{node.target}_{n}"

    def flatten_params(self, node, start, end, ndim):
        s = start + ndim if start < 0 else start
        e = end + ndim if end < 0 else end
        if s < 1 or e != ndim - 1:
            self.fail(node, f"flatten of dims {start}..{end} (scalemeter flattens from a "
                            "dim after the batch to the last)")
        return [] if s == 1 else [("start", s - 1)]

    def permute_params(self, node, dims):
        dims = [d + len(dims) if d < 0 else d for d in dims]
        if not dims or dims[0] != 0:
            self.fail(node, f"permute {dims} moves the batch dimension")
        order = [d - 1 for d in dims[1:]]
        return [("order", ",".join(map(str, order)))]

    def on_function(self, node):
        t = node.target
        method = node.op == "call_method"
        shape = shape_of(node)
        first = node.args[0] if node.args else None
        in_shape = shape_of(first) if isinstance(first, fx.Node) else None

        if (not method and t in (operator.add, operator.iadd, torch.add)) or (
                method and t in ("add", "add_")):
            if node.kwargs.get("alpha", 1) != 1:
                self.fail(node, "torch.add with alpha")
            inputs = self.tensor_inputs(node, node.args[:2])
            self.add(node, "add", [], inputs, "add")
        elif (not method and t in (operator.mul, operator.imul, torch.mul)) or (
                method and t in ("mul", "mul_")):
            self.on_mul(node)
        elif not method and t is torch.cat:
            tensors = self.arg(node, 0, "tensors")
            dim = self.arg(node, 1, "dim", 0)
            inputs = self.tensor_inputs(node, list(tensors))
            axis = axis_of(dim, len(shape) + 1)
            self.add(node, "concat", [] if axis == 0 else [("axis", axis)], inputs, "cat")
        elif (not method and t is torch.flatten) or (method and t == "flatten"):
            start = self.arg(node, 1, "start_dim", 0)
            end = self.arg(node, 2, "end_dim", -1)
            params = self.flatten_params(node, start, end, len(in_shape) + 1)
            self.add(node, "flatten", params, [first], "flatten")
        elif (method and t in ("view", "reshape")) or (not method and t is torch.reshape):
            self.on_view(node)
        elif method and t == "contiguous":
            self.alias(node, first)
        elif (not method and t in (torch.permute, torch.transpose)) or (
                method and t in ("permute", "transpose")):
            self.on_permute(node)
        elif (not method and t in (torch.chunk, torch.split)) or (
                method and t in ("chunk", "split")):
            pass  # a tuple; its pieces are taken by operator.getitem below
        elif not method and t is operator.getitem:
            self.on_getitem(node)
        elif (method and t == "mean") or (not method and t is torch.mean):
            self.on_mean(node)
        elif not method and t in ACTIVATION_FUNCTIONS:
            self.add(node, ACTIVATION_FUNCTIONS[t], [], [first], ACTIVATION_FUNCTIONS[t])
        elif method and t in ACTIVATION_METHODS:
            self.add(node, ACTIVATION_METHODS[t], [], [first], ACTIVATION_METHODS[t])
        elif not method and t is F.adaptive_avg_pool2d:
            size = adaptive_size(self.arg(node, 1, "output_size"), in_shape)
            self.add(node, "adaptive_avgpool2d", [("size", size)], [first], "adaptive_avg_pool2d")
        elif not method and t in (F.max_pool2d, torch.max_pool2d):
            if self.arg(node, 6, "return_indices", False):
                self.fail(node, "max_pool2d with return_indices")
            p = pool_params(self.arg(node, 1, "kernel_size"), self.arg(node, 2, "stride"),
                            self.arg(node, 3, "padding", 0), self.arg(node, 4, "dilation", 1),
                            self.arg(node, 5, "ceil_mode", False), True)
            self.add(node, "maxpool2d", p, [first], "max_pool2d")
        elif not method and t in (F.avg_pool2d, torch._C._nn.avg_pool2d):
            p = pool_params(self.arg(node, 1, "kernel_size"), self.arg(node, 2, "stride"),
                            self.arg(node, 3, "padding", 0), 1,
                            self.arg(node, 4, "ceil_mode", False), False)
            self.add(node, "avgpool2d", p, [first], "avg_pool2d")
        elif not method and t in (F.dropout, torch.dropout):
            self.add(node, "dropout", [("p", float(self.arg(node, 1, "p", 0.5)))], [first],
                     "dropout")
        elif not method and t in self.stochastic_depth:
            self.add(node, "identity", [], [first], "stochastic_depth")
        elif not method and t in (F.softmax, torch.softmax):
            axis = axis_of(self.arg(node, 1, "dim"), len(shape) + 1)
            self.add(node, "softmax", [] if axis == len(shape) - 1 else [("axis", axis)],
                     [first], "softmax")
        else:
            what = f"method .{t}()" if method else f"function {getattr(t, '__name__', t)}"
            self.fail(node, what)

    def on_mul(self, node):
        a, b = node.args[0], node.args[1]
        params = [v for v in (a, b) if isinstance(v, fx.Node) and v.op == "get_attr"]
        if len(params) == 1:
            p, x = (a, b) if params[0] is a else (b, a)
            tensor = self.params.get(p.target)
            xs = shape_of(x)
            if tensor is not None and tensor.requires_grad and xs is not None:
                ps = tuple(tensor.shape)
                # a scale per channel: C x 1 x 1 against C x H x W (or E against S x E)
                axis = None
                if len(ps) == len(xs) and sum(d != 1 for d in ps) == 1:
                    axis = next(i for i, d in enumerate(ps) if d != 1)
                elif len(ps) == 1:
                    axis = len(xs) - 1
                if axis is not None and ps[axis if len(ps) > 1 else 0] == xs[axis]:
                    layer = self.add(node, "layer_scale", [] if axis == 0 else
                                     [("axis", axis)], [x], None)
                    layer.name = p.target
                    return
            self.fail(node, f"product with the {'parameter' if tensor is not None else 'buffer'}"
                            f" {p.target} of shape {list(getattr(tensor, 'shape', []))}")
        inputs = self.tensor_inputs(node, node.args[:2])
        self.add(node, "mul", [], inputs, "mul")

    def on_view(self, node):
        src = node.args[0]
        ins, out = shape_of(src), shape_of(node)
        if out == ins:
            self.alias(node, src)
            return
        if self.channel_shuffle(node):
            return
        # a flatten from some dim to the last
        for s in range(len(ins)):
            flat = ins[:s] + (prod(ins[s:]),)
            if out == flat:
                self.add(node, "flatten", [] if s == 0 else [("start", s)], [src], "flatten")
                return
        self.fail(node, f"view/reshape of {list(ins)} into {list(out)} (per sample)")

    def channel_shuffle(self, node):
        """view(N, g, C/g, H, W) -> transpose(1, 2) [-> contiguous] -> view(N, C, H, W)."""
        src = node.args[0]
        ins, mid = shape_of(src), shape_of(node)
        if len(ins) != 3 or len(mid) != 4 or mid[0] * mid[1] != ins[0] or mid[2:] != ins[1:]:
            return False
        chain, cur = [node], node
        users = list(cur.users)
        if len(users) != 1 or not is_transpose12(users[0]):
            return False
        cur = users[0]
        chain.append(cur)
        users = list(cur.users)
        if len(users) == 1 and users[0].op == "call_method" and users[0].target == "contiguous":
            cur = users[0]
            chain.append(cur)
            users = list(cur.users)
        if len(users) != 1 or not (
                (users[0].op == "call_method" and users[0].target in ("view", "reshape",
                                                                        "flatten")) or
                (users[0].op == "call_function" and users[0].target in (torch.reshape,
                                                                          torch.flatten))):
            return False
        end = users[0]
        if shape_of(end) != ins:
            return False
        self.consumed.update(chain[1:] + [end])
        layer = self.add(end, "channel_shuffle", [("groups", mid[0])], [src], "channel_shuffle")
        self.value[node] = layer  # no other user, but keep the map total
        return True

    def on_permute(self, node):
        t, src = node.target, node.args[0]
        nd = len(shape_of(src)) + 1
        if t in ("transpose", torch.transpose):
            d0 = self.arg(node, 1, "dim0")
            d1 = self.arg(node, 2, "dim1")
            dims = list(range(nd))
            d0, d1 = d0 % nd, d1 % nd
            dims[d0], dims[d1] = dims[d1], dims[d0]
        else:
            dims = node.args[1:] if node.op == "call_method" else [self.arg(node, 1, "dims")]
            if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
                dims = dims[0]
            dims = list(dims)
        self.add(node, "permute", self.permute_params(node, dims), [src], "permute")

    def on_getitem(self, node):
        src, index = node.args
        if not (isinstance(src, fx.Node) and src.op in ("call_function", "call_method") and
                (src.target in (torch.chunk, torch.split) or src.target in ("chunk", "split"))):
            self.fail(node, "indexing (x[...]) of a tensor or tuple")
        x = src.args[0]
        xs = shape_of(x)
        pieces = src.meta["shape"]
        dim = self.arg(src, 2, "dim", 0)
        axis = axis_of(dim, len(xs) + 1)
        if src.target in (torch.chunk, "chunk"):
            chunks = self.arg(src, 1, "chunks")
        else:
            sizes = [p[1:][axis] for p in pieces]
            n = xs[axis]
            size = sizes[0]
            chunks = len(sizes)
            # equal pieces (the last may be smaller) are what torch.chunk(chunks) gives
            if -(-n // chunks) != size:
                self.fail(node, f"split into unequal pieces {sizes}")
        p = [("chunks", chunks), ("index", index)]
        opt(p, "axis", axis, 0)
        self.add(node, "chunk", p, [x], "chunk")

    def on_mean(self, node):
        src = node.args[0]
        dims = self.arg(node, 1, "dim")
        keep = self.arg(node, 2, "keepdim", False)
        nd = len(shape_of(src)) + 1
        dims = sorted(d % nd for d in (dims if isinstance(dims, (list, tuple)) else [dims]))
        if nd != 4 or dims != [2, 3]:
            self.fail(node, f"mean over dims {dims} (only the spatial mean of NxCxHxW is mapped)")
        pool = self.add(node, "adaptive_avgpool2d", [("size", "1")], [src], "mean")
        if not keep:
            flat = Layer("flatten", [], [pool], base="mean_flatten")
            flat.scope = pool.scope
            flat.node = node
            self.layers.append(flat)
            self.value[node] = flat


def is_transpose12(n):
    if n.op == "call_method" and n.target == "transpose" or (
            n.op == "call_function" and n.target is torch.transpose):
        return sorted(a % 5 for a in n.args[1:3]) == [1, 2]
    if n.op == "call_method" and n.target == "permute" or (
            n.op == "call_function" and n.target is torch.permute):
        dims = n.args[1:] if n.op == "call_method" else n.args[1]
        if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
            dims = dims[0]
        return list(dims) == [0, 2, 1, 3, 4]
    return False


def prod(v):
    r = 1
    for x in v:
        r *= x
    return r


# ---- names and blocks ------------------------------------------------------------------------


def is_container(m):
    return isinstance(m, (nn.Sequential, nn.ModuleList, nn.ModuleDict))


def has_children(m):
    return next(m.children(), None) is not None


def block_of(modules, path):
    """The block holding a layer of module path `path` (or called in it), or None."""
    if not path:
        return None
    parts = path.split(".")
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        m = modules.get(prefix)
        if m is None or not has_children(m):
            return None
        if is_container(m) and any(has_children(c) for c in m.children()):
            continue  # a grouping of blocks: look through it
        return prefix
    return None


def assign_names(layers, modules):
    used = set(l.name for l in layers if l.name)
    for l in layers:
        if l.name is None:
            base = f"{l.scope}.{l.base}" if l.scope else l.base
            name, k = base, 1
            while name in used:
                name, k = f"{base}_{k}", k + 1
            l.name = name
            used.add(name)
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", l.name) or l.name.startswith("@"):
            raise ExportError(f"layer name {l.name!r} has characters the network format "
                              "does not allow")
    for l in layers:
        src = l.node.target if l.node.op == "call_module" else l.scope
        l.block = block_of(modules, src)
        if l.block and not l.name.startswith(l.block + "."):
            l.block = None  # named after something outside the block that uses it


def reuse_concat_prefixes(layers):
    """Rewrites cat(a1..an) as cat(c, a(m+1)..an) where an earlier concat c = cat(a1..am)."""
    seen = []  # (inputs as written in the model, params, layer)
    for l in layers:
        if l.type != "concat":
            continue
        ins = tuple(l.inputs)
        best = None
        for prefix, params, c in seen:
            if (params == l.params and 2 <= len(prefix) < len(ins) and ins[:len(prefix)] == prefix
                    and (best is None or len(prefix) > len(best[0]))):
                best = (prefix, c)
        seen.append((ins, l.params, l))
        if best is not None:
            l.inputs = [best[1]] + list(ins[len(best[0]):])


# ---- writing ---------------------------------------------------------------------------------


def write_network(layers, exporter, name, input_shape, source, header):
    lines = [f"; {h}" if h else ";" for h in header]
    lines += ["[network]", f"name = {name}", f"input = {'x'.join(map(str, input_shape))}",
              f"source = {source}"]

    # group the layers of a block together (stable: at the block's first layer)
    groups, index = [], {}
    for l in layers:
        key = l.block
        if key is not None and key in index:
            groups[index[key]][1].append(l)
            continue
        if key is None and groups and groups[-1][0] is None:
            groups[-1][1].append(l)
            continue
        if key is not None:
            index[key] = len(groups)
        groups.append((key, [l]))

    names = {l.name for l in layers}
    prev = "@input"  # what a layer without from= gets: the layer written just before
    for block, members in groups:
        lines.append("")
        lines.append(f"[block {block}]" if block else "[layers]")
        block_in = prev
        local = {l.name[len(block) + 1:] for l in members} if block else set()
        width = max(len(local_name(l, block)) for l in members)
        for l in members:
            ins = ["@input" if v == "@input" else v.name for v in l.inputs]
            text = l.type
            for k, v in l.params:
                text += f" {k}={fmt(v)}"
            if ins != [prev]:
                refs = [ref(i, block, block_in, local, names, l) for i in ins]
                text += " from=" + ",".join(refs)
            lines.extend(wrap(f"{local_name(l, block).ljust(width)} = {text}", l))
            prev = l.name
    return "\n".join(lines) + "\n"


def local_name(l, block):
    return l.name[len(block) + 1:] if block else l.name


def ref(name, block, block_in, local, names, l):
    if name == "@input":
        return "@input"
    if block and name == block_in:
        return "@in"
    if block and name.startswith(block + ".") and name[len(block) + 1:] in local:
        return name[len(block) + 1:]
    if block and f"{block}.{name}" in names:
        raise ExportError(f"layer {l.name}: its input {name} would resolve to "
                          f"{block}.{name} inside block {block}")
    return name


def wrap(line, l):
    if len(line) <= MAX_LINE:
        return [line]
    head, *tokens = line.split(" = ", 1)[1].split(" ")
    key = line.split(" = ", 1)[0]
    out, cur = [], f"{key} = {head}"
    for t in tokens:
        if len(cur) + 1 + len(t) > MAX_LINE:
            out.append(cur)
            cur = "    " + t
        else:
            cur += " " + t
    out.append(cur)
    if any(len(s) > MAX_LINE for s in out):
        raise ExportError(f"layer {l.name}: a parameter is longer than a line "
                          f"({MAX_LINE} characters)")
    return out


# ---- main ------------------------------------------------------------------------------------


def export(model, input_shape, name, source, command):
    gm = trace(model, input_shape)
    ex = Exporter(model, gm)
    layers = ex.run()
    for l in layers:
        l.inputs = [ex.value[v] if isinstance(v, fx.Node) else v for v in l.inputs]
    assign_names(layers, ex.modules)
    reuse_concat_prefixes(layers)
    header = [f"{name}, exported from {source} by tools/export_torch.py "
              f"(torch {torch.__version__}):",
              f"  {command}",
              "Layer and block names are the framework's modules; regenerate rather than edit."]
    return write_network(layers, ex, name, input_shape, source, header)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="export_torch.py",
        description="Writes a scalemeter network file from a PyTorch model (torch.fx).",
        epilog="Examples: export_torch.py resnet18 -o models/resnet18.ini; "
               "export_torch.py --module my_pkg.my_file:MyNet --input 3x32x32 -o my.ini")
    ap.add_argument("model", nargs="?", help="a torchvision.models builder (resnet50)")
    ap.add_argument("--module", help="your model as MODULE:CLASS (my_pkg.net:Net or "
                                     "path/to/net.py:Net), constructed without arguments")
    ap.add_argument("--input", help="one sample's shape, CxHxW (default 3x224x224; "
                                    "3x299x299 for inception_v3)")
    ap.add_argument("--name", help="the network's name (default: the model's)")
    ap.add_argument("-o", "--output", help="file to write (default: standard output)")
    args = ap.parse_args(argv)
    if bool(args.model) == bool(args.module):
        ap.error("give either a torchvision model name or --module MODULE:CLASS")
    try:
        input_shape = parse_input(args.input) if args.input else TORCHVISION_INPUT.get(
            args.model, (3, 224, 224))
        model, source = load_model(args)
        name = args.name or args.model or args.module.rpartition(":")[2].lower()
        command = "python3 tools/export_torch.py " + " ".join(
            ([args.model] if args.model else ["--module", args.module]) +
            (["--input", args.input] if args.input else []) +
            (["--name", args.name] if args.name else []) +
            (["-o", args.output] if args.output else []))
        text = export(model, input_shape, name, source, command)
    except ExportError as e:
        print(f"export_torch.py: {args.model or args.module}: {e}", file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
