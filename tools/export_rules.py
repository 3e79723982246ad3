"""Export rules that out-of-tree plugins bring: how a PyTorch module class, function or tensor
method becomes a layer of the plugin's type, without editing tools/export_torch.py.

A rules file is Python, NAME.export.py beside NAME.so in a folder of SCALEMETER_PLUGIN_PATH
(or given with --rules FILE). It defines one or both of

  MODULES    {class or class name: rule}   a module of that class (isinstance for a class; the
                                           class's __name__ or module.qualname for a string)
  FUNCTIONS  {function or "method": rule}  torch functions by identity (torch.nn.functional.mish),
                                           tensor methods by name ("mish" for x.mish())

and a rule is  rule(op, inputs, output) -> (TYPE, {PARAM: VALUE}) | TYPE | None:
  op       the module, or for a function a Call with .function, .args and .kwargs (tensor
           arguments are None there: their shapes are in `inputs`)
  inputs   per-sample shapes (tuples without the batch) of the tensor inputs, in argument order
  output   the per-sample shape of the result, as PyTorch computed it
and it returns the layer's type and parameters (int, float, bool or a string such as "3x3"), or
None where it writes no layer for this configuration (the built-in rules then decide, and if
none applies the operation is reported as unsupported).

A rules file runs code as a plugin does, so it is trusted as one is (docs/plugin-abi.md): folders
of SCALEMETER_PLUGIN_PATH must be absolute, and a rules file or folder that every user may write
is refused. A file that does not load, a rule that raises and a rule that returns something else
than the above stop the export with one line naming the rules file (and its line where known).
"""
import importlib.util
import math
import os
import re
import stat
import traceback

SUFFIX = ".export.py"
TYPE_RE = re.compile(r"[a-z][a-z0-9_]*")
KEY_RE = re.compile(r"[a-z][a-z0-9_]*")
VALUE_RE = re.compile(r"[A-Za-z0-9_.,:+\-]+")  # a network file's value: no spaces, = or ;


class RulesError(Exception):
    """A rules file that cannot be used: one line, naming it. Not an ExportError: the export
    stops at once rather than listing it among the model's unsupported operations."""


class Call:
    """What a function rule is given as `op`: the function (or the method's name) and its
    arguments, tensors replaced by None."""

    def __init__(self, function, args, kwargs):
        self.function, self.args, self.kwargs = function, tuple(args), dict(kwargs)

    def __repr__(self):
        name = self.function if isinstance(self.function, str) else getattr(
            self.function, "__name__", repr(self.function))
        return f"Call({name}, args={self.args!r}, kwargs={self.kwargs!r})"


class Rule:
    def __init__(self, fn, path, key):
        self.fn, self.path, self.key = fn, path, key

    def where(self):
        """FILE:LINE of the rule's definition."""
        code = getattr(self.fn, "__code__", None)
        return f"{self.path}:{code.co_firstlineno}" if code else self.path


class Rules:
    """The rules of every file loaded, each key claimed by one file."""

    def __init__(self):
        self.modules = []  # (key, Rule) in load order
        self.functions = {}  # function or method name -> Rule
        self.files = []

    def load(self, path):
        path = os.path.abspath(path)
        ns = load_file(path)
        got = False
        for name, table in (("MODULES", self.modules), ("FUNCTIONS", self.functions)):
            entries = ns.get(name)
            if entries is None:
                continue
            got = True
            if not isinstance(entries, dict):
                raise RulesError(f"{path}: {name} is a {type(entries).__name__}, expected a dict "
                                 "{key: rule}")
            for key, fn in entries.items():
                self.add(path, name, table, key, fn)
        if not got:
            raise RulesError(f"{path}: defines neither MODULES nor FUNCTIONS (docs/plugin-abi.md, "
                             "\"Export rules\")")
        self.files.append(path)

    def add(self, path, name, table, key, fn):
        if name == "MODULES" and not (isinstance(key, (type, str)) and key):
            raise RulesError(f"{path}: MODULES key {key!r} is neither a class nor a class name")
        if name == "FUNCTIONS" and not (callable(key) or isinstance(key, str) and key):
            raise RulesError(f"{path}: FUNCTIONS key {key!r} is neither a function nor a "
                             "method name")
        if not callable(fn):
            raise RulesError(f"{path}: {name}[{key_name(key)}] is {fn!r}, not a function")
        other = (next((r for k, r in table if k is key or k == key), None)
                 if isinstance(table, list) else table.get(key))
        if other is not None:
            raise RulesError(f"{path}: {name}[{key_name(key)}] is already a rule of "
                             f"{other.path}")
        rule = Rule(fn, path, key)
        if isinstance(table, list):
            table.append((key, rule))
        else:
            table[key] = rule

    def module_rule(self, m):
        """The rule for module m, or None."""
        cls = type(m)
        for key, rule in self.modules:
            if (isinstance(key, type) and isinstance(m, key)) or key in (
                    cls.__name__, f"{cls.__module__}.{cls.__qualname__}"):
                return rule
        return None

    def function_rule(self, node_op, target):
        """The rule for a call_function (target: the function) or call_method (its name)."""
        if node_op == "call_method":
            return self.functions.get(target) if isinstance(target, str) else None
        if node_op == "call_function":
            try:
                return self.functions.get(target)
            except TypeError:  # an unhashable target: no rule can name it
                return None
        return None


