#!/usr/bin/env python3
"""The row kernels' issue-bound time against what ran: Nsight Compute's raw metrics CSV of probe38's
`rowsncu` section (docs/device-runs/issue38-rows/run-5-h100/rowsinst.csv: ATen's norms and softmax,
Inductor's, over 2^26 bf16 at 1,024 to 32,768 columns, one launch each, on an H100).

For each kernel: the duration, smsp__inst_executed (warp instructions), those instructions at the
chains' issue rate (0.75 of 4 a clock an SM, 132 SMs, at the clock ncu measured for the launch:
sm__cycles_elapsed.avg.per_second), duration / that, and DRAM's bytes. No GPU needed.

Usage: python3 rows_issue.py [rowsinst.csv]
"""
import sys

import ncu_csv

ISSUE = 0.75 * 4  # warp instructions a clock an SM at the chains' issue share
SMS = 132
NAMES = ("rmsnorm", "layernorm", "softmax")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "docs/device-runs/issue38-rows/run-5-h100/rowsinst.csv"
    # probe38's rowsncu order: per column count, rmsnorm, layernorm, softmax, each eager then
    # compiled where compiled (1,024, 4,096 and 16,384 columns)
    order = []
    for cols in (1024, 2048, 4096, 8192, 16384, 32768):
        for kind in NAMES:
            order.append(f"{kind} {2**26 // cols}x{cols} eager")
            if cols in (1024, 4096, 16384):
                order.append(f"{kind} {2**26 // cols}x{cols} compiled")
    print("| case | kernel | duration (us) | warp instructions | at 0.75 of 4 a clock (us) | duration / that | DRAM bytes (MB) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for i, k in enumerate(ncu_csv.launches(path)):
        inst, clock = k.get("smsp__inst_executed.sum", 0), k.get("sm__cycles_elapsed.avg.per_second", 0)
        dur = k.get("gpu__time_duration.sum", 0) * 1e-9
        issue = inst / (ISSUE * SMS * clock) if clock > 0 else 0
        dram = k.get("dram__bytes_read.sum", 0) + k.get("dram__bytes_write.sum", 0)
        case = order[i] if i < len(order) else "?"
        name = k["name"].split("(")[0].split("::")[-1][:48]
        print(f"| {case} | {name} | {dur * 1e6:.1f} | {inst:,.0f} | {issue * 1e6:.1f} | {dur / issue if issue else 0:.3f} | "
              f"{dram / 1e6:.1f} |")


if __name__ == "__main__":
    main()
