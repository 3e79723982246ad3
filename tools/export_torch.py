#!/usr/bin/python3
"""Writes a scalemeter network file (docs/network-format.md) from a PyTorch model.

  python3 tools/export_torch.py resnet18 -o models/resnet18.ini
  python3 tools/export_torch.py --module my_pkg.my_file:MyNet --input 3x32x32 -o my.ini
  python3 tools/export_torch.py --module path/to/file.py:MyNet -o my.ini
  python3 tools/export_torch.py --module lm.py:TinyLM --input 128 --input-dtype long -o lm.ini

The model (a torchvision model name, or a class constructed with --kwargs) is traced with
torch.fx and run on zeros twice, with batches of 2 and 3, so every node has its real shape and
the dimension that changed is known to be the batch (a sequence-first tensor, S x N x E, has it
second). Each node becomes a layer of a plugin type (plugins/*/):

  modules    Conv2d, Linear, BatchNorm1d/2d, LayerNorm (and ConvNeXt's LayerNorm2d), GroupNorm,
             InstanceNorm1d/2d/3d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, ReLU, ReLU6, SiLU,
             Sigmoid, Tanh, GELU, Hardswish, Hardsigmoid, Dropout, Flatten, Identity,
             StochasticDepth, Softmax, ChannelShuffle, Embedding, MultiheadAttention (self-
             attention), LSTM, GRU, RNN; torchvision's Permute, Swin's ShiftedWindowAttention(V2),
             MaxViT's WindowPartition, WindowDepartition, SwapAxes and
             RelativePositionalMultiHeadAttention
  composites TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder,
             TransformerDecoder and Transformer, written as their attention, feed-forward,
             dropout, residual and norm layers (their forward cannot be traced)
  functions  + += torch.add (two tensors), * torch.mul (two tensors, or a parameter of shape
             C x 1 x 1 times C x H x W: layer_scale), torch.cat, torch.flatten, view/reshape
             that flatten, chunk/split into equal pieces, permute/transpose (one that moves only
             the batch makes no layer), mean over H and W, x[:, i] (select), F.relu & co,
             F.adaptive_avg_pool2d, F.max_pool2d, F.avg_pool2d, F.dropout, torchvision's
             stochastic_depth and Swin's _patch_merging_pad, the view-transpose-view of a channel
             shuffle, ViT's reshape-permute into tokens, a class token (a parameter expanded over
             the batch and concatenated in front: cls_token) and a position table (a parameter
             added to a sequence: pos_embedding)
  outputs    out, _ = lstm(x) and h_n[i] of the last layer (a position of the output: the last
             step forwards, the first backwards); out, _ = attention(x, x, x), impl=sdpa
             where it is called with need_weights=False (PyTorch 2.0 and later run it as
             scaled_dot_product_attention then)
  no layer   contiguous, a view or reshape that keeps the shape, size/getattr/getitem on
             integers

Inputs: --input CxHxW (images) or S with --input-dtype long (S token ids, for a model that starts
with nn.Embedding). Masks given to attention are not layers (PyTorch computes every score and
then masks them, so the counts are the same).

Names: a module's layer is named by the module's qualified name (layer1.0.conv1); a module called
several times (ResNet's shared ReLU) gives NAME, NAME_1, NAME_2; a function's layer is named
after the module whose forward calls it and the operation (layer1.0.add, features.3.add, add_1
for the second in one module); a composite's layers after the module and PyTorch's attribute
names (encoder.layers.0.self_attn, .linear1, .norm1).

Blocks follow the framework's modules: the block of a layer is the first module on its path,
from the root down, that has children and does not group blocks. Grouping modules are
containers (nn.Sequential, nn.ModuleList, nn.ModuleDict) whose children have children, and
modules holding such a stack of two or more blocks (ViT's Encoder, nn.TransformerEncoder); they
are looked through. So ResNet gives layer1.0, MobileNetV2 features.0 and features.3, DenseNet
features.denseblock1.denselayer1 and features.transition1, VGG features and classifier, ViT
encoder.layers.encoder_layer_0. Layers outside every block (ResNet's conv1, fc) go to [layers].

A torch.cat whose first inputs are the inputs of an earlier concatenation (DenseNet's growing
concatenations) is written as a concatenation of that earlier one and the rest: the same
tensor, elements, bytes and cost, and lines that stay short.

Where torch.fx cannot trace a module's forward (Python control flow on tensor values), the
tracing is retried with the nearest enclosing module the rules know kept whole. A forward that
cannot be traced stops the export with one line naming the module path and source line. The
operations without a layer type are all listed in one run, a line each naming the node, the
module it is called in and the model's source line, then what to do: add a plugin
(docs/plugin-abi.md) and a rule below (module_rule or composite_rule for modules,
Exporter.on_function for functions and methods).

Options: --kwargs '{"num_classes": 10}' gives the constructor keyword arguments; --module
path/file.py:Class puts the file's folder first on the import path (its sibling imports work as
when it is run); -v says which Python runs the export where this one has no torch.
"""
import argparse
import dis
import importlib
import importlib.util
import inspect
import json
import operator
import os
import re
import shlex
import sys
import traceback
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also when imported
from torch_python import require_torch  # noqa: E402  (torch may be in another Python)
import export_rules  # noqa: E402

# the installed command (scalemeter-export-torch) names itself in messages and file headers
PROG = os.environ.get("SCALEMETER_EXPORT_PROG") or "export_torch.py"
COMMAND = PROG if PROG != "export_torch.py" else "python3 tools/export_torch.py"
SCRIPT = PROG if PROG != "export_torch.py" else "tools/export_torch.py"
# the notice that torch was found in another interpreter only with -v: it is no news each run
require_torch(PROG, verbose=any(a in ("-v", "--verbose") for a in sys.argv[1:]))
import torch  # noqa: E402
import torch.fx as fx
import torch.nn.functional as F
from torch import nn

# rules that out-of-tree plugins bring (tools/export_rules.py): --rules and SCALEMETER_PLUGIN_PATH
RULES = export_rules.Rules()

MAX_LINE = 198  # the network reader refuses longer lines
MAX_DIMS = 4  # SM_MAX_DIMS: dimensions of one sample
INPUT_DTYPES = {"float": torch.float32, "long": torch.long}

# Defaults of torchvision builders for the zoo: GoogLeNet and Inception v3 without their
# auxiliary heads (as at inference); Inception's native input is 299 x 299.
TORCHVISION_KWARGS = {
    "googlenet": {"aux_logits": False, "init_weights": False},
    "inception_v3": {"aux_logits": False, "init_weights": False},
}
TORCHVISION_INPUT = {"inception_v3": (3, 299, 299)}


class ExportError(Exception):
    """One line (or several, one per operation, where a model has several the exporter cannot
    write); `unsupported`: an operation without a layer type, for which the way out is a plugin."""

    def __init__(self, msg, unsupported=False):
        super().__init__(msg)
        self.unsupported = unsupported


PLUGIN_HINT = ("scalemeter has no layer type for {}: write a plugin (docs/plugin-abi.md) and an "
               "export rule for it (NAME.export.py beside NAME.so, or --rules FILE)")


# ---- the model -------------------------------------------------------------------------------


def parse_kwargs(text):
    """--kwargs: a JSON object of the constructor's keyword arguments."""
    if text is None:
        return {}
    try:
        kwargs = json.loads(text)
    except ValueError as e:
        raise ExportError(f"--kwargs {text}: not JSON ({e})")
    if not isinstance(kwargs, dict):
        raise ExportError(f"--kwargs {text}: expected a JSON object such as "
                          "'{\"num_classes\": 10}'")
    return kwargs