def key_name(key):
    if isinstance(key, str):
        return repr(key)
    return getattr(key, "__qualname__", None) or getattr(key, "__name__", None) or repr(key)


def innermost_line(e, path):
    """path:line of the innermost frame of an exception in file `path`, else path."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == path]
    return f"{path}:{frames[-1].lineno}" if frames else path


def first_line(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


def check_writable(path, what):
    """Refuses a file or folder every user may write (as the plugin loader does)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise RulesError(f"{path}: cannot read the {what}: {e.strerror}")
    if mode & stat.S_IWOTH:
        raise RulesError(f"{path}: refusing {what}: it is writable by every user, who could "
                         "make the exporter run their code (chmod o-w it)")


def load_file(path):
    """Runs a rules file; its names, or a RulesError naming the file and line."""
    if not os.path.isfile(path):
        raise RulesError(f"{path}: no such rules file")
    check_writable(path, "rules file")
    name = "scalemeter_rules_" + re.sub(r"\W", "_", os.path.basename(path)[:-len(".py")])
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except SyntaxError as e:
        raise RulesError(f"{path}:{e.lineno or 0}: syntax error: {e.msg}")
    except Exception as e:  # any error of the file's own code: the file is unusable
        raise RulesError(f"{innermost_line(e, path)}: the rules file fails to load: "
                         f"{first_line(e)}")
    return vars(mod)


def plugin_path_files(env=None):
    """The rules files of SCALEMETER_PLUGIN_PATH's folders: every NAME.export.py, sorted, each
    folder once."""
    text = (os.environ if env is None else env).get("SCALEMETER_PLUGIN_PATH", "")
    files, seen = [], set()
    for folder in text.split(":"):
        if not folder:
            continue  # a::b, as the plugin loader
        if not os.path.isabs(folder):
            raise RulesError(f"SCALEMETER_PLUGIN_PATH: '{folder}' is a relative folder; name "
                             "plugin folders by absolute path")
        real = os.path.realpath(folder)
        if real in seen or not os.path.isdir(folder):
            continue  # the plugin loader says what is wrong with a folder that is not there
        seen.add(real)
        names = sorted(n for n in os.listdir(folder) if n.endswith(SUFFIX))
        if names:
            check_writable(folder, "plugin folder")
        files += [os.path.join(folder, n) for n in names]
    return files


def layer_of(rule, result, what):
    """(type, [(key, value)]) from a rule's result, or a RulesError naming the rule. None stays
    None (the rule writes no layer here)."""
    if result is None:
        return None
    bad = f"{rule.where()}: the rule for {what} returned {short(result)}"
    if isinstance(result, str):
        result = (result, {})
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RulesError(f"{bad}; expected (TYPE, {{PARAM: VALUE}}), TYPE or None")
    type_, params = result
    if not (isinstance(type_, str) and TYPE_RE.fullmatch(type_)):
        raise RulesError(f"{bad}; the type must be a layer type name such as 'mish'")
    if isinstance(params, dict):
        params = list(params.items())
    elif not (isinstance(params, (list, tuple)) and all(
            isinstance(p, tuple) and len(p) == 2 for p in params)):
        raise RulesError(f"{bad}; the parameters must be a dict {{PARAM: VALUE}}")
    for key, value in params:
        if not (isinstance(key, str) and KEY_RE.fullmatch(key)) or key == "from":
            raise RulesError(f"{bad}; {key!r} is not a parameter name")
        if isinstance(value, bool) or (isinstance(value, int)):
            continue
        if isinstance(value, float) and math.isfinite(value):
            continue
        if isinstance(value, str) and VALUE_RE.fullmatch(value):
            continue
        raise RulesError(f"{bad}; parameter {key}={value!r} is not an int, a finite float, a "
                         "bool or a string without spaces, '=' or ';' (write '3x3', not (3, 3))")
    return type_, params


def short(v):
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def call_rule(rule, op, inputs, output, what):
    """Runs a rule; its layer, None, or a RulesError naming the rules file's line."""
    try:
        result = rule.fn(op, inputs, output)
    except Exception as e:  # a rule's own error: the rules file is wrong, not the model
        raise RulesError(f"{innermost_line(e, rule.path)}: the rule for {what} raised "
                         f"{first_line(e)}")
    return layer_of(rule, result, what)
