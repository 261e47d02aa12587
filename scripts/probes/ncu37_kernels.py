"""Kernels people run, for issue 37's Nsight Compute captures (run under ncu on the GPU machine).

Each case warms up outside any NVTX range (cuBLAS handles, cuDNN plans, torch.compile's Triton
build), then launches once inside an NVTX range named "capture", so that
`ncu --nvtx --nvtx-include "capture/"` profiles only that launch's kernels. Inputs are random
(never zeros: METHOD.md). Usage: python3 ncu37_kernels.py [CASE ...] (default: all); prints the
cases it ran and each one's output shape.
"""
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(0)
dev = "cuda"
bf16 = torch.bfloat16


def gemm_bf16():
    a = torch.randn(4096, 4096, device=dev, dtype=bf16)
    b = torch.randn(4096, 4096, device=dev, dtype=bf16)
    return lambda: a @ b


def gemm_fp32():
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(4096, 4096, device=dev)
    b = torch.randn(4096, 4096, device=dev)
    return lambda: a @ b


def gemv_bf16():
    w = torch.randn(8192, 8192, device=dev, dtype=bf16)
    x = torch.randn(8192, 1, device=dev, dtype=bf16)
    return lambda: w @ x


def sdpa(backend):
    q = torch.randn(4, 32, 4096, 128, device=dev, dtype=bf16)
    k = torch.randn_like(q)
    v = torch.randn_like(q)

    def run():
        with torch.nn.attention.sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v)

    return run


def softmax():
    x = torch.randn(8192, 8192, device=dev, dtype=bf16)
    return lambda: torch.softmax(x, dim=-1)


def layer_norm():
    x = torch.randn(16384, 4096, device=dev, dtype=bf16)
    w = torch.randn(4096, device=dev, dtype=bf16)
    b = torch.randn(4096, device=dev, dtype=bf16)
    return lambda: F.layer_norm(x, (4096,), w, b)


def rms_norm():
    x = torch.randn(16384, 4096, device=dev, dtype=bf16)
    w = torch.randn(4096, device=dev, dtype=bf16)
    return lambda: F.rms_norm(x, (4096,), w)


def sin():
    x = torch.randn(1 << 28, device=dev)
    return lambda: torch.sin(x)


def reduction():
    x = torch.randn(1 << 28, device=dev)
    return lambda: x.sum()


def triton_swiglu():
    x = torch.randn(1 << 26, device=dev, dtype=bf16)
    y = torch.randn(1 << 26, device=dev, dtype=bf16)
    f = torch.compile(lambda a, b: F.silu(a) * b)
    return lambda: f(x, y)


CASES = {
    "gemm_bf16": gemm_bf16,
    "gemm_fp32": gemm_fp32,
    "gemv_bf16": gemv_bf16,
    "sdpa_flash": lambda: sdpa(torch.nn.attention.SDPBackend.FLASH_ATTENTION),
    "sdpa_cudnn": lambda: sdpa(torch.nn.attention.SDPBackend.CUDNN_ATTENTION),
    "softmax": softmax,
    "layer_norm": layer_norm,
    "rms_norm": rms_norm,
    "sin": sin,
    "reduction": reduction,
    "triton_swiglu": triton_swiglu,
}


def main():
    names = sys.argv[1:] or list(CASES)
    for name in names:
        try:
            run = CASES[name]()
            for _ in range(3):
                out = run()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push("capture")
            out = run()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
            print(f"{name} ok {tuple(out.shape)}", flush=True)
        except Exception as e:  # a case that fails is reported and the others still run
            print(f"{name} FAILED {type(e).__name__}: {e}", flush=True)


if __name__ == "__main__":
    main()
