#!/usr/bin/env python3
"""Nsight Compute's warp instructions of ATen's softmax kernels (scripts/probes/softmax_count.py's
capture: torch.softmax on randn(64, cols) bf16, a launch a width) against gpucalc's count (the
fusion note's warp instructions a row x 64) and the SASS walk's prediction committed before the run
(docs/device-runs/issue38-rows/aten-softmax-sass.md section 8). No GPU needed.

Usage: python3 softmax_count_check.py GPUCALC softmax-count.csv [aten-softmax-sass.md]   (a Markdown table)
"""
import re
import subprocess
import sys

import ncu_csv
from softmax_widths import SOFTMAX_WIDTHS

ROWS = 64


def predicted(md_path):
    """{cols: the SASS walk's predicted warp instructions for 64 rows} from section 8's table."""
    out = {}
    with open(md_path) as f:
        text = f.read()[:200000]
    for cols, count in re.findall(r"^\| (\d+) \| [^|]+ \| ([\d,]+) \|$", text[text.find("## 8."):], re.M):
        out[int(cols)] = int(count.replace(",", ""))
    return out


def gpucalc_row(gpucalc, cols):
    """gpucalc's kernel and warp instructions a row (the softmax note, every launch's cost 0)."""
    out = subprocess.run([gpucalc, "fusion", "--preset", "softmax", "--rows", str(ROWS), "--cols", str(cols), "--launch", "0us",
                          "--gpu", "h100"], capture_output=True, text=True, timeout=30).stdout
    m = re.search(r"runs (\S+) here .*?counted from its SASS \(([\d,]+) warp instructions a row\)", out)
    return (m.group(1), int(m.group(2).replace(",", ""))) if m else ("not counted", 0)


def main():
    gpucalc, path = sys.argv[1], sys.argv[2]
    md = sys.argv[3] if len(sys.argv) > 3 else "docs/device-runs/issue38-rows/aten-softmax-sass.md"
    walk = predicted(md)
    launches = ncu_csv.launches(path)
    print("| cols | kernel (ncu) | registers | ncu warp instructions | gpucalc (64 rows) | gpucalc / ncu | SASS walk (predicted) | walk / ncu |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for cols, m in zip(SOFTMAX_WIDTHS, launches):
        name = m["name"]
        kernel, row = gpucalc_row(gpucalc, cols)
        ncu = m.get("smsp__inst_executed.sum", 0)
        short = name.split("(")[0].replace("void ", "").split("::")[-1][:60]
        model = ROWS * row
        w = walk.get(cols, 0)
        print(f"| {cols} | {short} | {m.get('launch__registers_per_thread', 0):.0f} | {ncu:,.0f} | {model:,} ({kernel}) | "
              f"{model / ncu if ncu else 0:.4f} | {w:,} | {w / ncu if ncu else 0:.4f} |")


if __name__ == "__main__":
    main()
