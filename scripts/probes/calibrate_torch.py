"""Achievable ceilings of library kernels, for issue 38 (run with PyTorch on the GPU machine).

What only frameworks expose, measured the way users run it: random inputs (never zeros or ones:
METHOD.md), after a warm-up long enough to reach sustained clocks and power, each figure the
median of repeated CUDA-event timings over rotating buffers (no case fits in the 50 MB L2 unless
it says so). Nothing here is fitted to a gpucalc case: each figure is one physical rate.

  gemm      cuBLAS through torch.matmul: bf16 throughput against shape (square 1024..16384; skinny
            M = 1..512 against 8192 x 8192 weights, the GEMV regime of decode, as weight bytes/s);
            fp16, tf32 and fp32 at 8192^3. SM clock (nvidia-smi) sampled after each sustained run.
  stream    elementwise kernels (copy, add, mul) on 2^28 fp32 and bf16: bytes read + written / s.
  rows      ATen's norm kernels (F.rms_norm, F.layer_norm) at 16,384 and 32,768 columns of 2^26
            bf16, where the row is read twice from HBM: row_kernel_bandwidth, the median.
  ops       the cost of one elementwise op per element: a Triton kernel applies the op K times to
            each element (K = 1, 8, 16); (t16 - t8) / 8 / N is the op's time per element once the
            kernel is compute-bound; t1 is the streaming time. Triton's tl/libdevice calls are the
            ones torch.compile emits for these ops. Eager torch.sin/exp too (one op per kernel).
  attention SDPA forward, bf16, B=4 H=32 S=4096, head dims 64, 128, 256, cuDNN and flash backends
            (4 B H S^2 d FLOPs, non-causal), and one decode-shaped case (one query, 8192 keys).
  launch    the fixed cost of a kernel: eager PyTorch ops on a 1-element tensor back to back (per
            op, host and launch), the same ops replayed from a CUDA graph (per kernel), and a raw
            launch of an empty Triton kernel is not separated (gpucalc measure calibrate has it).

  opmix     (run under ncu by scripts/device-calibrate) each op's chain at K = 8 and 16 once, for the
            instructions an op issues per element by pipe: physical counts that gpucalc's pipe model
            turns into time on any GPU of the architecture.

Usage: python3 calibrate_torch.py OUT.json [SECTION ...] (default all but opmix). Prints a table last.
"""
import json
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

dev = "cuda"
bf16 = torch.bfloat16
torch.manual_seed(0)
results = []


def sm_clock_mhz():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        clk, pw = out.split(",")
        return float(clk), float(pw)
    except Exception:
        return None, None


def timed(fn, warm_s=0.2, reps=7, min_ms=20.0):
    """Median seconds per call of fn: warm up for warm_s of device time, then reps timings of a
    batch of calls sized to take at least min_ms."""
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    n_warm = 0
    while time.perf_counter() - t0 < warm_s:
        fn()
        n_warm += 1
        if n_warm % 8 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    one_ms = max(start.elapsed_time(end), 1e-3)
    calls = max(1, int(min_ms / one_ms))
    samples = []
    for _ in range(reps):
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3 / calls)
    return statistics.median(samples), min(samples), max(samples)


def record(section, name, seconds, spread, **figures):
    clk, pw = sm_clock_mhz()
    row = dict(section=section, name=name, seconds=seconds, min=spread[0], max=spread[1],
               sm_clock_mhz=clk, power_w=pw, **figures)
    results.append(row)
    shown = ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items())
    print(f"{section:9s} {name:34s} {seconds * 1e6:11.2f} us  {shown}", flush=True)


def rotating(make, count):
    bufs = [make() for _ in range(count)]
    state = {"i": 0}

    def nxt():
        state["i"] = (state["i"] + 1) % count
        return bufs[state["i"]]

    return nxt


