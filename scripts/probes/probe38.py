"""Issue 38's two open mechanisms, measured on the GPU machine (calibration: never a held-out set).

  rows     ATen's row kernels (F.rms_norm, F.layer_norm, torch.softmax) eager, and the same compiled,
           over row lengths 1024 to 32768 at 2^26 bf16 elements: CUDA-event medians. Why eager
           RMSNorm ran 1.5-1.6x and softmax 2.9x the bytes of one read and one write.
  rowsncu  each of those kernels once inside an NVTX range "rows" (compiled outside it), for Nsight
           Compute's sections: DRAM and L2 bytes, the launch, occupancy, warp stalls.
  opsncu   each elementwise op once on torch.randn-like data (the values users' tensors hold),
           Triton kernels at K = 0 (a copy) and K = 1, and the compiled held-out chain
           tanh,sigmoid,silu, inside an NVTX range "opsncu": instructions per element by pipe where
           a warp's lanes take different branches (the opmix calibration chained each op 8 and 16
           times, which drives values into one branch).
  host     the host's cost of one eager op, by op (1 and 2^14 elements), and of replaying a CUDA
           graph of 1 to 64 tiny kernels from Python.

Usage: python3 probe38.py OUT.json SECTION ... (scripts/device-probe38 runs the ncu sections under ncu).
"""
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

dev = "cuda"
bf16 = torch.bfloat16
torch.manual_seed(0)
rows_out = []
COLS = (1024, 2048, 4096, 8192, 16384, 32768)
COMPILED_COLS = (1024, 4096, 16384)
ELEMS = 1 << 26


def timed(fn, warm_s=0.3, reps=7, min_ms=20.0):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < warm_s:
        fn()
        torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    calls = max(1, int(min_ms / max(a.elapsed_time(b), 1e-3)))
    samples = []
    for _ in range(reps):
        a.record()
        for _ in range(calls):
            fn()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b) / 1e3 / calls)
    return statistics.median(samples), min(samples), max(samples)


def row_fn(kind, cols, w):
    if kind == "rmsnorm":
        return lambda t: F.rms_norm(t, (cols,), w, eps=1e-6)
    if kind == "layernorm":
        return lambda t: F.layer_norm(t, (cols,), w, None, eps=1e-5)
    return lambda t: torch.softmax(t, dim=-1)


def rows():
    for cols in COLS:
        r = ELEMS // cols
        x = torch.randn(r, cols, device=dev, dtype=bf16)
        w = torch.randn(cols, device=dev, dtype=bf16)
        for kind in ("rmsnorm", "layernorm", "softmax"):
            f = row_fn(kind, cols, w)
            modes = ("eager", "compiled") if cols in COMPILED_COLS else ("eager",)
            for mode in modes:
                g = f if mode == "eager" else torch.compile(f)
                try:
                    s, lo, hi = timed(lambda: g(x))
                    rows_out.append(dict(case=f"{kind} {r}x{cols} bf16 {mode}", kind=kind, rows=r, cols=cols, mode=mode,
                                         seconds=s, min=lo, max=hi))
                    print(f"rows {kind:9s} {r:6d}x{cols:<6d} {mode:8s} {s * 1e6:10.2f} us  "
                          f"{4 * ELEMS / s / 1e12:6.3f} TB/s of one read and one write", flush=True)
                except Exception as e:
                    print(f"rows {kind} {r}x{cols} {mode} FAILED {type(e).__name__}: {str(e)[:200]}", flush=True)
        del x


def rowsncu():
    launches = []
    for cols in COLS:
        r = ELEMS // cols
        x = torch.randn(r, cols, device=dev, dtype=bf16)
        w = torch.randn(cols, device=dev, dtype=bf16)
        for kind in ("rmsnorm", "layernorm", "softmax"):
            f = row_fn(kind, cols, w)
            f(x)
            launches.append((f"{kind} {r}x{cols} eager", f, x))
            if cols in COMPILED_COLS:
                g = torch.compile(f)
                g(x)
                g(x)
                launches.append((f"{kind} {r}x{cols} compiled", g, x))
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("rows")
    for name, f, x in launches:
        f(x)
        torch.cuda.synchronize()
        print(f"rowsncu {name}", flush=True)
    torch.cuda.nvtx.range_pop()


OPS = ("exp", "log", "sin", "cos", "tanh", "sigmoid", "silu", "gelu", "rsqrt", "pow")
POSITIVE = ("log", "rsqrt", "pow")  # users apply these to positive data


