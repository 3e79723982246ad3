"""The published figures a validation tool predicts, one CSV row each, for
tools/device_scorecard.py (docs/accuracy-devices.md) and for anyone who wants them as data.

A validation tool calls record() for each published figure it sets a shipped description's
prediction beside, as the description ships (not its what-ifs), and write() when given
--rows FILE. Standard library only.
"""
import csv

FIELDS = ["source", "part", "network", "precision", "gpus", "batch", "published", "predicted",
          "unit"]
# units whose figure is a time: a faster prediction is a smaller number
TIMES = {"ms"}

_rows = []


def record(source, part, network, precision, gpus, batch, published, predicted, unit):
    """One published figure and scalemeter's prediction of it, in the figure's own unit
    (img/s, seq/s, tokens/s per GPU, or ms)."""
    _rows.append({"source": source, "part": part, "network": network, "precision": precision,
                  "gpus": int(gpus), "batch": batch, "published": float(published),
                  "predicted": float(predicted), "unit": unit})


def speed_ratio(row):
    """Predicted speed over published speed: above 1 the model is optimistic."""
    if row["unit"] in TIMES:
        return row["published"] / row["predicted"]
    return row["predicted"] / row["published"]


def add_argument(parser):
    parser.add_argument("--rows", metavar="FILE",
                        help="also write each published figure and its prediction as CSV")


def write(path):
    if not path:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in _rows:
            w.writerow({**r, "published": f"{r['published']:.6g}",
                        "predicted": f"{r['predicted']:.6g}"})


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["gpus"] = int(r["gpus"])
        r["published"], r["predicted"] = float(r["published"]), float(r["predicted"])
    return rows
