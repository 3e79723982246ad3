"""Run a script under a Python that has PyTorch, or say how to get one.

A Debian machine often has two Pythons: Debian's /usr/bin/python3, where `apt-get install
python3-torchvision` puts PyTorch, and another one first on PATH (pyenv, conda, a venv) without
it. The tools that need torch call require_torch() before importing it: if this interpreter lacks
torch, the script runs again under the first one that has it (SCALEMETER_PYTHON, then
/usr/bin/python3, then every python3 on PATH), saying so on stderr when asked (verbose: a user
who has torch only in Debian's Python needs no notice each run); if none has it, it stops with
what to install. SCALEMETER_PYTHON, where set (not empty), is the user's choice and the only one
tried: a path that is missing, not executable or a folder stops the tool at once, whatever this
interpreter has, and so does one without torch, rather than running under another.
"""
import os
import shutil
import subprocess
import sys

_REEXEC = "SCALEMETER_TORCH_REEXEC"  # set in the child: never loop


def _has(modules):
    try:
        for m in modules:
            __import__(m)
        return True
    except ImportError:
        return False


def _named_python(tool):
    """SCALEMETER_PYTHON where it is set and not empty, else None; exits, naming the variable and
    the path, where it names nothing that can run."""
    path = os.environ.get("SCALEMETER_PYTHON")
    if not path:
        return None
    if not os.path.exists(path):
        why = "no such file"
    elif os.path.isdir(path):
        why = "a folder, not a Python interpreter"
    elif not os.access(path, os.X_OK):
        why = "not executable"
    else:
        return path
    sys.exit(f"{tool}: SCALEMETER_PYTHON={path}: {why} (name a python3, or unset it)")


def _candidates(tool):
    named = _named_python(tool)
    if named:
        return [] if os.path.realpath(named) == os.path.realpath(sys.executable) else [named]
    seen = set()
    found = []
    for path in ["/usr/bin/python3"] + [
            os.path.join(d, "python3") for d in os.environ.get("PATH", "").split(os.pathsep) if d]:
        if not path or not os.access(path, os.X_OK):
            continue
        real = os.path.realpath(path)
        if real in seen or real == os.path.realpath(sys.executable):
            continue
        seen.add(real)
        found.append(path)
    return found


def require_torch(tool, modules=("torch", "torchvision"), verbose=True):
    """Returns when `modules` import here; else re-executes the script or exits with advice."""
    named = _named_python(tool)
    if _has(modules):
        return
    tried = [sys.executable]
    if not os.environ.get(_REEXEC):
        check = "import " + ", ".join(modules)
        for python in _candidates(tool):
            tried.append(python)
            try:
                ok = subprocess.run([python, "-c", check], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, timeout=120).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                ok = False
            if ok and verbose:
                print(f"{tool}: {sys.executable} has no {' or '.join(modules)}; running under "
                      f"{python}", file=sys.stderr)
            if ok:
                os.environ[_REEXEC] = "1"
                os.execv(python, [python] + sys.argv)
    if named:
        sys.exit(f"{tool}: SCALEMETER_PYTHON={named} has no {' or '.join(modules)} (tried "
                 f"{', '.join(tried)}); name a python3 that has them, or unset it")
    sys.exit(f"{tool}: needs {' and '.join(modules)}, and no Python here has them (tried "
             f"{', '.join(tried)}). Install them: on Debian `apt-get install python3-torchvision` "
             f"(brings python3-torch; then run it with /usr/bin/python3), or `pip install torch "
             f"torchvision`; SCALEMETER_PYTHON=/path/to/python3 names an interpreter to use.")


def which_python():
    """The interpreter the tests and scripts should call: this one if it has torch, else the
    first that has, else None."""
    if _has(("torch",)):
        return sys.executable
    for python in _candidates("torch_python.py"):
        if subprocess.run([python, "-c", "import torch"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            return python
    return shutil.which("python3")
