#!/usr/bin/env python3
"""torch.softmax(x, -1) on torch.randn(64, cols) bf16, one call a width inside an NVTX range "sm", for
Nsight Compute's smsp__inst_executed of each of ATen's softmax kernels at the widths
docs/device-runs/issue38-rows/aten-softmax-sass.md section 8 predicted (GPU machine):

  ncu --clock-control none --nvtx --nvtx-include "sm/" --csv --print-units base \\
      --metrics smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \\
      --log-file softmax-count.csv python3 softmax_count.py

Usage: python3 softmax_count.py [COLS | ROWSxCOLS ...] (default: softmax_widths.py's, 64 rows each)
"""
import sys

import torch

from softmax_widths import SOFTMAX_WIDTHS


def main():
    shapes = [tuple(int(v) for v in a.split("x")) if "x" in a else (64, int(a)) for a in sys.argv[1:][:64]]
    torch.manual_seed(0)
    for rows, cols in shapes or [(64, c) for c in SOFTMAX_WIDTHS]:
        x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        torch.softmax(x, dim=-1)  # a first call outside the range: module loading
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("sm")
        torch.softmax(x, dim=-1)
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        print(rows, cols, flush=True)


if __name__ == "__main__":
    main()
