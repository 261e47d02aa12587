#!/usr/bin/env python3
"""F.rms_norm (a weight) or F.layer_norm (a weight and a bias) on torch.randn(rows, cols) bf16, one
call a shape inside an NVTX range "nm" after a warm-up call, for Nsight Compute's view of ATen's
row kernel (its DRAM bytes, instructions, duration) at each shape (GPU machine):

  ncu --clock-control none --nvtx --nvtx-include "nm/" --csv --print-units base \\
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size \\
      --log-file norm-count.csv python3 norm_count.py rms:12288x5120 layer:8192x5120 ...

Prints each shape in order.
"""
import sys

import torch
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    for arg in sys.argv[1:][:64]:
        kind, shape = arg.split(":")
        rows, cols = (int(v) for v in shape.split("x"))
        x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
        f = (lambda: F.rms_norm(x, (cols,), w, eps=1e-6)) if kind == "rms" else (lambda: F.layer_norm(x, (cols,), w, b, eps=1e-5))
        f()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("nm")
        f()
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        print(kind, rows, cols, flush=True)


if __name__ == "__main__":
    main()
