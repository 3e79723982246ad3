#!/usr/bin/python3
"""How long `scalemeter metrics` takes beside a PyTorch forward-hook count of the same network,
and where scalemeter's time goes (issue 34). Writes docs/startup.md.

Both sides run as a user runs them, as whole processes, one at a time, each started fresh:

  scalemeter   BUILD/bin/scalemeter metrics MODEL --image S --format json
  PyTorch      python3 tools/startup_bench.py --hook-count MODEL S: import torch and
               torchvision, build the torchvision model (tools/torch_reference.py's builder and
               its forward hooks on every leaf module), run one 1x3xSxS image, print the counts

Each side's wall time is the median over --reps runs (PyTorch: --torch-reps) around
/usr/bin/time -f %M and the command; its peak resident memory is time's %M (ru_maxrss).
The two sides' MACs and weights are compared, so a ratio is never of two different counts.
"Where the time goes" times the steps of a metrics run as commands of their own: an empty C
program (the floor), the process and its libraries (--version), then metrics, which loads the
plugins of the network's own types, parses and counts; beside them `plugins`, which loads every
plugin, and the libraries and plugins metrics maps (LD_DEBUG=files).

Usage: /usr/bin/python3 tools/startup_bench.py [--build build] [-o docs/startup.md]
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# A sample of the zoo that differs in what it is made of: residual, depthwise, plain, dense,
# squeeze-excitation, transformer-like blocks.
SAMPLE = ["resnet50", "mobilenet_v2", "vgg16", "densenet121", "efficientnet_b0",
          "convnext_tiny"]
SIZES = [64, 128, 224, 320]


def hook_count(name, image):
    """The child: one PyTorch count, printed as JSON with the time after the imports."""
    t0 = time.perf_counter()
    sys.path.insert(0, HERE)
    import torch_reference  # imports torch and torchvision
    t1 = time.perf_counter()
    totals, _ = torch_reference.measure(torch_reference.build(name), image)
    t2 = time.perf_counter()
    print(json.dumps({"macs": totals["macs"], "weights": totals["params"],
                      "import_s": t1 - t0, "count_s": t2 - t1}))


def run(argv):
    """Wall seconds, peak RSS in KiB and standard output of one fresh process. The peak is GNU
    time's (%M: wait4's ru_maxrss): a child forked from this Python would count Python's own
    pages, which the kernel keeps in the peak across exec."""
    with tempfile.NamedTemporaryFile("r") as rss:
        t0 = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name] + argv,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"startup_bench.py: {' '.join(argv)} failed (exit {r.returncode})")
        return wall, int(rss.read().split()[-1]), r.stdout


def median_run(argv, reps):
    walls, rss, out = [], [], ""
    run(argv)  # warm the page cache
    for _ in range(reps):
        wall, peak, out = run(argv)
        walls.append(wall)
        rss.append(peak)
    return statistics.median(walls), max(rss), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "docs", "startup.md"))
    ap.add_argument("--reps", type=int, default=21, help="scalemeter runs per point")
    ap.add_argument("--torch-reps", type=int, default=3, help="PyTorch runs per point")
    ap.add_argument("--models", default=",".join(SAMPLE))
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--hook-count", nargs=2, metavar=("MODEL", "IMAGE"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.hook_count:
        return hook_count(a.hook_count[0], int(a.hook_count[1]))

    sm = os.path.join(os.path.abspath(a.build), "bin", "scalemeter")
    py = "/usr/bin/python3"
    a.load = [os.getloadavg()[0]]
    rows = []
    for model in a.models.split(","):
        for size in map(int, a.sizes.split(",")):
            s_wall, s_rss, s_out = median_run(
                [sm, "metrics", model, "--image", str(size), "--format", "json"], a.reps)
            t_wall, t_rss, t_out = median_run(
                [py, os.path.abspath(__file__), "--hook-count", model, str(size)], a.torch_reps)
            s, t = json.loads(s_out), json.loads(t_out.strip().splitlines()[-1])
            same = s["macs"] == t["macs"] and s["weights"] == t["weights"]
            rows.append((model, size, s_wall, s_rss, t_wall, t["count_s"], t_rss, same))
            print(f"{model} {size}: scalemeter {s_wall * 1e3:.1f} ms {s_rss / 1024:.1f} MiB, "
                  f"PyTorch {t_wall:.2f} s {t_rss / 1024:.0f} MiB, x{t_wall / s_wall:.0f}"
                  f"{'' if same else ' COUNTS DIFFER'}", file=sys.stderr)

    # where a metrics run's time goes: the floor (an empty program, and one linked with
    # OpenBLAS, which counting no longer maps), the process and its libraries, metrics
    floor = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "e.c")
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        for label, libs_ in [("an empty C program (exec, the dynamic loader, libc)", []),
                             ("an empty C program linked with OpenBLAS", ["-lopenblas"])]:
            exe = os.path.join(tmp, f"e{len(floor)}")
            subprocess.run(["cc", "-O2", src, "-o", exe, "-Wl,--no-as-needed"] + libs_,
                           check=True)
            wall, rss, _ = median_run([exe], a.reps)
            floor.append((label, wall, rss))
    steps = []
    for label, argv in [("start, libraries mapped (--version)", [sm, "--version"]),
                        ("and resnet50's plugins loaded, parsed and counted (metrics resnet50)",
                         [sm, "metrics", "resnet50"]),
                        ("every plugin loaded instead (plugins)", [sm, "plugins"])]:
        wall, rss, _ = median_run(argv, a.reps)
        steps.append((label, wall, rss))
    env = dict(os.environ, LD_DEBUG="files")
    r = subprocess.run([sm, "metrics", "resnet50"], env=env, capture_output=True, text=True)
    libs = sorted({os.path.basename(m) for m in re.findall(r"file=(\S+)", r.stderr)
                   if "/plugins/" not in m})
    plugins = len({m for m in re.findall(r"file=(\S+/plugins/\S+)", r.stderr)})
    n_plugins = len([n for n in os.listdir(os.path.join(a.build, "lib", "scalemeter", "plugins"))
                     if n.endswith(".so") and not re.search(r"_[cg]pu\.so$", n)])
    a.load.append(os.getloadavg()[0])
    cuda_built = os.path.exists(os.path.join(a.build, "lib", "scalemeter", "backends",
                                             "cuda.so"))
    write(a, rows, floor, steps, libs, plugins, n_plugins, cuda_built)


def write(a, rows, floor, steps, libs, plugins, n_plugins, cuda_built):
    torch_v = subprocess.run(["/usr/bin/python3", "-c",
                              "import torch, torchvision; print(torch.__version__, "
                              "torchvision.__version__)"],
                             capture_output=True, text=True).stdout.split()
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    res = [r for r in rows if r[0] == "resnet50" and r[1] == 224]
    ratios = [r[4] / r[2] for r in rows]
    out = []
    w = out.append
    w("# Start-up: `scalemeter metrics` beside a PyTorch hook count\n")
    w("Generated by `/usr/bin/python3 tools/startup_bench.py "
      + " ".join(sys.argv[1:]) + "` (issue 34); do not edit by hand.\n")
    w(f"Machine: {cpu}, {os.cpu_count()} cores, Linux {platform.release()}; build "
      f"`{os.path.relpath(os.path.abspath(a.build), ROOT)}` "
      f"({'CUDA build: cuda.so built' if cuda_built else 'no CUDA backend built'}); "
      f"PyTorch {torch_v[0] if torch_v else '?'}, torchvision "
      f"{torch_v[1] if len(torch_v) > 1 else '?'} under /usr/bin/python3. Load average "
      f"{a.load[0]:.1f} at the start and {a.load[1]:.1f} at the end: on a shared machine the "
      "times of both sides are the machine's as much as theirs; the ratio and the peaks are "
      "the figures to compare.\n")
    w("Each side runs as a whole process, one at a time: `scalemeter metrics MODEL --image S "
      "--format json`, and a Python process that imports torch and torchvision, builds the "
      "torchvision model and counts MACs and weights with forward hooks on every leaf module "
      "(tools/torch_reference.py's counter) over one 1x3xSxS image. Times are medians of "
      f"{a.reps} scalemeter runs and {a.torch_reps} PyTorch runs, wall clock around "
      "`/usr/bin/time -f %M` and the command (time's own start, about a millisecond, counts "
      "against both); peak is the command's maximum resident set (%M). \"same\" says whether both "
      "counted the same MACs and weights.\n")
    if res:
        r = res[0]
        w(f"**resnet50 at 224: scalemeter {r[2] * 1e3:.1f} ms and {r[3] / 1024:.1f} MiB, "
          f"PyTorch {r[4]:.2f} s ({r[5]:.2f} s of it after the imports) and "
          f"{r[6] / 1024:.0f} MiB: {r[4] / r[2]:.0f} times faster** (targets: 400 times, 12 MiB)."
          f" Over all {len(rows)} points: {min(ratios):.0f} to {max(ratios):.0f} times, "
          f"peak {min(r[3] for r in rows) / 1024:.1f} to {max(r[3] for r in rows) / 1024:.1f} "
          "MiB.\n")
    w("| network | image | scalemeter ms | peak MiB | PyTorch s | of it counting s | peak MiB "
      "| ratio | same |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for m, s, sw, sr, tw, tc, tr, same in rows:
        w(f"| {m} | {s} | {sw * 1e3:.1f} | {sr / 1024:.1f} | {tw:.2f} | {tc:.2f} | "
          f"{tr / 1024:.0f} | {tw / sw:.0f} | {'yes' if same else 'NO'} |")
    w("\n## Where scalemeter's time goes\n")
    w("The steps of `metrics resnet50`, each a command that stops after it, beside the floor of "
      "any process and what `plugins` pays to load every plugin (medians as above):\n")
    w("| the process | ms | peak MiB |")
    w("|---|---:|---:|")
    for label, wall, rss in floor + steps:
        w(f"| {label} | {wall * 1e3:.1f} | {rss / 1024:.1f} |")
    w(f"\n`metrics resnet50` maps {len(libs)} libraries besides {plugins} of the {n_plugins} "
      "plugins (LD_DEBUG=files): " + ", ".join(libs) + ". A network loads the plugins of its "
      "own types alone (NAME.so for type NAME, docs/plugins.md); `plugins` loads all. The "
      "program links libscalemeter alone; the measuring backends (MPI, the executors, CUDA, "
      "cuDNN, cuBLAS, NCCL, NVML) are the modules lib/scalemeter/backends/cpu.so and cuda.so, "
      "which only bench, calibrate and allreduce load (calibrate/backend_module.h). OpenBLAS, "
      "LAPACK and gfortran are mapped only by fit's least squares (LAPACKE, loaded on the first "
      "solve) and by the CPU kernel modules NAME_cpu.so, which only the CPU backend, the "
      "conformance cases and check-plugin load.\n")
    res = [r for r in rows if r[0] == "resnet50" and r[1] == 224]
    if res:
        r = res[0]
        need = r[4] / 400
        start, metrics = steps[0][1], steps[1][1]
        w("## What is left\n")
        w(f"400 times PyTorch's {r[4]:.2f} s is {need * 1e3:.1f} ms for the whole process. Of "
          f"metrics' {metrics * 1e3:.1f} ms, {floor[0][1] * 1e3:.1f} ms is the floor of any "
          f"process under this harness (an empty C program), "
          f"{(start - floor[0][1]) * 1e3:.1f} ms starting scalemeter and mapping its libraries "
          f"beyond that (--version), and {(metrics - start) * 1e3:.1f} ms loading resnet50's "
          f"{plugins} plugins, parsing its file and counting: "
          + (f"the target is met, {(need - metrics) * 1e3:.1f} ms to spare.\n" if metrics <= need
             else f"{(metrics - need) * 1e3:.1f} ms over the target.\n"))
    text = "\n".join(out) + "\n"
    with open(a.output, "w") as f:
        f.write(text)
    print(f"wrote {a.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
