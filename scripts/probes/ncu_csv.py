"""Launches from Nsight Compute's `--csv --print-units base` page (a metric a line), read bounded:
at most 100,000 lines, in launch order, each {"name", "block", "grid", METRIC: value} (rows_issue.py,
softmax_count_check.py)."""
import csv


def launches(path):
    with open(path, newline="") as f:
        lines = [line for _, line in zip(range(1_000_000), f) if line.startswith('"')][:100000]
    by_id = {}
    for r in csv.reader(lines):
        if len(r) < 15 or r[0] == "ID":
            continue
        k = by_id.setdefault(int(r[0]), {"name": r[6], "block": r[8], "grid": r[9]})
        k[r[-3]] = float(r[-1].replace(",", "")) if r[-1] not in ("", "n/a") else 0.0
    return [by_id[i] for i in sorted(by_id)]
