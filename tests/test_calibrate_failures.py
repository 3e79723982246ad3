"""The parts of tests/test_cli_misuse.py that start MPI (bench and calibrate;
tests/cli_misuse.cmake): a byte-order mark on bench's CSV, a measurement that stops before
any row, a failed validation beside an earlier run's, and one validation for the table and
the report. Each check failed before its fix.

    test_calibrate_failures.py SCALEMETER
"""
import csv
import os
import shutil
import signal
import subprocess
import tempfile
import time

from cli_checks import SM, check, finish, run

TINY = [f"tests/data/fit/tiny_{n}.ini" for n in "abc"]
BOM = b"\xef\xbb\xbf"
HEADER = "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,backend," \
         "threads,reps,status\n"


def write_runs(path, images, nets=TINY):
    """Rows for tiny_a, b, c at images x batches 1, 2, 4, 8, as bench would write them with
    --threads 1 (so calibrate measures none of them again): t_infer = b img^2 (k+1) 1e-6 +
    (k+1) 1e-4; the values only need to be positive, the rank is the networks' and sizes'."""
    with open(path, "w") as f:
        f.write(HEADER)
        for k, net in enumerate(nets):
            for img in images:
                for b in (1, 2, 4, 8):
                    ti = b * img * img * (1 + k) * 1e-6 + 1e-4 * (k + 1)
                    tf, tb, tg = ti * 1.1, ti * 2.1, 1e-4 * (k + 2)
                    f.write(f"{net},{img},{b},1,1,{ti:.6g},{tf:.6g},{tb:.6g},{tg:.6g},"
                            f"{tf + tb + tg:.6g},cpu,1,3,ok\n")


