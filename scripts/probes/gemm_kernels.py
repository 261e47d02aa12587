#!/usr/bin/env python3
"""torch.matmul on bf16 randn at each shape, one call inside an NVTX range "mm" after a warm-up call,
for Nsight Compute's view of the kernel cuBLAS picks (its name, grid, block, duration) against
gpucalc's tile and waves (GPU machine):

  ncu --clock-control none --nvtx --nvtx-include "mm/" --csv --print-units base \\
      --metrics launch__grid_size,launch__block_size,launch__cluster_dim_x,launch__cluster_dim_y,gpu__time_duration.sum,sm__cycles_active.avg \\
      --log-file gemm-kernels.csv python3 gemm_kernels.py [MxNxK ...]

Default: the GEMM shapes of issue 38's sets (docs/device-runs/issue38-expect). Prints each shape in order.
"""
import sys

import torch

SHAPES = ("3072x3072x3072", "3072x3072x12288", "5120x5120x5120", "6144x6144x6144", "8192x8192x8192", "4096x4096x4096",
          "1536x14336x4096", "2048x11008x4096", "16384x4096x512", "12288x4096x1024", "8192x1024x8192", "1024x28672x4096",
          "256x4096x11008", "3584x3584x3584", "2048x2048x8192", "1024x1024x1024", "8192x8192x1024", "4096x4096x14336")


def main():
    shapes = [tuple(int(v) for v in s.split("x")) for s in (sys.argv[1:] or SHAPES)[:64]]
    torch.manual_seed(0)
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        a @ b  # warm-up: the heuristic's choice and module loading outside the range
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("mm")
        a @ b
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        print(m, n, k, flush=True)


if __name__ == "__main__":
    main()
