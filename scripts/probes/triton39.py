"""Real Triton kernels' resources and the driver's occupancy, for issue 39 (GPU machine).

Compiles Triton's tutorial matmul (tutorials/03-matrix-multiplication's kernel, written here from
its description: a grouped-ordering tiled GEMM with tl.dot) and fused softmax (tutorials/02) under
a set of configurations like the tutorials' autotune lists, and for each records what
gpucalc.triton reads (n_regs, metadata.shared, num_warps, the target's arch) and what the driver
says: cuOccupancyMaxActiveBlocksPerMultiprocessor for that function, its block size and its dynamic
shared memory (ctypes on libcuda). Configurations that cannot launch are recorded with the error.

Usage: python3 triton39.py OUT.json
"""
import ctypes
import json
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    group = GM * npn
    first = (pid // group) * GM
    gsize = min(npm - first, GM)
    pm = first + ((pid % group) % gsize)
    pn = (pid % group) // gsize
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        x = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
        y = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(x, y, acc)
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(tl.float16))


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        offs = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * in_stride + offs, mask=offs < n_cols, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(out_ptr + row * out_stride + offs, e / tl.sum(e, axis=0), mask=offs < n_cols)


def occupancy(kernel, threads):
    cuda = ctypes.CDLL("libcuda.so.1")
    n = ctypes.c_int(0)
    rc = cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(n), ctypes.c_void_p(kernel.function),
                                                          ctypes.c_int(threads), ctypes.c_size_t(kernel.metadata.shared))
    return n.value if rc == 0 else f"CUresult {rc}"


def describe(row, kernel, warps):
    """What gpucalc.triton reads of a compiled kernel, and the driver's blocks per SM, into row."""
    torch.cuda.synchronize()
    row.update(n_regs=kernel.n_regs, n_spills=kernel.n_spills, shared=kernel.metadata.shared,
               arch=str(kernel.metadata.target.arch), threads=warps * 32, blocks_per_sm=occupancy(kernel, warps * 32))


def main():
    out = []
    dev = "cuda"
    M = N = K = 2048
    a = torch.randn(M, K, device=dev, dtype=torch.float16)
    b = torch.randn(K, N, device=dev, dtype=torch.float16)
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    configs = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4),
               (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2), (128, 256, 128, 3, 8), (256, 128, 128, 3, 8),
               (256, 64, 128, 4, 4), (64, 256, 128, 4, 4), (128, 128, 128, 4, 4), (128, 128, 64, 4, 4), (64, 128, 64, 4, 4),
               (128, 32, 64, 4, 4), (256, 256, 64, 4, 8), (256, 256, 128, 3, 8)]
    for bm, bn, bk, stages, warps in configs:
        row = dict(kernel="matmul", BM=bm, BN=bn, BK=bk, num_stages=stages, num_warps=warps)
        try:
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
            k = matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                                    c.stride(1), BM=bm, BN=bn, BK=bk, GM=8, num_stages=stages, num_warps=warps)
            describe(row, k, warps)
        except Exception as e:
            row.update(error=f"{type(e).__name__}: {str(e)[:200]}")
        print(row, flush=True)
        out.append(row)
    x = torch.randn(4096, 8192, device=dev)
    y = torch.empty_like(x)
    for block in (1024, 4096, 8192):
        for warps in (1, 2, 4, 8, 16, 32):
            row = dict(kernel="softmax", BLOCK=block, num_stages=1, num_warps=warps)
            try:
                k = softmax_kernel[(132,)](y, x, x.stride(0), y.stride(0), 4096, min(block, 8192), BLOCK=block,
                                           num_warps=warps, num_stages=1)
                describe(row, k, warps)
            except Exception as e:
                row.update(error=f"{type(e).__name__}: {str(e)[:200]}")
            print(row, flush=True)
            out.append(row)
    props = torch.cuda.get_device_properties(0)
    with open(sys.argv[1], "w") as f:
        json.dump(dict(gpu=props.name, triton=triton.__version__, torch=torch.__version__, rows=out), f, indent=1)


if __name__ == "__main__":
    main()
