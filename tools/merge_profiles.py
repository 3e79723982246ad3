#!/usr/bin/env python3
"""Merge a lease's per-op profiles (tools/torch_layer_profile.py's CSV, gzipped or not) into a
part's file under configs/calibrations/<part>-pytorch-layers/:

    python3 tools/merge_profiles.py configs/calibrations/h200-pytorch-layers/tf32.csv.gz \\
        layers-tf32-more.csv.gz layers-convnext-tf32.csv.gz

Each (model, image, batch) point a new file holds replaces the target's rows of that point
(a later profile, often one that times each kernel, supersedes an older one); the others are
kept in their order, the new points appended. The columns are the union of the files', in the
profiler's order: a file begun before kernel_name_us gains it empty, which the tools read as
"this step does not time each kernel". A new file of another precision than the target's
rows is refused. Standard library only."""
import argparse
import csv
import gzip
import io
import os
import sys


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        r = csv.DictReader(f)
        return list(r.fieldnames or []), list(r)


def point(row):
    return row["model"], row["image"], row["batch"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", help="the part's <precision>.csv.gz (created if missing)")
    p.add_argument("new", nargs="+", help="profiles to merge in, in order (a later wins)")
    a = p.parse_args()
    fields, rows = read(a.target) if os.path.exists(a.target) else ([], [])
    precisions = {r["precision"] for r in rows}
    for path in a.new:
        f, new = read(path)
        if not new:
            sys.exit(f"merge_profiles: {path}: no rows")
        missing = {"model", "image", "batch", "precision", "step", "phase", "seq"} - set(f)
        if missing:
            sys.exit(f"merge_profiles: {path}: not a torch_layer_profile.py file "
                     f"(no {', '.join(sorted(missing))} column)")
        got = {r["precision"] for r in new}
        if precisions and got != precisions:
            sys.exit(f"merge_profiles: {path}: precision {', '.join(sorted(got))}, the target's "
                     f"is {', '.join(sorted(precisions))}")
        precisions |= got
        fields += [c for c in f if c not in fields]
        replaced = {point(r) for r in new}
        rows = [r for r in rows if point(r) not in replaced] + new
    tmp = a.target + ".tmp"
    # mtime 0: the same rows give the same bytes, so a merge run twice changes nothing in git
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as z, \
            io.TextIOWrapper(z, newline="") as out:
        w = csv.DictWriter(out, fieldnames=fields, restval="")  # the profiler's \r\n rows
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, a.target)
    points = sorted({point(r) for r in rows})
    print(f"merge_profiles: {a.target}: {len(rows)} rows, {len(points)} points")


if __name__ == "__main__":
    main()