def gemm():
    # sustained: two seconds of 8192^3 bf16 first (clocks and power settle)
    a = torch.randn(8192, 8192, device=dev, dtype=bf16)
    b = torch.randn(8192, 8192, device=dev, dtype=bf16)
    timed(lambda: a @ b, warm_s=2.0, reps=1)
    for n in (1024, 2048, 4096, 8192, 16384):
        count = max(1, min(8, int(200e6 // (3 * n * n * 2))))  # past the L2 where the shape allows
        mats = rotating(lambda: (torch.randn(n, n, device=dev, dtype=bf16), torch.randn(n, n, device=dev, dtype=bf16)),
                        count)

        def run():
            x, y = mats()
            return x @ y

        s, lo, hi = timed(run, warm_s=0.5)
        record("gemm", f"bf16 {n}^3", s, (lo, hi), tflops=2 * n**3 / s / 1e12, m=n, n=n, k=n, dtype="bf16")
    k = n = 8192
    ws = rotating(lambda: torch.randn(n, k, device=dev, dtype=bf16), 4)  # 4 x 134 MB: past the L2
    for m in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
        x = torch.randn(m, k, device=dev, dtype=bf16)

        def run():
            return x @ ws().t()

        s, lo, hi = timed(run, warm_s=0.3)
        record("gemm", f"bf16 skinny m={m} 8192x8192", s, (lo, hi), tflops=2 * m * n * k / s / 1e12,
               weight_gbs=n * k * 2 / s / 1e9, m=m, n=n, k=k, dtype="bf16")
    for name, dt, tf32 in (("fp16", torch.float16, False), ("tf32", torch.float32, True), ("fp32", torch.float32, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(8192, 8192, device=dev, dtype=dt)
        b = torch.randn(8192, 8192, device=dev, dtype=dt)
        s, lo, hi = timed(lambda: a @ b, warm_s=1.0, reps=5)
        record("gemm", f"{name} 8192^3", s, (lo, hi), tflops=2 * 8192**3 / s / 1e12, m=8192, n=8192, k=8192, dtype=name)
    torch.backends.cuda.matmul.allow_tf32 = False


def stream():
    n = 1 << 28
    for dt, size in ((torch.float32, 4), (bf16, 2)):
        x, y, z = (torch.randn(n, device=dev, dtype=dt) for _ in range(3))
        s, lo, hi = timed(lambda: z.copy_(x), warm_s=0.5)
        record("stream", f"copy {str(dt)[6:]}", s, (lo, hi), gbs=2 * n * size / s / 1e9, elements=n)
        s, lo, hi = timed(lambda: torch.add(x, y, out=z), warm_s=0.5)
        record("stream", f"add {str(dt)[6:]}", s, (lo, hi), gbs=3 * n * size / s / 1e9, elements=n)
        s, lo, hi = timed(lambda: torch.mul(x, 1.5, out=z), warm_s=0.5)
        record("stream", f"mul scalar {str(dt)[6:]}", s, (lo, hi), gbs=2 * n * size / s / 1e9, elements=n)
        del x, y, z


def rows():
    """row_kernel_bandwidth: ATen's norm kernels (F.rms_norm, F.layer_norm: a block a row, the row
    read twice) over 2^26 bf16 at 16,384 and 32,768 columns, where the rows in flight outgrow the L2
    on an H100 or H200 and both reads cross HBM: (2 reads + 1 write of the rows, the weights) / time.
    The profile takes the median of the four (docs/fusion.md)."""
    n = 1 << 26
    for cols in (16384, 32768):
        r = n // cols
        x = torch.randn(r, cols, device=dev, dtype=bf16)
        w = torch.randn(cols, device=dev, dtype=bf16)
        for kind, f in (("rmsnorm", lambda: F.rms_norm(x, (cols,), w, eps=1e-6)),
                        ("layernorm", lambda: F.layer_norm(x, (cols,), w, None, eps=1e-5))):
            s, lo, hi = timed(f, warm_s=0.3)
            moved = (3 * n + cols + (cols + 2 * r if kind == "layernorm" else 0)) * 2  # as gpucalc counts them
            record("rows", f"{kind} {r}x{cols} eager", s, (lo, hi), gbs=moved / s / 1e9, rows=r, cols=cols)
        del x, w


_CHAIN = {}


def chain_kernel():
    """The Triton kernel that applies one elementwise op K times to each element (built once)."""
    if "k" in _CHAIN:
        return _CHAIN["k"]
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice

    @triton.jit
    def chain(x_ptr, y_ptr, n, OP: tl.constexpr, K: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x_ptr + offs, mask=mask)
        for _ in tl.static_range(K):
            if OP == "add":
                v = v + 0.5
            elif OP == "mul":
                v = v * 0.999
            elif OP == "div":
                v = v / 1.001
            elif OP == "sin":
                v = tl.sin(v)
            elif OP == "cos":
                v = tl.cos(v)
            elif OP == "exp":
                v = tl.exp(v)
            elif OP == "log":
                v = tl.log(v)
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

    _CHAIN["k"] = chain
    return chain


OPS = ("add", "mul", "div", "sin", "cos", "exp", "log", "tanh", "sigmoid", "silu", "gelu", "rsqrt", "pow")


def ops():
    import triton
    chain = chain_kernel()
    n = 1 << 26
    x = torch.rand(n, device=dev) + 0.5  # (0.5, 1.5): every op's argument stays finite for a few steps
    y = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    for op in OPS:
        t = {}
        for k in (1, 8, 16):
            s, lo, hi = timed(lambda: chain[grid](x, y, n, OP=op, K=k, BLOCK=1024), warm_s=0.2)
            t[k] = (s, lo, hi)
        per = (t[16][0] - t[8][0]) / 8 / n
        record("ops", f"{op} x16 fp32 (triton)", t[16][0], t[16][1:], op=op, k1_s=t[1][0], k8_s=t[8][0],
               op_ns_per_element=per * 1e9, op_gelems=1 / per / 1e9 if per > 0 else None, elements=n)
    n = 1 << 28
    x = torch.randn(n, device=dev)
    y = torch.empty_like(x)
    for name, fn in (("sin", torch.sin), ("exp", torch.exp), ("silu", F.silu), ("tanh", torch.tanh), ("gelu", F.gelu)):
        s, lo, hi = timed(lambda: fn(x, out=y) if name not in ("silu", "gelu") else y.copy_(fn(x)), warm_s=0.3)
        record("ops", f"eager {name} fp32 2^28", s, (lo, hi), gbs=2 * n * 4 / s / 1e9 * (1 if name not in ("silu", "gelu") else 2),
               elements=n)


def sdpa_both(label, q, k, v, warm_s, figures):
    """SDPA forward on q, k, v with the cuDNN and the flash backend, each recorded under
    "attention NAME LABEL" with the figures figures(seconds) gives (a backend that refuses is
    reported and skipped)."""
    backends = torch.nn.attention.SDPBackend
    for name, be in (("cudnn", backends.CUDNN_ATTENTION), ("flash", backends.FLASH_ATTENTION)):
        def run():
            with torch.nn.attention.sdpa_kernel(be):
                return F.scaled_dot_product_attention(q, k, v)
        try:
            s, lo, hi = timed(run, warm_s=warm_s)
            record("attention", f"{name} {label}", s, (lo, hi), backend=name, **figures(s))
        except Exception as e:
            print(f"attention {name} {label} FAILED {type(e).__name__}: {str(e)[:200]}", flush=True)


def attention():
    B, H, S = 4, 32, 4096
    for d in (64, 128, 256):
        q, k, v = (torch.randn(B, H, S, d, device=dev, dtype=bf16) for _ in range(3))
        sdpa_both(f"d={d} B4 H32 S4096", q, k, v, 0.5,
                  lambda s, d=d: dict(tflops=4 * B * H * S * S * d / s / 1e12, head_dim=d, batch=B, heads=H, seq=S))
        del q, k, v
    # decode-shaped: one query per sequence, 8192 keys, batch 32, 32 heads, d 128
    q = torch.randn(32, 32, 1, 128, device=dev, dtype=bf16)
    k, v = (torch.randn(32, 32, 8192, 128, device=dev, dtype=bf16) for _ in range(2))
    sdpa_both("decode B32 H32 KV8192 d128", q, k, v, 0.3,
              lambda s: dict(kv_gbs=2 * k.numel() * 2 / s / 1e9, head_dim=128, batch=32, heads=32, seq=8192))


def launch():
    x = torch.randn(1, device=dev)
    ops_per = 1000

    def eager():
        for _ in range(ops_per):
            x.add_(1.0)

    s, lo, hi = timed(eager, warm_s=0.3, reps=5)
    record("launch", "eager add_ on 1 element", s / ops_per, (lo / ops_per, hi / ops_per), per="op")
    g = torch.cuda.CUDAGraph()
    s_ = torch.cuda.Stream()
    s_.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s_):
        eager()
    torch.cuda.current_stream().wait_stream(s_)
    with torch.cuda.graph(g):
        for _ in range(ops_per):
            x.add_(1.0)
    s, lo, hi = timed(g.replay, warm_s=0.3, reps=5)
    record("launch", "graph add_ on 1 element", s / ops_per, (lo / ops_per, hi / ops_per), per="kernel")


def opmix():
    """Each op's chain once at K = 8 and K = 16 inside an NVTX range "opmix", for Nsight Compute's
    instruction counts by pipe (scripts/device-calibrate runs this section under ncu): (K16 - K8) / 8
    over N / 32 warps is one op's warp instructions per 32 elements. Launch order: OPS x (8, 16)."""
    import triton
    chain = chain_kernel()
    n = 1 << 20
    x = torch.rand(n, device=dev) + 0.5
    y = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    for op in OPS:
        for k in (8, 16):
            chain[grid](x, y, n, OP=op, K=k, BLOCK=1024)  # compiled outside the range
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("opmix")
    for op in OPS:
        for k in (8, 16):
            chain[grid](x, y, n, OP=op, K=k, BLOCK=1024)
            print(f"opmix {op} K={k} n={n}", flush=True)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


SECTIONS = {"gemm": gemm, "stream": stream, "rows": rows, "ops": ops, "attention": attention, "launch": launch,
            "opmix": opmix}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or [k for k in SECTIONS if k != "opmix"]
    props = torch.cuda.get_device_properties(0)
    info = dict(gpu=props.name, sms=props.multi_processor_count, torch=torch.__version__,
                cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    print(json.dumps(info), flush=True)
    for name in names:
        t0 = time.time()
        try:
            SECTIONS[name]()
        except Exception as e:
            print(f"{name} FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
        print(f"# {name}: {time.time() - t0:.1f} s", flush=True)
        with open(out, "w") as f:
            json.dump(dict(info=info, results=results), f, indent=1)


if __name__ == "__main__":
    main()
