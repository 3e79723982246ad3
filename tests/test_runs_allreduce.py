"""The runs CSV's allreduce and bucket_mib columns (bench writes them on several ranks) as fit
and validate read them: the ring model takes the rows' bucket where --bucket-mib is not given
and refuses another; rows of two all-reduces or bucket sizes are not fitted as one machine,
and are two configurations, not one measured again; a bad value is named by file and line. The
rows are tests/data/scaling/cpu-16-ranks-1-to-4.csv's (measured on 16 cores, 1 to 4 ranks),
given the two columns here.

    test_runs_allreduce.py SCALEMETER
"""
import csv
import os
import shutil
import tempfile

from cli_checks import check, finish, run

ROWS = os.path.abspath("tests/data/scaling/cpu-16-ranks-1-to-4.csv")


def with_columns(path, value):
    """ROWS with allreduce and bucket_mib; value(i, row) gives a multi-rank row's two."""
    with open(ROWS) as f:
        rows = list(csv.reader(f))
    out = [rows[0] + ["allreduce", "bucket_mib"]]
    for i, r in enumerate(rows[1:]):
        several = int(r[3]) * int(r[4]) > 1
        out.append(r + (list(value(i, r)) if several else ["", ""]))
    with open(path, "w") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    return out


def bucket_of(ini):
    with open(ini) as f:
        for line in f:
            if line.startswith("bucket_mb"):
                return float(line.split("=")[1])
    return None


tmp = tempfile.mkdtemp(prefix="sm-runs-allreduce-")
try:
    ring1 = os.path.join(tmp, "ring1.csv")
    rows = with_columns(ring1, lambda i, r: ("ring", "1"))
    # 1. the ring model's bucket is the rows' (k = ceil(4W / bucket) of 1 MiB, not 25)
    out = os.path.join(tmp, "ring1.ini")
    rc, _, err = run("fit", ring1, "--grad-model", "ring", "-o", out)
    check(rc == 0, f"fit --grad-model ring: {err.strip()}")
    check(bucket_of(out) == 1.0, f"bucket_mb {bucket_of(out)}, expected the rows' 1")
    # ... and another one given is refused, naming the rows' and what to give
    rc, _, err = run("fit", ring1, "--grad-model", "ring", "--bucket-mib", "25",
                     "-o", os.path.join(tmp, "x.ini"))
    check(rc != 0 and "in 1 MiB buckets (bucket_mib), the ring model's are 25 MiB: give "
          "--bucket-mib 1" in err, f"--bucket-mib 25 against rows of 1: {err.strip()}")
    # the same size as bench quantises it (0.01 MiB is 2621 floats: 0.00999832) is the same
    q = os.path.join(tmp, "q.csv")
    with_columns(q, lambda i, r: ("ring", "0.00999832"))
    rc, _, err = run("fit", q, "--grad-model", "ring", "--bucket-mib", "0.01",
                     "-o", os.path.join(tmp, "q.ini"))
    check(rc == 0, f"--bucket-mib 0.01 against bench's 0.00999832: {err.strip()}")
    # the linear model has no buckets: the rows' is no matter
    rc, _, err = run("fit", ring1, "-o", os.path.join(tmp, "linear.ini"))
    check(rc == 0, f"fit (linear): {err.strip()}")

    # 2. rows of two all-reduces: one grad equation of neither; refused at the first other row
    mixed = os.path.join(tmp, "mixed.csv")
    rows = with_columns(mixed, lambda i, r: ("mpi" if i % 2 else "ring", "1"))
    rc, _, err = run("fit", mixed, "-o", os.path.join(tmp, "m.ini"))
    check(rc != 0 and "a row of all-reduce 'mpi' among rows of 'ring'" in err
          and "fit one all-reduce at a time" in err, f"two all-reduces: {err.strip()}")
    # ... and of two bucket sizes
    sizes = os.path.join(tmp, "sizes.csv")
    with_columns(sizes, lambda i, r: ("ring", "25" if i % 2 else "1"))
    rc, _, err = run("fit", sizes, "-o", os.path.join(tmp, "s.ini"))
    check(rc != 0 and "fit one bucket size at a time" in err, f"two buckets: {err.strip()}")

    # 3. a configuration under two all-reduces is two, not one measured again (validate reads
    # them as they are; the repeated-row warning counted them)
    twice = os.path.join(tmp, "twice.csv")
    base = with_columns(twice, lambda i, r: ("ring", "1"))
    several = [r for r in base[1:] if int(r[3]) * int(r[4]) > 1]
    with open(twice, "a") as f:
        w = csv.writer(f, lineterminator="\n")
        for r in several:
            w.writerow(r[:-2] + ["mpi", "1"])
    rc, _, err = run("validate", twice, "--coeffs", os.path.join(tmp, "linear.ini"))
    check(rc == 0, f"validate: {err.strip()}")
    check("measured again" not in err, f"rows of two all-reduces taken as repeats: {err}")
    # the same rows twice are still repeats
    again = os.path.join(tmp, "again.csv")
    with_columns(again, lambda i, r: ("ring", "1"))
    with open(again, "a") as f:
        csv.writer(f, lineterminator="\n").writerow(several[0])
    rc, _, err = run("validate", again, "--coeffs", os.path.join(tmp, "linear.ini"))
    check("measured again" in err, f"a row repeated not said: {err.strip()}")

    # 4. bad values: named by file and line
    for name, value, text in (("badname", ("ring;rm", "1"), "allreduce 'ring;rm'"),
                              ("badsize", ("ring", "-1"), "bucket_mib '-1'"),
                              ("hexsize", ("ring", "0x10"), "bucket_mib '0x10'"),
                              ("nansize", ("ring", "nan"), "bucket_mib 'nan'")):
        path = os.path.join(tmp, name + ".csv")
        rows = with_columns(path, lambda i, r, v=value: v)
        line = next(k + 1 for k, r in enumerate(rows) if r[-1] == value[1] and k)
        rc, _, err = run("fit", path, "-o", os.path.join(tmp, "bad.ini"))
        check(rc != 0 and f"{path}:{line}: {text}" in err, f"{name}: {err.strip()}")
finally:
    shutil.rmtree(tmp)
finish()