def opsncu():
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice

    @triton.jit
    def one(x_ptr, y_ptr, n, OP: tl.constexpr, K: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x_ptr + offs, mask=mask)
        for _ in tl.static_range(K):
            if OP == "exp":
                v = tl.exp(v)
            elif OP == "log":
                v = tl.log(v)
            elif OP == "sin":
                v = tl.sin(v)
            elif OP == "cos":
                v = tl.cos(v)
            elif OP == "tanh":
                v = libdevice.tanh(v)
            elif OP == "sigmoid":
                v = tl.sigmoid(v)
            elif OP == "silu":
                v = v * tl.sigmoid(v)
            elif OP == "gelu":
                v = 0.5 * v * (1.0 + libdevice.erf(v * 0.7071067811865476))
            elif OP == "rsqrt":
                v = libdevice.rsqrt(v)
            elif OP == "pow":
                v = libdevice.pow(v, 1.1)
        tl.store(y_ptr + offs, v, mask=mask)

    n = 1 << 20
    grid = (triton.cdiv(n, 1024),)
    xs = torch.randn(n, device=dev)
    xp = xs.abs() + 0.01
    y = torch.empty_like(xs)
    chain = lambda t: F.silu(torch.sigmoid(torch.tanh(t)))
    xb = torch.randn(1 << 24, device=dev, dtype=bf16)
    g = torch.compile(chain)
    plan = [("copy", xs, 0)] + [(op, xp if op in POSITIVE else xs, 1) for op in OPS]
    for op, x, k in plan:
        one[grid](x, y, n, OP=op, K=k, BLOCK=1024)
    g(xb)
    g(xb)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("opsncu")
    for op, x, k in plan:
        one[grid](x, y, n, OP=op, K=k, BLOCK=1024)
        torch.cuda.synchronize()
        print(f"opsncu {op} K={k} n={n} randn{'-abs' if op in POSITIVE else ''}", flush=True)
    g(xb)
    torch.cuda.synchronize()
    print(f"opsncu compiled tanh,sigmoid,silu n={1 << 24} bf16 randn", flush=True)
    torch.cuda.nvtx.range_pop()


def host():
    """The host's cost of one eager PyTorch op, by op: each called back to back 1000 times on 1
    element and on 2^14 fp32 elements (both far under a launch's GPU time), CUDA-event medians a call;
    and a CUDA graph of k tiny kernels (k = 1, 4, 16, 64) replayed from a Python loop, a replay."""
    calls = 1000
    for n in (1, 1 << 14):
        x = torch.randn(n, device=dev)
        y = torch.rand(n, device=dev) + 0.5
        x2 = torch.randn(max(1, n // 64), 64, device=dev)
        w64 = torch.randn(64, device=dev)
        wmat = torch.randn(64, 64, device=dev)
        ops = {
            "sin": lambda: torch.sin(x), "exp": lambda: torch.exp(x), "neg": lambda: torch.neg(x),
            "abs": lambda: torch.abs(x), "relu": lambda: F.relu(x), "sigmoid": lambda: torch.sigmoid(x),
            "silu": lambda: F.silu(x), "tanh": lambda: torch.tanh(x), "x + y": lambda: x + y,
            "x * y": lambda: x * y, "x / y": lambda: x / y, "x + 1.0": lambda: x + 1.0,
            "x.add_(1.0)": lambda: x.add_(1.0), "x.mul_(y)": lambda: x.mul_(y),
            "rms_norm": lambda: F.rms_norm(x2, (64,), w64, eps=1e-6), "softmax": lambda: torch.softmax(x2, dim=-1),
            "x2 @ w (cuBLAS)": lambda: x2 @ wmat,
        }
        for name, op in ops.items():
            def loop(op=op):
                for _ in range(calls):
                    op()
            s, lo, hi = timed(loop, warm_s=0.2, reps=5)
            rows_out.append(dict(section="host", op=name, n=n, seconds=s / calls, min=lo / calls, max=hi / calls))
            print(f"host eager {name:18s} n={n:6d} {s / calls * 1e6:8.2f} us a call", flush=True)
    x = torch.randn(1, device=dev)
    for k in (1, 4, 16, 64):
        g = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(k):
                x.add_(1.0)
        torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.graph(g):
            for _ in range(k):
                x.add_(1.0)

        def replays(g=g):
            for _ in range(100):
                g.replay()
        s, lo, hi = timed(replays, warm_s=0.2, reps=5)
        rows_out.append(dict(section="graph", kernels=k, seconds=s / 100, min=lo / 100, max=hi / 100))
        print(f"host graph of {k:3d} tiny kernels replayed from Python: {s / 100 * 1e6:8.2f} us a replay", flush=True)


SECTIONS = {"rows": rows, "rowsncu": rowsncu, "opsncu": opsncu, "host": host}


def main():
    out = sys.argv[1]
    props = torch.cuda.get_device_properties(0)
    info = dict(gpu=props.name, sms=props.multi_processor_count, torch=torch.__version__,
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    print(json.dumps(info), flush=True)
    for name in sys.argv[2:]:
        t0 = time.time()
        SECTIONS[name]()
        print(f"# {name}: {time.time() - t0:.1f} s", flush=True)
    with open(out, "w") as f:
        json.dump(dict(info=info, rows=rows_out), f, indent=1)


if __name__ == "__main__":
    main()