tmp = tempfile.mkdtemp(prefix="sm-calibrate-failures-")
try:
    # 10. a byte-order mark (a spreadsheet's CSV UTF-8): fit reads past it; bench, which
    # refused the file, reads past it too and appends under the header, leaving the file's
    # first bytes and mode as they were, and fit reads the rows it appended
    runs = os.path.join(tmp, "bom.csv")
    with open(runs, "wb") as f:
        f.write(BOM + HEADER.encode())
    os.chmod(runs, 0o640)
    rc, out, err = run("bench", TINY[0], "--image", "8", "--batch", "1", "--reps", "1",
                       "--warmup", "1", "--min-time", "0.01", "--threads", "1", "-o", runs)
    check(rc == 0, f"bench -o a CSV with a byte-order mark: exit {rc}: {err.strip()}")
    data = open(runs, "rb").read()
    check(data.startswith(BOM + HEADER.encode()) and data.count(b"\n") == 2,
          f"bench: the mark and header kept, one row appended: {data[:80]!r}")
    check(os.stat(runs).st_mode & 0o777 == 0o640, "bench: the file's mode kept")

    # 9. a measurement that stops before any row: not "every row measured so far"
    prefix = os.path.join(tmp, "none")
    rc, out, err = run("calibrate", "no_such_net", "-o", prefix)
    check(rc != 0 and "measuring stopped before any row was measured" in err
          and "so far" not in err, f"calibrate of an unknown network: exit {rc}: {err}")

    # 6. a validation that fails after new coefficients were written: the earlier run's
    # P-loo.json validated other coefficients, and is not left as if it were of these.
    # First run: 3 networks at images 8 and 16, which leave-one-model-out can validate.
    prefix = os.path.join(tmp, "P")
    models = ",".join(TINY)
    write_runs(prefix + ".csv", (8, 16))
    rc, out, err = run("calibrate", models, "--image", "8,16", "--batch", "1,2,4,8",
                       "--threads", "1", "-o", prefix)
    check(rc == 0 and os.path.exists(prefix + "-loo.json"), f"first calibration: {rc}: {err}")
    # Second run on rows at image 8 only: the fit on all three networks separates F, I, O
    # (three networks), each fit on two cannot (two b-proportional columns for three terms),
    # so every fold fails and there is no validation.
    write_runs(prefix + ".csv", (8,))
    rc, out, err = run("calibrate", models, "--image", "8", "--batch", "1,2,4,8", "--threads",
                       "1", "-o", prefix)
    check(rc != 0, f"second calibration: exit {rc}")
    check("wrote " + prefix + ".ini" in err, f"the new coefficients written: {err}")
    check(not os.path.exists(prefix + "-loo.json"), "the earlier P-loo.json is left as if current")
    check("removed " + prefix + "-loo.json, an earlier run's validation of other coefficients"
          in err, f"and said: {err}")
    check(not [n for n in os.listdir(tmp) if ".tmp." in n], f"no temporary left: {os.listdir(tmp)}")

    # A signal while calibrate measures ends the job inside bench, which said what the CSV
    # keeps and nothing of the fit's files: P.ini and P-loo.json, the first run's, read as
    # results of the rows just measured. resnet18 at 32 x 32 measures slowly enough
    # (--min-time 0.3, 16 batches) for the signal to land after the first row.
    write_runs(prefix + ".csv", (8, 16))
    rc, out, err = run("calibrate", models, "--image", "8,16", "--batch", "1,2,4,8",
                       "--threads", "1", "-o", prefix)
    check(rc == 0 and os.path.exists(prefix + "-loo.json"), f"calibration again: {rc}: {err}")
    before = len(open(prefix + ".csv").read().splitlines())
    p = subprocess.Popen([SM, "calibrate", "resnet18", "--image", "32", "--batch",
                          ",".join(str(b) for b in range(1, 17)),
                          "--threads", "1", "--warmup", "1", "--reps", "3", "--min-time", "0.3",
                          "-o", prefix], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    for _ in range(600):
        if len(open(prefix + ".csv").read().splitlines()) > before or p.poll() is not None:
            break
        time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    err = p.communicate()[1]
    check(p.returncode == 130, f"calibrate after SIGINT: exit {p.returncode}: {err}")
    check(f"scalemeter calibrate: {prefix}.ini and {prefix}-loo.json are from an earlier run, "
          "not of the rows measured now" in err, f"interrupted calibrate: {err}")

    # 13. the validation is computed once for the printed table and P-loo.json (it ran twice,
    # saying each of its notes twice), and both are what fit --cv loo prints. tiny_b and c
    # at image 16 out of memory: leaving tiny_a out cannot separate the terms, a note.
    prefix = os.path.join(tmp, "Q")
    write_runs(prefix + ".csv", (8, 16))
    rows = open(prefix + ".csv").read().splitlines(True)
    with open(prefix + ".csv", "w") as f:
        f.writelines(r.replace(",ok\n", ",oom\n") if ",16," in r and "tiny_a" not in r else r
                     for r in rows)
    rc, out, err = run("calibrate", models, "--image", "8,16", "--batch", "1,2,4,8",
                       "--threads", "1", "-o", prefix)
    check(rc == 0, f"calibration with a network left unvalidated: exit {rc}: {err}")
    check(err.count("leave-one-model-out could not validate 1 of 3 networks") == 1,
          f"the validation's note once: {err}")
    cv = [prefix + ".csv", "--weight-term", "--update-term", "--cv", "loo"]
    rc, table, _ = run("fit", *cv)
    check(rc == 0 and table and table in out, f"calibrate printed fit --cv loo's table: {out}")
    rc, js, _ = run("fit", *cv, "--format", "json")
    check(rc == 0 and open(prefix + "-loo.json").read() == js,
          "Q-loo.json is fit --cv loo --format json")

    # -o PREFIX whose PREFIX.ini is a network measured (`calibrate net.ini,... -o net`): fit
    # wrote the coefficients over the network after the measuring. Refused before it, the
    # network left as it was.
    net = os.path.join(tmp, "net.ini")
    shutil.copy(TINY[0], net)
    before = open(net, "rb").read()
    nets = [net] + TINY[1:]
    write_runs(os.path.join(tmp, "net.csv"), (8, 16), nets)
    rc, out, err = run("calibrate", ",".join(nets), "--image", "8,16", "--batch", "1,2,4,8",
                       "--threads", "1", "-o", os.path.join(tmp, "net"))
    want = (f"scalemeter calibrate: -o (PREFIX.ini) {net} is the input {net}: writing it would "
            "replace what is read; name another file")
    check(rc == 2 and err.strip() == want, f"calibrate -o net of net.ini: exit {rc}: {err}")
    check(open(net, "rb").read() == before, "calibrate wrote over the network net.ini")
    # bench takes the last of an option given twice; calibrate chose its defaults by the first
    # (--backend cuda --backend cpu: GPU images 64, 128, 224 measured on the CPU). Now the
    # CPU's, images 32 and 64 (the tiny networks at batch 1; the fit's outcome aside)
    prefix = os.path.join(tmp, "twice")
    run("calibrate", ",".join(TINY), "--backend=cuda", "--backend=cpu", "--batch", "1",
        "--reps", "1", "--warmup", "1", "-q", "-o", prefix)
    with open(prefix + ".csv") as f:
        images = sorted({line.split(",")[1] for line in f.read().splitlines()[1:]})
    check(images == ["32", "64"], f"calibrate --backend cuda --backend cpu: images {images}")
    # the standard input, or a name with a control byte, as a network: refused before any
    # measurement (- stood for every network read so; a control byte was measured, then
    # refused by the CSV's writer, every run)
    for name in ("-", "tiny\x1fnet.ini"):
        rc, out, err = run("bench", name, "--batch", "1", "--reps", "1", "--warmup", "1", "-o",
                           os.path.join(tmp, "names.csv"))
        check(rc == 2 and "network '" in err and not os.path.exists(os.path.join(tmp, "names.csv")),
              f"bench {name!r}: exit {rc}: {err.strip()}")
    # what stopped the job only after its measurements: a device name the coefficient file
    # cannot hold, an output that is a folder (said to be "an earlier run's")
    os.mkdir(os.path.join(tmp, "folder.ini"))
    for args, want in ((["--device-name", " x ;y", "-o", os.path.join(tmp, "named")],
                        "--device-name: it would not read back"),
                       (["--device-name", "", "-o", os.path.join(tmp, "named")],
                        "--device-name '': an empty name"),
                       (["-o", os.path.join(tmp, "folder")], "folder.ini is a folder")):
        rc, out, err = run("calibrate", TINY[0], "--batch", "1", *args)
        check(rc == 2 and want in err and not os.path.exists(os.path.join(tmp, "named.csv"))
              and not os.path.exists(os.path.join(tmp, "folder.csv")),
              f"calibrate {args}: exit {rc}: {err.strip()}")
    # --threads above what OpenBLAS's build takes (MAX_THREADS; 64 in Debian's) was written as
    # asked: 64, 100 and 4096 made three rows of one run. The column says what ran
    threads_csv = os.path.join(tmp, "threads.csv")
    rc, out, err = run("bench", TINY[0], "--batch", "1", "--reps", "1", "--warmup", "1",
                       "--threads", "4096", "-o", threads_csv)
    with open(threads_csv) as f:
        rows = list(csv.DictReader(f)) if rc == 0 else []
    took = int(rows[0]["threads"]) if rows else -1
    said = f"--threads 4096: OpenBLAS runs {took} at most" in err
    check(rc == 0 and ((took < 4096 and said) or (took == 4096 and "OpenBLAS runs" not in err)),
          f"bench --threads 4096: exit {rc}, column {took}: {err.strip()}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

finish()
