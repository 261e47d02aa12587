#!/usr/bin/env python3
"""Predicts, for each case of carveout_cases.inc, the shared-memory carveout the driver picks on an
H200 (sm_90), by the rule of docs/device-runs/issue36-carveout/README.md (gpucalc's since run a):
  no preference: the smallest carveout size >= max(FLOOR, n * per_block), where n is the blocks
  the other limits allow (registers, warps, blocks per SM), capped by what 228 KiB holds;
  a preference p%: p * 228 KiB / 100 rounded up to a size, or, where that does not hold one
  block, the block's bytes rounded up to a size.
per_block = dynamic + static + 1 KiB reserved. Registers: light 16, mid 71, heavy 212 (ptxas -v,
nvcc 13.0, sm_90); per warp rounded up to 256, 4 partitions of 16384.
FLOOR: 0 KiB (the rule after run a, gpucalc's model), or 32 for the rule H1 written before run a.
Usage: carveout_predict.py carveout_cases.inc [FLOOR_KIB]"""
import re, sys
KIB = 1024
SIZES = [0, 8, 16, 32, 64, 100, 132, 164, 196, 228]
REGS = {"light": 16, "mid": 71, "heavy": 212}
FLOOR = int(sys.argv[2]) if len(sys.argv) > 2 else 0

def other_limit(kernel, threads):
    warps = (threads + 31) // 32
    per_warp = -(-REGS[kernel] * 32 // 256) * 256
    by_regs = (16384 // per_warp) * 4 // warps
    return min(by_regs, 64 // warps, 32)

def up(kib):
    return next(s for s in SIZES if s >= kib)

def predict(kernel, threads, smem, pref):
    per_block = smem + 1
    if pref >= 0:
        p = up(pref * 228 / 100)
        return p if p >= per_block else up(per_block)
    n = min(other_limit(kernel, threads), 228 // per_block)
    return up(max(FLOOR, n * per_block))

print("case,kernel,threads,smem_kib,carveout,other_limit,config_kib,blocks_by_smem,blocks_per_sm")
for m in re.finditer(r'\{"(\w+)", "(\w+)", (\d+), (\d+), (-?\d+), (\d+)\}', open(sys.argv[1]).read()):
    cid, kernel, threads, smem, pref = m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5))
    cfg = predict(kernel, threads, smem, pref)
    by_smem = cfg // (smem + 1)
    print(f"{cid},{kernel},{threads},{smem},{pref},{other_limit(kernel, threads)},{cfg},{by_smem},"
          f"{min(by_smem, other_limit(kernel, threads))}")