def import_module_of(args, path):
    """The module of --module: a file (whose folder goes first on the import path, so that its
    sibling imports resolve as when it is run as a script) or a dotted name under the current
    folder."""
    if path.endswith(".py") or os.sep in path:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in sys.path:
            sys.path.insert(0, folder)
        spec = importlib.util.spec_from_file_location(
            os.path.splitext(os.path.basename(path))[0], path)
        if spec is None:
            raise ImportError(f"cannot load {path}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(path)


def first_line(e):
    """An exception as one line: its type and its message's first line."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def construct(args, what, builder, kwargs):
    if isinstance(builder, nn.Module) and not kwargs:
        return builder  # a module made at import (NET = MyNet()): the model itself
    if not callable(builder):
        raise ExportError(f"{what}: not a class ({type(builder).__name__})")
    try:
        model = builder(**kwargs)
    except TypeError as e:  # an unknown or missing keyword argument
        raise ExportError(f"{what}: cannot construct it with --kwargs {json.dumps(kwargs)}: {e}")
    except Exception as e:  # the model's own code: anything
        line = failing_line(e)
        raise ExportError(f"{what}: its constructor raised {first_line(e)}" +
                          (f" at {line}" if line else "") + "; fix it, or give other --kwargs")
    if not isinstance(model, nn.Module):
        raise ExportError(f"{what}: gives a {type(model).__name__}, not a torch.nn.Module; "
                          "name the model's class (a subclass of torch.nn.Module)")
    return model


def load_model(args):
    kwargs = parse_kwargs(getattr(args, "kwargs", None))
    if args.module:
        path, _, cls = args.module.rpartition(":")
        if not path or not cls:
            raise ExportError(f"--module {args.module}: expected MODULE:CLASS "
                              "(my_pkg.my_file:MyNet or path/to/file.py:MyNet)")
        try:
            mod = import_module_of(args, path)
        except (ImportError, OSError, SyntaxError) as e:
            raise ExportError(f"--module {args.module}: cannot import {path}: {e}")
        except (Exception, SystemExit) as e:  # the file's own code, run at import: anything
            line = failing_line(e)
            raise ExportError(f"--module {args.module}: importing {path} raised {first_line(e)}"
                              + (f" at {line}" if line else ""))
        if not hasattr(mod, cls):
            raise ExportError(f"--module {args.module}: {path} has no {cls}")
        args.module_file = getattr(mod, "__file__", None)
        return construct(args, f"--module {args.module}", getattr(mod, cls), kwargs), \
            f"{path}:{cls}"
    import torchvision
    builder = getattr(torchvision.models, args.model, None)
    if builder is None or not callable(builder) or args.model.startswith("_"):
        raise ExportError(f"{args.model}: not a model of torchvision.models "
                          "(use --module MODULE:CLASS for your own)")
    kwargs = dict(TORCHVISION_KWARGS.get(args.model, {}), **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.meshgrid's notice in Swin, MaxViT
        return construct(args, args.model, builder, dict(weights=None, **kwargs)), \
            f"torchvision.models.{args.model}"


def parse_input(text):
    try:
        dims = tuple(int(v) for v in text.split("x"))
    except ValueError:
        dims = ()
    if not 1 <= len(dims) <= MAX_DIMS or min(dims) < 1:
        raise ExportError(f"--input {text}: expected sizes joined by 'x', such as 3x224x224")
    return dims


class Unpacking:
    """fx's Proxy, whose `a, b = x.chunk(2, 1)` and `n, c, h, w = x.shape` find the unpacking by
    the instruction's offset (torch 1.13 indexes the instruction list, which Python 3.11's
    inline caches shift)."""

    def __iter__(self):
        frame = inspect.currentframe().f_back
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti and inst.opname == "UNPACK_SEQUENCE":
                return (self[i] for i in range(inst.argval))
        return super().__iter__()

    def __getattr__(self, k):
        return UnpackingAttribute(self, k)


class UnpackingProxy(Unpacking, fx.Proxy):
    pass


class UnpackingAttribute(Unpacking, fx.proxy.Attribute):
    pass


class ScopeTracer(fx.Tracer):
    """fx's tracer that also records, on every node, the module whose forward created it, and
    keeps whole (as leaves) the module types module_rule or composite_rule know, and the modules
    named in `leaves`. When tracing fails, `failed_in` is the innermost module being traced.
    The module's path is `module_path`, not `scope`: PyTorch 2's tracer keeps a Scope object of
    its own under that name, and a string there broke every trace."""

    def __init__(self, leaves=()):
        super().__init__()
        self.record_stack_traces = True  # node.stack_trace: the model's line of each operation
        self.module_path = ""
        self.leaves = set(leaves)
        self.failed_in = None

    def is_leaf_module(self, m, qualname):
        return (qualname in self.leaves or is_known(m) or
                super().is_leaf_module(m, qualname))

    def call_module(self, m, forward, args, kwargs):
        saved, self.module_path = self.module_path, self.path_of_module(m)
        try:
            return super().call_module(m, forward, args, kwargs)
        except Exception:
            if self.failed_in is None:
                self.failed_in = self.module_path
            raise
        finally:
            self.module_path = saved

    def proxy(self, node):
        return UnpackingProxy(node, self)

    def create_node(self, *args, **kwargs):
        node = super().create_node(*args, **kwargs)
        node.meta["scope"] = self.module_path
        return node


def is_known(m):
    """Whether the exporter writes module m whole (one layer, or the layers of a composite)."""
    if RULES.module_rule(m) is not None:
        return True  # a plugin's rule: kept whole, written by the rule
    try:
        return module_rule(m) is not None or composite_rule(m) is not None
    except ExportError:
        return True  # a known type with parameters it cannot write: reported at its node


def failing_line(e):
    """file:line: code of the innermost frame of the model's own code in an exception."""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if os.sep + "torch" + os.sep not in f.filename and f.filename != __file__]
    if not frames:
        return ""
    f = frames[-1]
    code = (f.line or "").strip()
    return f"{os.path.basename(f.filename)}:{f.lineno}" + (f" ({code})" if code else "")


def trace_graph(model):
    """Traces with torch.fx. Where the forward of a module cannot be traced (control flow on
    tensor values, iteration of a tensor), the tracing is retried with that module, or the
    nearest module around it that the exporter knows, kept whole as a leaf."""
    modules = dict(model.named_modules())
    leaves = set()
    while True:
        tracer = ScopeTracer(leaves)
        try:
            return tracer.trace(model)
        except Exception as e:  # fx raises many kinds for untraceable code
            path = tracer.failed_in or ""
            parts = path.split(".") if path else []
            known = [".".join(parts[:i]) for i in range(len(parts), 0, -1)
                     if is_known(modules[".".join(parts[:i])])]
            if known and known[0] not in leaves:
                leaves.add(known[0])
                continue
            text = str(e).strip().splitlines()
            op = f"{type(e).__name__}: {text[0] if text else ''}"
            if len(op) > 160:
                op = op[:157] + "..."
            line = failing_line(e)
            where = (f"module {path} ({type(modules[path]).__name__})" if path
                     else f"the forward of {type(model).__name__}")
            raise ExportError(
                f"torch.fx cannot trace {where}" + (f" at {line}" if line else "") +
                f": {op}; make that forward traceable (no Python control flow on tensor values),"
                " or give the module's type an export rule (NAME.export.py beside a plugin, or "
                "--rules FILE: docs/plugin-abi.md)")


def trace(model, input_shape, dtype=torch.float32):
    model.eval()
    graph = trace_graph(model)
    follow_in_place(graph, dict(model.named_modules()))
    remove_dead_nodes(graph)
    gm = fx.GraphModule(model, graph)
    # run twice, with batches of 2 and 3: the dimension that changes is the batch (a dimension
    # of size 1 is then told apart from it, and so is a batch that is not the first dimension)
    for batch, key in ((2, "shape"), (3, "shape3")):
        prop = ShapeRecorder(gm, key)
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # PyTorch's performance hints are not ours
                prop.run(torch.zeros(batch, *input_shape, dtype=dtype))
        except Exception as e:
            node = prop.current
            where = f" at node {node.name}" if node is not None else ""
            scope = node.meta.get("scope") if node is not None else None
            where += f" (in {scope})" if scope else ""
            text = str(e).strip().splitlines()
            raise ExportError(f"the model does not run on an input of "
                              f"{'x'.join(map(str, input_shape))}{where}: {type(e).__name__}: "
                              f"{text[0] if text else ''}")
    for node in gm.graph.nodes:
        node.meta["batch_axis"] = batch_axis_of(node.meta.get("shape"), node.meta.get("shape3"))
    return gm


def batch_axis_of(a, b):
    """The axis that differs between the shapes of the two runs (None: no batch), or a list of
    those for a tuple of tensors."""
    if isinstance(a, list) and isinstance(b, list):
        return [batch_axis_of(x, y) for x, y in zip(a, b)]
    if not isinstance(a, tuple) or not isinstance(b, tuple) or len(a) != len(b):
        return None
    diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    return diff[0] if len(diff) == 1 and (a[diff[0]], b[diff[0]]) == (2, 3) else None


class ShapeRecorder(fx.Interpreter):
    """Runs the traced graph and keeps, on each node, the shape of the tensor it gives (with
    the batch) in meta[key], or a list of shapes for a tuple of tensors."""

    def __init__(self, gm, key):
        super().__init__(gm)
        self.current = None
        self.key = key

    def run_node(self, n):
        self.current = n
        result = super().run_node(n)
        if isinstance(result, torch.Tensor):
            n.meta[self.key] = tuple(result.shape)
        elif isinstance(result, (tuple, list)) and result and all(
                isinstance(r, torch.Tensor) for r in result):
            n.meta[self.key] = [tuple(r.shape) for r in result]
        return result


def mutates_first_argument(node, modules):
    """Whether a node changes its first argument in place: y.add_(z), torch.relu_(y),
    y += z, F.relu(y, inplace=True), nn.ReLU(inplace=True)(y)."""
    if not node.args or not isinstance(node.args[0], fx.Node):
        return False
    if node.op == "call_method":
        return node.target.endswith("_") and not node.target.startswith("_")
    if node.op == "call_module":
        return getattr(modules.get(node.target), "inplace", False) is True
    if node.op != "call_function":
        return False
    if node.target in (operator.iadd, operator.imul, operator.isub, operator.itruediv):
        return isinstance(node.args[0].meta.get("shape", ()), tuple)  # not on integers
    name = getattr(node.target, "__name__", "")
    if name.endswith("_") and not name.startswith("_"):
        return True
    return node.target in INPLACE_ARGUMENT and (
        node.kwargs.get("inplace") is True or len(node.args) > 1 and node.args[1] is True)


def follow_in_place(graph, modules):
    """After an operation that changes a tensor in place, the tensor is its result: the later
    uses of the name it changed (y.add_(z); return fc3(y)) read the operation's node, not the
    node that made y, which torch.fx gives them. Returns how many uses were moved."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    moved = 0
    for node in list(graph.nodes):
        if not mutates_first_argument(node, modules):
            continue
        src = node.args[0]
        for user in list(src.users):
            if user is not node and order[user] > order[node]:
                user.replace_input_with(src, node)
                moved += 1
    return moved


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
    """Per-sample shape of a node's tensor output (its shape without the batch axis), or None
    when it is not one tensor with a batch."""
    shape, axis = node.meta.get("shape"), node.meta.get("batch_axis")
    if not isinstance(shape, tuple) or not isinstance(axis, int):
        return None
    return shape[:axis] + shape[axis + 1:]


def batch_axis(node):
    return node.meta.get("batch_axis")


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


# ---- rules of the types added for ordinary models (issue 35): conv1d, conv3d,
# conv_transpose2d, upsample, pixel_shuffle, mean, and F.conv2d / F.linear with parameters


def same_padding(kernel, dilation):
    tot = [d * (k - 1) for d, k in zip(dilation, kernel)]
    if any(t % 2 for t in tot):
        raise ExportError("padding='same' with an even kernel pads unevenly")
    return tuple(t // 2 for t in tot)


def conv_padding(m):
    if not isinstance(m.padding, str):
        return tuple(m.padding)
    if m.padding == "valid":
        return (0,) * len(m.kernel_size)
    return same_padding(m.kernel_size, m.dilation)


def conv1d_params(m):
    p = [("out", m.out_channels), ("kernel", m.kernel_size[0])]
    opt(p, "stride", m.stride[0], 1)
    opt(p, "padding", conv_padding(m)[0], 0)
    opt(p, "dilation", m.dilation[0], 1)
    opt(p, "groups", m.groups, 1)
    opt(p, "bias", m.bias is not None, True)
    return p


def conv3d_params(m):
    """kernel, stride, padding, dilation over H x W, and key_d for D where it differs from H."""
    p = [("out", m.out_channels)]
    for key, v, default in (("kernel", m.kernel_size, None), ("stride", m.stride, "1"),
                            ("padding", conv_padding(m), "0"), ("dilation", m.dilation, "1")):
        hw = pair_str(v[1:])
        if default is None:
            p.append((key, hw))
        else:
            opt(p, key, hw, default)
        opt(p, f"{key}_d", int(v[0]), int(v[1]))
    opt(p, "groups", m.groups, 1)
    opt(p, "bias", m.bias is not None, True)
    return p


def conv_transpose2d_params(m, in_shape=None, out_shape=None):
    """Its parameters; with the shapes of a call, output_padding is what the output's size
    needs (m(x, output_size=(16, 16)) chooses it)."""
    if m.padding_mode != "zeros":
        raise ExportError(f"ConvTranspose2d with padding_mode={m.padding_mode}")
    output_padding = m.output_padding
    if in_shape is not None and out_shape is not None:
        output_padding = tuple(
            o - ((i - 1) * s - 2 * p + d * (k - 1) + 1)
            for i, o, s, p, d, k in zip(in_shape[1:], out_shape[1:], m.stride, m.padding,
                                        m.dilation, m.kernel_size))
    p = [("out", m.out_channels), ("kernel", pair_str(m.kernel_size))]
    opt(p, "stride", pair_str(m.stride), "1")
    opt(p, "padding", pair_str(m.padding), "0")
    opt(p, "output_padding", pair_str(output_padding), "0")
    opt(p, "dilation", pair_str(m.dilation), "1")
    opt(p, "groups", m.groups, 1)
    opt(p, "bias", m.bias is not None, True)
    return p


UPSAMPLE_MODES = {"nearest": "nearest", "bilinear": "bilinear"}


def upsample_params(size, scale, mode, align_corners):
    """nn.Upsample / F.interpolate on N x C x H x W: a scale (one factor for both axes) or a
    size."""
    if mode not in UPSAMPLE_MODES:
        raise ExportError(f"interpolation mode {mode!r} (upsample has nearest and bilinear)")
    p = []
    opt(p, "mode", UPSAMPLE_MODES[mode], "nearest")
    if scale is not None:
        sc = scale if isinstance(scale, (tuple, list)) else (scale, scale)
        if len(sc) != 2 or sc[0] != sc[1]:
            raise ExportError(f"scale_factor {scale!r} differs between H and W (give a size)")
        p.append(("scale", float(sc[0])))
    elif size is not None:
        p.append(("size", pair_str(size)))
    else:
        raise ExportError("interpolation without a size or a scale_factor")
    if align_corners and mode == "bilinear":
        p.append(("align_corners", True))
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


def axis_of(node, dim):
    """A dim of the batched tensor of `node` as an axis of the per-sample shape."""
    nd, b = len(node.meta["shape"]), batch_axis(node)
    d = dim + nd if dim < 0 else dim
    if d == b:
        raise ExportError("the operation works across the batch dimension")
    return d - (1 if d > b else 0)


def is_layernorm2d(m):
    return isinstance(m, nn.LayerNorm) and type(m).__name__ == "LayerNorm2d"


def torchvision_class(m, name, module):
    t = type(m)
    return t.__name__ == name and t.__module__.startswith(module)


def module_rule(m):
    """(type, params) for a module exported whole, or None."""
    if isinstance(m, nn.Conv2d):
        return "conv2d", conv2d_params(m)
    if isinstance(m, nn.Conv1d):
        return "conv1d", conv1d_params(m)
    if isinstance(m, nn.Conv3d):
        return "conv3d", conv3d_params(m)
    if isinstance(m, nn.ConvTranspose2d):
        return "conv_transpose2d", conv_transpose2d_params(m)
    if isinstance(m, nn.Upsample):
        return "upsample", upsample_params(m.size, m.scale_factor, m.mode, m.align_corners)
    if isinstance(m, nn.PixelShuffle):
        return "pixel_shuffle", [("factor", m.upscale_factor)]
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
            return name, inplace_param(getattr(m, "inplace", False))
    if isinstance(m, (nn.Dropout, nn.Dropout2d)):
        return "dropout", [("p", float(m.p))] + inplace_param(m.inplace)
    if isinstance(m, nn.Flatten):
        return "flatten", [("start_dim", m.start_dim), ("end_dim", m.end_dim)]
    if isinstance(m, nn.Identity):
        return "identity", []
    if torchvision_class(m, "StochasticDepth", "torchvision"):  # its kernels run at p > 0
        return "identity", [("stochastic_depth", float(m.p))] if m.p > 0 else []
    if isinstance(m, nn.Softmax):
        return "softmax", [("dim", m.dim)]
    if isinstance(m, nn.ChannelShuffle):
        return "channel_shuffle", [("groups", m.groups)]
    if torchvision_class(m, "Permute", "torchvision"):
        return "permute", [("dims", list(m.dims))]
    if isinstance(m, nn.Embedding):
        return "embedding", [("vocab", m.num_embeddings), ("dim", m.embedding_dim)]
    if isinstance(m, nn.GroupNorm):
        p = [("groups", m.num_groups)]
        opt(p, "affine", bool(m.affine), True)
        return "groupnorm", p
    if isinstance(m, (nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)):
        # without running statistics InstanceNorm is GroupNorm with a group per channel
        p = [("groups", m.num_features)]
        opt(p, "affine", bool(m.affine), True)
        return "groupnorm", p
    if isinstance(m, nn.MultiheadAttention):
        return "attention", attention_params(m)
    if isinstance(m, nn.RNNBase):
        return recurrent_rule(m)
    if type(m).__name__ in ("ShiftedWindowAttention", "ShiftedWindowAttentionV2") and \
            type(m).__module__.startswith("torchvision"):
        p = [("dim", m.qkv.in_features), ("heads", m.num_heads),
             ("window", pair_str(m.window_size))]
        opt(p, "shift", pair_str(m.shift_size), "0")
        opt(p, "qkv_bias", m.qkv.bias is not None, True)
        opt(p, "proj_bias", m.proj.bias is not None, True)
        opt(p, "v2", type(m).__name__.endswith("V2"), False)
        return "window_attention", p
    # torchvision's MaxViT: partitions into windows (or a grid), attention with a relative
    # position bias within each, and back; p, h and w are arguments of the call (on_module)
    if torchvision_class(m, "WindowPartition", "torchvision"):
        return "window_partition", []
    if torchvision_class(m, "WindowDepartition", "torchvision"):
        return "window_departition", []
    if torchvision_class(m, "SwapAxes", "torchvision"):
        return "permute", [("swap", (m.a, m.b))]
    if torchvision_class(m, "RelativePositionalMultiHeadAttention", "torchvision"):
        return "attention", [("dim", m.merge.out_features), ("heads", m.n_heads),
                             ("rel_pos", m.size), ("scale", "dim")]
    return None


def attention_params(m):
    if not m._qkv_same_embed_dim:
        raise ExportError(f"nn.MultiheadAttention with kdim {m.kdim} or vdim {m.vdim} other than "
                          f"embed_dim {m.embed_dim} (the attention type projects E to E)")
    if m.bias_k is not None:
        raise ExportError("nn.MultiheadAttention with add_bias_kv=True")
    p = [("dim", m.embed_dim), ("heads", m.num_heads)]
    opt(p, "bias", m.in_proj_bias is not None, True)
    return p


def recurrent_rule(m):
    kinds = {nn.LSTM: "lstm", nn.GRU: "gru", nn.RNN: "rnn"}
    type_ = kinds.get(type(m))
    if type_ is None:
        return None
    if getattr(m, "proj_size", 0):
        raise ExportError(f"nn.LSTM with proj_size={m.proj_size}")
    p = [("hidden", m.hidden_size)]
    opt(p, "layers", m.num_layers, 1)
    opt(p, "bidirectional", bool(m.bidirectional), False)
    opt(p, "bias", bool(m.bias), True)
    if type_ == "rnn":
        opt(p, "nonlinearity", m.nonlinearity, "tanh")
    return type_, p


# Modules that return a tuple whose first item is the layer's output (the attention weights of
# nn.MultiheadAttention, the final states of the recurrent modules follow it).
def returns_tuple(m):
    return isinstance(m, (nn.MultiheadAttention, nn.RNNBase))


def composite_rule(m):
    """For a module written as several layers (its forward cannot be traced, or is one fixed
    arrangement of known layers): a list of (local name, type, params, inputs), inputs being
    local names of earlier entries, "@in" (the module's input) or "@in2" (its second: a decoder's
    memory, nn.Transformer's tgt)."""
    if isinstance(m, nn.TransformerEncoderLayer):
        return transformer_layer(m, decoder=False)
    if isinstance(m, nn.TransformerDecoderLayer):
        return transformer_layer(m, decoder=True)
    if isinstance(m, nn.TransformerEncoder):
        return transformer_stack(m, decoder=False)
    if isinstance(m, nn.TransformerDecoder):
        return transformer_stack(m, decoder=True)
    if isinstance(m, nn.Transformer):  # the encoder over src; the decoder over tgt and it
        enc = transformer_stack(m.encoder, decoder=False, prefix="encoder.")
        dec = transformer_stack(m.decoder, decoder=True, prefix="decoder.", first="@in2",
                                memory=enc[-1][0])
        return enc + dec
    return None


def transformer_stack(m, decoder, prefix="", first="@in", memory="@in2"):
    """nn.TransformerEncoder / Decoder: its layers one after the other (each reading the
    memory in a decoder), then its final norm if it has one."""
    out, prev = [], first
    for i, layer in enumerate(m.layers):
        parts = transformer_layer(layer, decoder)
        own = {p[0] for p in parts}
        for local, type_, params, ins in parts:
            ins = [prev if x == "@in" else memory if x == "@in2" else
                   f"{prefix}layers.{i}.{x}" if x in own else x for x in ins]
            out.append((f"{prefix}layers.{i}.{local}", type_, params, ins))
        prev = out[-1][0]
    if m.norm is not None:
        out.append((f"{prefix}norm", *module_rule(m.norm), [prev]))
    return out


def transformer_layer(m, decoder):
    """nn.TransformerEncoderLayer / DecoderLayer of PyTorch 1.13: self-attention (then, in a
    decoder, attention over the memory) and the feed-forward block, each with dropout and a
    residual add, LayerNorm after each (or before, norm_first)."""
    act = getattr(m, "activation", None)
    act_name = next((n for c, n in ACTIVATION_MODULES if type(act) is c), None) or \
        ACTIVATION_FUNCTIONS.get(act)
    if act_name is None:
        raise ExportError(f"{type(m).__name__} with activation {act!r}")
    drop = lambda d: ("dropout", [("p", float(d.p))])  # noqa: E731
    out, prev = [], "@in"

    def step(name, rule, inputs=None):
        nonlocal prev
        out.append((name, rule[0], rule[1], inputs or [prev]))
        prev = name

    def norm(name):
        return module_rule(getattr(m, name))

    # _sa_block and _mha_block call their attention with need_weights=False: fused from 2.0 on
    def sdpa(rule):
        return rule[0], rule[1] + [("impl", "sdpa")]

    sublayers = [("self_attn", sdpa(module_rule(m.self_attn)), None, "dropout1")]
    if decoder:
        sublayers.append(("multihead_attn", sdpa(module_rule(m.multihead_attn)), "@in2",
                          "dropout2"))
    ff_drop = "dropout3" if decoder else "dropout2"
    residual = "@in"
    for i, (name, rule, memory, dname) in enumerate(sublayers):
        nname = f"norm{i + 1}"
        add = "add" if i == 0 else f"add_{i}"
        if m.norm_first:
            step(nname, norm(nname), [residual])
            step(name, rule, [prev, memory] if memory else None)
        else:
            step(name, rule, [residual, memory] if memory else [residual])
        step(dname, drop(getattr(m, dname)))
        step(add, ("add", []), [dname, residual])
        if not m.norm_first:
            step(nname, norm(nname))
        residual = prev
    nname = f"norm{len(sublayers) + 1}"
    if m.norm_first:
        step(nname, norm(nname), [residual])
    step("linear1", module_rule(m.linear1))
    step("activation", (act_name, []))
    step("dropout", drop(m.dropout))
    step("linear2", module_rule(m.linear2))
    step(ff_drop, drop(getattr(m, ff_drop)))
    step(f"add_{len(sublayers)}", ("add", []), [ff_drop, residual])
    if not m.norm_first:
        step(nname, norm(nname))
    return out


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
# functions whose second argument is inplace, and those that work in place whatever they are
# given: what the activation writes over is what inference holds no second tensor for
INPLACE_ARGUMENT = {F.relu, F.relu6, F.silu, F.hardswish, F.hardsigmoid}
IN_PLACE = {torch.relu_, F.relu_}


def inplace_param(inplace):
    """The activation's and dropout's inplace=true, where the module or call works in place."""
    return [("inplace", True)] if inplace else []


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
        self.expanded = {}  # node -> parameter name: a parameter expanded over the batch
        self.hidden = {}  # node -> (recurrent module's node, "h" or "c"): its final states
        self.stochastic_depth = stochastic_depth_functions()
        self.declined = {}  # node -> where the plugin's rule that gave no layer for it is
        # id(parameter) -> the layer's node that owns it: a parameter read by a second layer
        # (F.linear on an embedding's weight, one nn.Parameter given to F.conv2d twice) would
        # be counted, updated and all-reduced once per layer
        self.claimed = {}
        self.refused_splits = set()  # split nodes whose pieces were refused once
        self.notes = []  # warnings: one line each, the file is still written

    # -- helpers --

    def fail(self, node, what, hint=True):
        if node in self.declined:
            what += f" (the export rule at {self.declined[node]} gives no layer for it)"
        raise ExportError(self.describe(node, what), unsupported=hint)

    def describe(self, node, what):
        """node NAME (OP TARGET, in MODULE) at FILE:LINE (code): WHAT"""
        op = node.target if isinstance(node.target, str) else getattr(
            node.target, "__name__", str(node.target))
        scope = node.meta.get("scope") if node.op != "call_module" else None
        where = f"node {node.name} ({node.op} {op}" + (f", in {scope}" if scope else "") + ")"
        line = source_line(node)
        return f"{where}" + (f" at {line}" if line else "") + f": {what}"

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
        shape = node.meta.get("shape")
        if shape is not None and 0 in tuple(shape):
            # nn.Linear(3072, 0): written as out=0, which every command then refused
            self.fail(node, f"its output {tuple(shape)} is empty: a scalemeter layer has at least "
                            "one element", hint=False)
        layer = Layer(type_, params, inputs, base=base)
        layer.scope = node.meta.get("scope", "")
        layer.node = node
        self.layers.append(layer)
        self.value[node] = layer
        return layer

    def alias(self, node, src):
        self.value[node] = self.value[src]

    def claim(self, node, params):
        """Records that the layer of `node` owns `params` ((name, tensor) pairs); refuses a
        parameter another layer owns already."""
        for name, p in params:
            if not p.requires_grad:
                self.fail(node, f"parameter {name} is frozen (requires_grad=False): scalemeter "
                                "counts a layer's weights as trainable parameters (scalemeter "
                                "help metrics) and has no frozen layer; make it trainable to "
                                "export", hint=False)
            first = self.claimed.get(id(p))
            if first is not None and first[0] is not node:
                self.fail(node, f"parameter {name} is tied: used here and by {first[1]}; "
                                f"scalemeter would count its {p.numel()} weights twice; "
                                "untie them to export, or write the layer that shares them by "
                                "hand (models/gpt2.ini's lm_head counts no weights of its own)",
                          hint=False)
            self.claimed[id(p)] = (node, first[1] if first else self.user_of(node))

    def user_of(self, node):
        """How a message names the first user of a parameter."""
        if node.op == "call_module":
            return f"module {node.target}"
        line = source_line(node).split(" (")[0]
        return f"node {node.name}" + (f" ({line})" if line else "")

    def module_params(self, node, m):
        return [(f"{node.target}.{k}", p) for k, p in m.named_parameters()]

    # -- the walk --

    def run(self):
        placeholders = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != 1:
            raise ExportError(f"the model's forward takes {len(placeholders)} inputs; "
                              "scalemeter networks have one")
        errors = []  # every operation the exporter cannot write, so that one run lists them all
        for node in self.gm.graph.nodes:
            if node in self.consumed:
                continue
            try:
                self.on_node(node)
            except ExportError as e:
                if e.args[0] is None:  # said already at an earlier node
                    self.value[node] = Layer("?", [], [])
                    continue
                msg = str(e)
                if not msg.startswith("node "):
                    msg = self.describe(node, msg)  # name the node of a rule's refusal
                errors.append((msg, e.unsupported))
                # a stand-in, so that the operations using its result are checked too
                self.value[node] = Layer("?", [], [])
        if errors:
            raise ExportError(report_errors(errors), unsupported=any(u for _, u in errors))
        if isinstance(self.output, str):
            raise ExportError("the model returns its input unchanged")
        return self.layers

    def on_node(self, node):
        if node.op in ("call_module", "call_function", "call_method") and self.on_rule(node):
            return
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
        elif node.op == "call_module" and (returns_tuple(self.modules[node.target]) or
                                           composite_rule(self.modules[node.target])):
            self.on_module(node)
        elif self.on_parameter_use(node):
            pass
        elif node.op == "call_function" and node.target is operator.getitem and (
                node.args[0] in self.hidden or node.args[0].op == "call_module" and
                returns_tuple(self.modules[node.args[0].target])):
            self.on_getitem(node)  # a module's tuple of outputs, or final states
        elif shape_of(node) is None:
            # integers (x.size(), x.shape[1] // g) and tuples: followed where used
            if node.op == "call_module":
                self.fail(node, "the module does not return one tensor")
        elif node.op == "call_module":
            self.on_module(node)
        else:
            self.on_function(node)

    def on_rule(self, node):
        """A node that a plugin's export rule (tools/export_rules.py) writes: True when
        written, False where no rule applies or the rule gives no layer."""
        if node.op == "call_module":
            m = self.modules[node.target]
            rule = RULES.module_rule(m)
            what = f"module {node.target} ({type(m).__name__})"
        else:
            rule = RULES.function_rule(node.op, node.target)
            what = (f"method .{node.target}()" if node.op == "call_method" else
                    f"function {getattr(node.target, '__name__', node.target)}")
        if rule is None:
            return False
        args = list(node.args) + list(node.kwargs.values())
        tensors = [a for a in args if isinstance(a, fx.Node)]
        for a in tensors:
            if a not in self.value or shape_of(a) is None:
                self.fail(node, f"argument {a.name} is not a tensor with a batch, which a "
                                f"rule's layer needs (rule at {rule.where()})", hint=False)
        nested = []
        for a in args:
            if isinstance(a, (list, tuple, dict)):
                fx.node.map_arg(a, nested.append)
        if nested:  # torch.cat((a, b)): a rule's inputs are the call's own arguments
            self.fail(node, f"a list or tuple of tensors as an argument (rule at "
                            f"{rule.where()}); a rule's inputs are tensors given as arguments",
                      hint=False)
        if shape_of(node) is None:
            self.fail(node, f"the {what.split()[0]} does not return one tensor with a batch "
                            f"(rule at {rule.where()})", hint=False)
        if node.op == "call_module":
            op = m
        else:
            strip = lambda v: None if isinstance(v, fx.Node) else v  # noqa: E731
            op = export_rules.Call(node.target, [strip(a) for a in node.args],
                                   {k: strip(v) for k, v in node.kwargs.items()})
        layer = export_rules.call_rule(rule, op, [shape_of(a) for a in tensors],
                                       shape_of(node), what)
        if layer is None:
            self.declined[node] = rule.where()
            return False
        type_, params = layer
        if node.op != "call_module":
            base = node.target if isinstance(node.target, str) else node.target.__name__
            self.add(node, type_, params, tensors, base.rstrip("_"))
            return True
        n = self.calls.get(node.target, 0)
        self.calls[node.target] = n + 1
        if n and next(m.parameters(), None) is not None:
            self.fail(node, f"module {node.target} holds weights and is called more than once; "
                            "scalemeter would count its weights once per call", hint=False)
        self.claim(node, self.module_params(node, m))
        layer = self.add(node, type_, params, tensors, None)
        layer.name = node.target if n == 0 else f"{node.target}_{n}"
        layer.module = m
        return True

    def module_inputs(self, node, m):
        """The tensors a module is called with: its input, and a decoder layer's memory."""
        if isinstance(m, nn.MultiheadAttention):
            qkv = [self.arg(node, i, k) for i, k in enumerate(("query", "key", "value"))]
            if not (qkv[0] is qkv[1] is qkv[2]):
                self.fail(node, "attention whose query, key and value differ (cross-attention)")
            return self.tensor_inputs(node, qkv[:1])
        if isinstance(m, (nn.TransformerDecoderLayer, nn.TransformerDecoder)):
            return self.tensor_inputs(node, [self.arg(node, 0, "tgt"), self.arg(node, 1, "memory")])
        if isinstance(m, (nn.TransformerEncoderLayer, nn.TransformerEncoder)):
            return self.tensor_inputs(node, [self.arg(node, 0, "src")])
        if isinstance(m, nn.Transformer):  # its decoder's input comes second
            src, tgt = self.arg(node, 0, "src"), self.arg(node, 1, "tgt")
            return self.tensor_inputs(node, [src, tgt])
        if isinstance(m, nn.RNNBase) and self.arg(node, 1, "hx") is not None:
            self.fail(node, "a recurrent module given an initial state (scalemeter starts from "
                            "zeros, as PyTorch does without one)", hint=False)
        return self.tensor_inputs(node, node.args[:1])

    def on_composite(self, node, m, parts, inputs):
        made = {"@in": inputs[0], "@in2": inputs[1] if len(inputs) > 1 else None}
        for local, type_, params, ins in parts:
            if any(made.get(i) is None for i in ins):
                self.fail(node, f"{type(m).__name__} without its memory input", hint=False)
            layer = Layer(type_, params, [made[i] for i in ins], name=f"{node.target}.{local}")
            layer.scope, layer.node, layer.path = node.target, node, layer.name
            self.layers.append(layer)
            made[local] = layer
        self.value[node] = layer

    def on_module(self, node):
        m = self.modules[node.target]
        rule = module_rule(m)
        parts = composite_rule(m) if rule is None else None
        if rule is None and parts is None:
            self.fail(node, f"module {node.target} of type {type(m).__name__}")
        inputs = self.module_inputs(node, m)
        if parts is not None:
            self.claim(node, self.module_params(node, m))
            self.on_composite(node, m, parts, inputs)
            return
        type_, params = rule
        in_shape, out_shape = shape_of(inputs[0]), shape_of(node)
        # parameters that need the shapes
        if type_ == "conv_transpose2d":
            # m(x, output_size=...) adds to output_padding what the size needs: read it back
            params = conv_transpose2d_params(m, in_shape, out_shape)
        if type_ in ("conv1d", "conv2d", "conv3d") and m.padding_mode != "zeros" and \
                any(m.padding if not isinstance(m.padding, str) else [1]):
            self.notes.append("warning: " + self.describe(
                node, f"padding_mode={m.padding_mode} is written as zero padding (the same "
                      "shapes and counts; the padded copy PyTorch makes is not counted)"))
        if type_ == "adaptive_avgpool2d":
            params = [("size", adaptive_size(params[0][1], in_shape))]
        elif type_ == "flatten":
            params = self.flatten_params(node, params[0][1], params[1][1], len(in_shape) + 1)
        elif type_ == "softmax":
            dim = params[0][1]
            params = [] if dim is None else [("axis", axis_of(node, dim))]
            params = [] if params == [("axis", len(out_shape) - 1)] else params
        elif isinstance(m, nn.MultiheadAttention) and \
                self.arg(node, 4, "need_weights", True) is False:
            # without the weights, PyTorch 2.0 and later call scaled_dot_product_attention
            params = params + [("impl", "sdpa")]
        elif type_ in ("window_partition", "window_departition"):
            args = [self.arg(node, i, k) for i, k in
                    enumerate(("x", "p", "h_partitions", "w_partitions"))][1:]
            if not all(isinstance(a, int) for a in args[:1 if type_ == "window_partition" else 3]):
                self.fail(node, "a window partition whose sizes are not constants", hint=False)
            params = [("p", args[0])] if type_ == "window_partition" else \
                [("p", args[0]), ("h", args[1]), ("w", args[2])]
        elif type_ == "permute":
            dims = params[0][1]
            if params[0][0] == "swap":  # torch.swapaxes(x, a, b)
                nd = len(inputs[0].meta["shape"])
                a, b = (d % nd for d in dims)
                dims = list(range(nd))
                dims[a], dims[b] = dims[b], dims[a]
            params = self.permute_params(node, inputs[0], dims)
            if params is None:
                self.alias(node, inputs[0])
                return
        n = self.calls.get(node.target, 0)
        self.calls[node.target] = n + 1
        if n and next(m.parameters(), None) is not None:
            # every layer of a network file owns its weights: sharing would count them twice
            self.fail(node, f"module {node.target} holds weights and is called more than once; "
                            "scalemeter would count its weights once per call", hint=False)
        self.claim(node, self.module_params(node, m))
        layer = self.add(node, type_, params, inputs, None)
        layer.name = node.target if n == 0 else f"{node.target}_{n}"
        layer.module = m

    def flatten_params(self, node, start, end, ndim):
        src = node.args[0] if node.args else None
        if isinstance(src, fx.Node) and batch_axis(src) != 0:
            self.fail(node, "flatten of a tensor whose batch is not its first dimension")
        s = start + ndim if start < 0 else start
        e = end + ndim if end < 0 else end
        if s < 1 or e != ndim - 1:
            self.fail(node, f"flatten of dims {start}..{end} (scalemeter flattens from a "
                            "dim after the batch to the last)")
        return [] if s == 1 else [("start", s - 1)]

    def permute_params(self, node, src, dims):
        """The permute layer's order, or None where only the batch moves (a sequence-first
        tensor made batch-first: nothing moves within a sample)."""
        dims = [d + len(dims) if d < 0 else d for d in dims]
        bi, bo = batch_axis(src), batch_axis(node)
        if bo is None or bi is None or dims[bo] != bi:
            self.fail(node, f"permute {dims} mixes the batch dimension with others", hint=False)
        order = [d - (d > bi) for j, d in enumerate(dims) if j != bo]
        if order == sorted(order):
            return None
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
            axis = axis_of(node, dim)
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
        elif method and t == "squeeze" and first in self.hidden and self.arg(node, 1, "dim") == 0:
            rnn, kind = self.hidden[first]
            self.on_final_state(node, rnn, kind, 0)  # h_n.squeeze(0) of one layer, one direction
        elif not method and getattr(t, "__name__", "") == "_patch_merging_pad":
            self.add(node, "patch_merge", [], [first], "patch_merging_pad")  # torchvision's Swin
        elif (method and t == "mean") or (not method and t is torch.mean):
            self.on_mean(node)
        elif self.on_added_function(node):
            pass
        elif not method and t in ACTIVATION_FUNCTIONS:
            inplace = t in IN_PLACE or (t in INPLACE_ARGUMENT and
                                        bool(self.arg(node, 1, "inplace", False)))
            self.add(node, ACTIVATION_FUNCTIONS[t], inplace_param(inplace), [first],
                     ACTIVATION_FUNCTIONS[t])
        elif method and t in ACTIVATION_METHODS:
            self.add(node, ACTIVATION_METHODS[t], inplace_param(t.endswith("_")), [first],
                     ACTIVATION_METHODS[t])
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
            p = float(self.arg(node, 1, "p"))
            self.add(node, "identity", [("stochastic_depth", p)] if p > 0 else [], [first],
                     "stochastic_depth")
        elif not method and t in (F.softmax, torch.softmax):
            axis = axis_of(node, self.arg(node, 1, "dim"))
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
            if tensor is not None and xs is not None:
                ps = tuple(tensor.shape)
                # a scale per channel: C x 1 x 1 against C x H x W (or E against S x E)
                axis = None
                if len(ps) == len(xs) and sum(d != 1 for d in ps) == 1:
                    axis = next(i for i, d in enumerate(ps) if d != 1)
                elif len(ps) == 1:
                    axis = len(xs) - 1
                if axis is not None and ps[axis if len(ps) > 1 else 0] == xs[axis]:
                    self.claim(node, [(p.target, tensor)])
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
        if batch_axis(src) != 0 or batch_axis(node) != 0:
            self.fail(node, "view/reshape of a tensor whose batch is not its first dimension",
                      hint=False)
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
        params = self.permute_params(node, src, dims)
        if params is None:
            self.alias(node, src)
        elif not self.tokens(node, src, params):
            self.add(node, "permute", params, [src], "permute")

    def tokens(self, node, src, params):
        """ViT's x.reshape(n, C, H * W).permute(0, 2, 1): one tokens layer, C x H x W -> HW x C."""
        if params != [("order", "1,0")] or src.op not in ("call_method", "call_function") or \
                src.target not in ("reshape", "view", torch.reshape) or len(src.users) != 1:
            return False
        image = shape_of(src.args[0])
        if image is None or len(image) != 3 or shape_of(src) != (image[0], image[1] * image[2]):
            return False
        layer = next((l for l in self.layers if l.node is src), None)
        if layer is None or layer.type != "flatten":
            return False
        layer.type, layer.params, layer.base = "tokens", [], "tokens"
        self.alias(node, src)
        return True

    def on_parameter_use(self, node):
        """A learnable tensor of the model used directly: ViT's class token (expanded over the
        batch and concatenated in front) and position table (added). True when handled."""
        t, args = node.target, node.args
        if node.op == "call_method" and t == "expand" and self.param_of(args[0]) is not None:
            self.expanded[node] = args[0].target  # a class token: the cat that uses it decides
            return True
        if node.op == "call_function" and t is torch.cat:
            tensors = list(self.arg(node, 0, "tensors"))
            if len(tensors) == 2 and tensors[0] in self.expanded and axis_of(
                    node, self.arg(node, 1, "dim", 0)) == 0 and shape_of(tensors[1]) is not None:
                name = self.expanded[tensors[0]]
                tokens = shape_of(tensors[0])
                if tokens is None or tokens[0] != 1:
                    self.fail(node, f"parameter {name} of shape {list(self.params[name].shape)} "
                                    f"puts {tokens[0] if tokens else '?'} tokens in front; the "
                                    "cls_token layer puts one (write a plugin for several)",
                              hint=False)
                self.claim(node, [(name, self.params[name])])
                layer = self.add(node, "cls_token", [], self.tensor_inputs(node, tensors[1:]), None)
                layer.name = self.expanded[tensors[0]]
                return True
        if node.op == "call_function" and t in (operator.add, torch.add) and len(args) == 2:
            for a, b in (args, args[::-1]):
                table = self.param_of(b)
                xs = shape_of(a) if isinstance(a, fx.Node) else None
                if table is None or xs is None or len(xs) != 2:
                    continue
                ts = tuple(table.shape)
                ts = ts[1:] if len(ts) == 3 and ts[0] == 1 else ts
                if len(ts) == 2 and ts[1] == xs[1] and ts[0] >= xs[0]:
                    self.claim(node, [(b.target, table)])
                    # a parameter added whole (ViT's): the sequence must be its length
                    layer = self.add(node, "pos_embedding",
                                     [("max_len", ts[0]), ("exact", "yes")],
                                     self.tensor_inputs(node, [a]), None)
                    layer.name = b.target
                    return True
        return False

    def param_of(self, v):
        """The parameter a get_attr node reads, or None."""
        if isinstance(v, fx.Node) and v.op == "get_attr":
            return self.params.get(v.target)  # a frozen one too: claim() refuses it
        return None

    def on_getitem(self, node):
        src, index = node.args
        if isinstance(src, fx.Node) and src.op == "call_module" and returns_tuple(
                self.modules[src.target]):
            if index == 0:
                self.alias(node, src)
            elif isinstance(self.modules[src.target], nn.RNNBase):
                lstm = isinstance(self.modules[src.target], nn.LSTM)
                self.hidden[node] = (src, "pair" if lstm else "h")  # LSTM: (h_n, c_n)
            return
        if isinstance(src, fx.Node) and src in self.hidden:
            rnn, kind = self.hidden[src]
            if kind == "pair":
                self.hidden[node] = (rnn, "h" if index == 0 else "c")
                return
            self.on_final_state(node, rnn, kind, index)
            return
        if isinstance(index, tuple) and len(index) >= 2 and index[0] == slice(None) and \
                isinstance(index[1], int) and all(i == slice(None) for i in index[2:]) and \
                batch_axis(src) == 0:
            self.add(node, "select", [("index", index[1])], [src], "select")
            return
        if not (isinstance(src, fx.Node) and src.op in ("call_function", "call_method") and
                (src.target in (torch.chunk, torch.split) or src.target in ("chunk", "split"))):
            self.fail(node, "indexing (x[...]) of a tensor or tuple")
        x = src.args[0]
        xs = shape_of(x)
        pieces = src.meta["shape"]
        dim = self.arg(src, 2, "dim", 0)
        axis = axis_of(x, dim)
        d = dim % len(x.meta["shape"])
        sizes = [p[d] for p in pieces]
        chunks = self.arg(src, 1, "chunks") if src.target in (torch.chunk, "chunk") else \
            len(sizes)
        if sizes != chunk_sizes(xs[axis], chunks):
            # the chunk layer's pieces are torch.chunk's: every one ceil(n / chunks) but the
            # last, which has the rest ([6, 5, 5] and [11, 10, 11] are not); said once a split
            if src in self.refused_splits:
                raise ExportError(None)
            self.refused_splits.add(src)
            self.fail(node, f"split into the pieces {sizes}, which torch.chunk does not give "
                            f"(it cuts {xs[axis]} into {chunk_sizes(xs[axis], chunks)}); the "
                            "chunk layer has only those", hint=False)
        if not isinstance(index, int) or not -len(sizes) <= index < len(sizes):
            self.fail(node, f"piece {index!r} of {len(sizes)} pieces", hint=False)
        index %= len(sizes)  # parts[-1]: torch.chunk(6, 4) gives 3 pieces, not 4
        p = [("chunks", chunks), ("index", index)]
        opt(p, "axis", axis, 0)
        self.add(node, "chunk", p, [x], "chunk")

    def on_axis_mean(self, node, src, dims, keep):
        """x.mean(d) (a sentence classifier's mean over its sequence): a mean layer per axis,
        the last axis first, so that the earlier axes keep their numbers."""
        axes = sorted((axis_of(src, d) for d in dims), reverse=True)
        prev = src
        for i, axis in enumerate(axes):
            p = [("axis", axis)]
            opt(p, "keepdim", bool(keep), False)
            if i == len(axes) - 1:
                self.add(node, "mean", p, [prev], "mean")
            else:
                layer = Layer("mean", p, [prev], base="mean")
                layer.scope, layer.node = node.meta.get("scope", ""), node
                self.layers.append(layer)
                prev = layer

    def on_final_state(self, node, rnn, kind, index):
        """h_n[i] of a recurrent module: the last layer's final state in direction i is a
        position of its output (the last step forwards, the first backwards)."""
        m = self.modules[rnn.target]
        dirs = 2 if m.bidirectional else 1
        if kind != "h" or not isinstance(index, int):
            self.fail(node, f"the final {'cell' if kind == 'c' else 'hidden'} state of "
                            f"{rnn.target} used as {'c_n' if kind == 'c' else f'h_n[{index!r}]'}"
                            " (scalemeter follows h_n[i] of the last layer only: use the output "
                            "sequence, e.g. out[:, -1])", hint=False)
        i = index % (m.num_layers * dirs)
        if i < (m.num_layers - 1) * dirs:
            self.fail(node, f"h_n[{index}] of {rnn.target} is the state of a layer before the "
                            "last, which is not among the layer's outputs", hint=False)
        backward = i % dirs == 1
        sel = self.add(node, "select", [("index", 0 if backward else -1)], [rnn], "select")
        if dirs == 2:
            piece = Layer("chunk", [("chunks", 2), ("index", 1 if backward else 0)], [sel],
                          base="chunk")
            piece.scope, piece.node = sel.scope, node
            self.layers.append(piece)
            self.value[node] = piece

    def on_added_function(self, node):
        """F.interpolate, F.pixel_shuffle, and F.conv2d / F.linear with the model's own
        parameters. True when handled."""
        t, first = node.target, node.args[0] if node.args else None
        if node.op != "call_function":
            return False
        if t in (F.interpolate, getattr(F, "upsample", None)):
            if len(shape_of(first) or ()) != 3:
                self.fail(node, "interpolation of a tensor other than N x C x H x W")
            p = upsample_params(self.arg(node, 1, "size"), self.arg(node, 2, "scale_factor"),
                                self.arg(node, 3, "mode", "nearest"),
                                self.arg(node, 4, "align_corners"))
            self.add(node, "upsample", p, [first], "interpolate")
        elif t in (F.pixel_shuffle, torch.pixel_shuffle):
            self.add(node, "pixel_shuffle", [("factor", self.arg(node, 1, "upscale_factor"))],
                     [first], "pixel_shuffle")
        elif t in (F.conv2d, torch.conv2d, F.linear, torch._C._nn.linear):
            self.on_functional_layer(node)
        else:
            return False
        return True

    def on_functional_layer(self, node):
        """F.conv2d(x, self.weight, self.bias, ...) and F.linear(x, self.weight, self.bias):
        the layer conv2d or linear, its sizes read from the weight's shape."""
        conv = node.target in (F.conv2d, torch.conv2d)
        weight, bias = self.arg(node, 1, "weight"), self.arg(node, 2, "bias")
        w = self.param_of(weight)
        if w is None or (bias is not None and self.param_of(bias) is None):
            self.fail(node, f"{'conv2d' if conv else 'linear'} whose weight or bias is not a "
                            "parameter of the model (computed tensors and buffers have no layer "
                            "type)")
        # the layer owns these parameters: named after the weight's module
        self.claim(node, [(v.target, self.params[v.target]) for v in (weight, bias)
                          if v is not None])
        owner = weight.target.rpartition(".")[0]
        if conv:
            groups = self.arg(node, 6, "groups", 1)
            m = nn.Conv2d(w.shape[1] * groups, w.shape[0], tuple(w.shape[2:]),
                          stride=self.arg(node, 3, "stride", 1),
                          padding=self.arg(node, 4, "padding", 0),
                          dilation=self.arg(node, 5, "dilation", 1), groups=groups,
                          bias=bias is not None, device="meta")
            type_, params = "conv2d", conv2d_params(m)
        else:
            p = [("out", w.shape[0])]
            opt(p, "bias", bias is not None, True)
            type_, params = "linear", p
        layer = self.add(node, type_, params, self.tensor_inputs(node, [node.args[0]]),
                         "conv2d" if conv else "linear")
        if owner and owner not in (l.name for l in self.layers[:-1]):
            layer.name = owner

    def on_mean(self, node):
        src = node.args[0]
        dims = self.arg(node, 1, "dim")
        keep = self.arg(node, 2, "keepdim", False)
        nd = len(shape_of(src)) + 1
        if dims is None:
            self.fail(node, "mean over every dimension, the batch's too")
        dims = sorted(d % nd for d in (dims if isinstance(dims, (list, tuple)) else [dims]))
        if nd != 4 or dims != [2, 3]:
            self.on_axis_mean(node, src, dims, keep)
            return
        pool = self.add(node, "adaptive_avgpool2d", [("size", "1")], [src], "mean")
        if not keep:
            flat = Layer("flatten", [], [pool], base="mean_flatten")
            flat.scope = pool.scope
            flat.node = node
            self.layers.append(flat)
            self.value[node] = flat


def source_line(node):
    """file:line (code) of the model's own source that made a node (the innermost frame of
    torch.fx's stack trace outside torch and this file), or "". PyTorch 1.13 writes the trace
    innermost first; PyTorch 2 outermost first, ending in its own create_proxy."""
    frames = re.findall(r'File "([^"]+)", line (\d+), in \S+\n\s*(.*)', node.stack_trace or "")
    if frames and os.sep + "torch" + os.sep in frames[-1][0]:
        frames.reverse()
    # realpath on both sides: the installed command runs bin/../share/scalemeter/python/
    # export_torch.py, a frame's name as given, where abspath(__file__) has resolved the ".."
    here = os.path.realpath(__file__)
    frames = [f for f in frames if os.sep + "torch" + os.sep not in f[0] and
              os.path.realpath(f[0]) != here and not f[0].startswith("<")]
    if not frames:
        return ""
    path, line, code = frames[0]  # innermost first
    code = code.strip()
    if len(code) > 60:
        code = code[:57] + "..."
    return f"{os.path.basename(path)}:{line}" + (f" ({code})" if code else "")


def report_errors(errors):
    """The lines of an export that failed: one per operation; the way out (a plugin) once."""
    kinds = [msg for msg, unsupported in errors if unsupported]
    if len(errors) == 1:
        msg, unsupported = errors[0]
        return msg + ("; " + PLUGIN_HINT.format("it") if unsupported else "")
    lines = [msg for msg, _ in errors]
    if kinds:
        lines.append(f"{len(errors)} operations cannot be exported ({len(kinds)} without a layer "
                     "type); " + PLUGIN_HINT.format("those"))
    else:
        lines.append(f"{len(errors)} operations cannot be exported")
    return "\n".join(lines)


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


def chunk_sizes(n, chunks):
    """The sizes of the pieces torch.chunk cuts n into: ceil(n / chunks) each, the last the
    rest; fewer than `chunks` pieces where they run out (6 into 4: 2, 2, 2)."""
    size = -(-n // chunks)
    return [min(size, n - i) for i in range(0, n, size)]


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


def depth(m):
    return 1 + max((depth(c) for c in m.children()), default=-1)


def is_grouping(m):
    """A module that groups blocks rather than being one: a container (nn.Sequential,
    nn.ModuleList, nn.ModuleDict) whose children have children, or a module holding a stack of
    such blocks (ViT's Encoder, nn.TransformerEncoder: a list of layers made of modules)."""
    if is_container(m):
        return any(has_children(c) for c in m.children())
    return any(is_container(c) and len(list(c.children())) >= 2 and
               all(depth(b) >= 2 for b in c.children()) for c in m.children())


def block_of(modules, path):
    """The block holding a layer of module path `path` (or called in it), or None: the first
    module on its path, from the root down, that has children and does not group blocks."""
    if not path:
        return None
    parts = path.split(".")
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        m = modules.get(prefix)
        if m is None or not has_children(m):
            return None
        if is_grouping(m):
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
        src = getattr(l, "path", None) or (l.node.target if l.node.op == "call_module"
                                           else l.scope)
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
    lines = [c for h in header for c in wrap_comment(h)]
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


def wrap_comment(text):
    """A header line as comment lines within the reader's limit: long paths in a command
    would make one too long. A shell command is continued with a backslash."""
    if not text:
        return [";"]
    lines, cur, cont = [], "; " + text.split(" ")[0], ";     "
    for word in text.split(" ")[1:]:
        if len(cur) + 1 + len(word) + 2 > MAX_LINE:
            lines.append(cur + " \\")
            cur = cont + word
        else:
            cur += " " + word
    lines.append(cur)
    out = []  # a word longer than a line (a very long path) is cut where it must be
    for line in lines:
        while len(line) > MAX_LINE:
            out.append(line[:MAX_LINE - 2] + " \\")
            line = cont + line[MAX_LINE - 2:]
        out.append(line)
    return out


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


def tied_parameters(model):
    """Raises ExportError where one parameter is held by two modules (c2.weight = c1.weight, an
    LM head tied to its embedding): every layer of a network file counts its own weights, so the
    tensor would be counted, updated and all-reduced twice."""
    owner = {}
    for mname, mod in model.named_modules():
        for pname, p in mod.named_parameters(recurse=False):
            name = f"{mname}.{pname}" if mname else pname
            if id(p) in owner and owner[id(p)] != name:
                raise ExportError(
                    f"parameter {name} is {owner[id(p)]} (tied): scalemeter would count its "
                    f"{p.numel()} weights twice; untie them to export, or write the layer that "
                    "shares them by hand (models/gpt2.ini's lm_head counts no weights of its own)")
            owner.setdefault(id(p), name)


def unused_parameters(model, ex, warnings_out):
    """Says (a warning) which of the model's parameters no layer of the file holds: the trace
    runs in eval mode, so a branch taken only in training (GoogLeNet's and Inception v3's
    auxiliary heads with aux_logits=True, `if self.training:`) is not in it, and neither are
    parameters never used or used by code whose result is discarded."""
    unused = [(n, p) for n, p in model.named_parameters() if id(p) not in ex.claimed]
    if not unused:
        return
    count = sum(p.numel() for _, p in unused)
    total = sum(p.numel() for p in model.parameters())
    names = ", ".join(n for n, _ in unused[:4]) + (", ..." if len(unused) > 4 else "")
    warnings_out.append(
        f"warning: {count:,} of the model's {total:,} parameters ({len(unused)} "
        f"tensor{'s' if len(unused) > 1 else ''}: "
        f"{names}) are not in the file: the traced forward (eval mode) does not use them "
        "(a branch taken only in training, unused or discarded code); weights and memory "
        "count without them")


def export(model, input_shape, name, source, command, dtype=torch.float32, warnings_out=None):
    """The network file's text; warnings (one line each) are appended to warnings_out."""
    warnings_out = [] if warnings_out is None else warnings_out
    tied_parameters(model)
    gm = trace(model, input_shape, dtype)
    ex = Exporter(model, gm)
    layers = ex.run()
    warnings_out.extend(ex.notes)
    unused_parameters(model, ex, warnings_out)
    for l in layers:
        l.inputs = [ex.value[v] if isinstance(v, fx.Node) else v for v in l.inputs]
    assign_names(layers, ex.modules)
    reuse_concat_prefixes(layers)
    header = [f"{name}, exported from {source} by {SCRIPT} "
              f"(torch {torch.__version__}):",
              f"  {command}",
              "Layer and block names are the framework's modules; regenerate rather than edit."]
    return write_network(layers, ex, name, input_shape, source, header)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Writes a scalemeter network file from a PyTorch model (torch.fx).",
        epilog=f"Examples: {PROG} resnet18 -o models/resnet18.ini; "
               f"{PROG} --module my_pkg.my_file:MyNet --input 3x32x32 -o my.ini. "
               "Rules files (NAME.export.py) in the folders of SCALEMETER_PLUGIN_PATH are read "
               "too.")
    ap.add_argument("model", nargs="?", help="a torchvision.models builder (resnet50)")
    ap.add_argument("--module", help="your model as MODULE:CLASS (my_pkg.net:Net or "
                                     "path/to/net.py:Net, whose folder goes on the import path)")
    ap.add_argument("--input", help="one sample's shape: CxHxW for images (default 3x224x224; "
                                    "3x299x299 for inception_v3), S for S token ids")
    ap.add_argument("--input-dtype", choices=sorted(INPUT_DTYPES), default="float",
                    help="the input's element type: float (images, features) or long (token "
                         "ids, for a model that starts with nn.Embedding)")
    ap.add_argument("--kwargs", help="the model's constructor arguments as a JSON object: "
                                     "'{\"num_classes\": 10}'")
    ap.add_argument("--name", help="the network's name (default: the model's)")
    ap.add_argument("--rules", action="append", default=[], metavar="FILE",
                    help="export rules of a plugin's layer types (docs/plugin-abi.md), besides "
                         "the NAME.export.py files of SCALEMETER_PLUGIN_PATH; repeatable")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="say which Python runs the export when this one has no torch")
    ap.add_argument("-o", "--output", help="file to write (default: standard output)")
    args = ap.parse_args(argv)
    if bool(args.model) == bool(args.module):
        ap.error("give either a torchvision model name or --module MODULE:CLASS")
    global RULES
    RULES = export_rules.Rules()
    try:
        for path in export_rules.plugin_path_files() + args.rules:
            RULES.load(path)
        input_shape = parse_input(args.input) if args.input else TORCHVISION_INPUT.get(
            args.model, (3, 224, 224))
        check_output(args.output)
        model, source = load_model(args)
        for path in [getattr(args, "module_file", None)] + args.rules:
            if args.output and path and os.path.exists(path) and \
                    os.path.exists(args.output) and os.path.samefile(args.output, path):
                raise ExportError(f"-o {args.output}: is {path}, an input of the export; "
                                  "give another file")
        name = args.name or args.model or args.module.rpartition(":")[2].lower()
        # the name is a line of the file (name = ...) and of its header comment; the reader
        # ends a value at ';' (a comment) and '#'
        if any(ord(c) < 32 or ord(c) == 127 or c in ";#" for c in name) or \
                name != name.strip() or not name:
            raise ExportError(f"--name {name!r}: a network name is one line of printable text, "
                              "without spaces around it, ';' or '#'")
        if any(ord(c) < 32 or ord(c) == 127 for c in source):
            raise ExportError(f"--module {args.module!r}: a path of one line is needed (it is "
                              "written as the file's source = line)")
        kwargs = json.dumps(parse_kwargs(args.kwargs)) if args.kwargs else None  # one line
        command = COMMAND + " " + " ".join(
            ([args.model] if args.model else ["--module", args.module]) +
            (["--input", args.input] if args.input else []) +
            (["--input-dtype", args.input_dtype] if args.input_dtype != "float" else []) +
            (["--kwargs", shlex.quote(kwargs)] if kwargs else []) +
            (["--name", args.name] if args.name else []) +
            [a for r in args.rules for a in ("--rules", shlex.quote(r))] +
            (["-o", args.output] if args.output else []))
        notes = []
        text = export(model, input_shape, name, source, command, INPUT_DTYPES[args.input_dtype],
                      notes)
        for line in notes:
            print(f"{PROG}: {args.model or args.module}: {line}", file=sys.stderr)
    except ExportError as e:
        for line in str(e).splitlines():
            print(f"{PROG}: {args.model or args.module}: {line}", file=sys.stderr)
        return 1
    except export_rules.RulesError as e:  # the rules file is at fault, not the model
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    try:
        if args.output:
            with open(args.output, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except OSError as e:
        print(f"{PROG}: {args.model or args.module}: cannot write "
              f"{args.output or 'the standard output'}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


def check_output(path):
    """-o: refused before the export where it cannot be a file (a folder, a missing one)."""
    if not path:
        return
    if os.path.isdir(path):
        raise ExportError(f"-o {path}: is a folder; give a file's path")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise ExportError(f"-o {path}: the folder {folder} does not exist")


if __name__ == "__main__":
    sys.exit(main())
