"""Real kernels, none of them gpucalc's, timed for issue 38's expected times (GPU machine).

Two sets, each case's parameters printed with its time so that gpucalc's prediction comes from
the same numbers: `validation` (the cases the expected-time model is checked on) and `heldout`
(predicted before the run and never used to choose a model). PyTorch 2.x, bf16 unless named,
random inputs, CUDA-event medians after a warm-up (METHOD.md).

Usage: python3 expect38.py OUT.json [SET ...] (SET: validation, heldout, heldout2, heldout3, heldout4, heldout5,
heldout6, softmax7, heldout8, heldout9; default: all).
"""
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

from softmax_widths import SOFTMAX_WIDTHS

dev = "cuda"
bf16 = torch.bfloat16
torch.manual_seed(0)
rows = []


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


def graphed(fn):
    """fn captured in a CUDA graph (after a warm-up on a side stream); returns the replay."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def report(case, group, fn, **params):
    try:
        s, lo, hi = timed(fn)
        rows.append(dict(case=case, set=group, seconds=s, min=lo, max=hi, **params))
        print(f"{group:10s} {case:44s} {s * 1e6:12.2f} us  {params}", flush=True)
    except Exception as e:
        print(f"{group:10s} {case:44s} FAILED {type(e).__name__}: {str(e)[:200]}", flush=True)


# ---- elementwise chains (fusion): eager, compiled, and small N in a graph -------------------
UNARY = {"sin": torch.sin, "cos": torch.cos, "exp": torch.exp, "neg": torch.neg, "tanh": torch.tanh,
         "sigmoid": torch.sigmoid, "silu": F.silu, "relu": F.relu, "abs": torch.abs, "gelu": F.gelu}


def unary_chain(ops):
    def f(x):
        for op in ops:
            x = UNARY[op](x)
        return x
    return f


def binary_chain(ops, ws):
    fns = {"add": torch.add, "mul": torch.mul, "sub": torch.sub, "div": torch.div}

    def f(x):
        for op, w in zip(ops, ws):
            x = fns[op](x, w)
        return x
    return f


def chain_cases(group, kind, ops, n, dtype, modes):
    x = torch.randn(n, device=dev, dtype=dtype)
    if kind == "unary":
        f = unary_chain(ops)
    else:
        ws = [torch.randn(n, device=dev, dtype=dtype) for _ in ops]
        f = binary_chain(ops, ws)
    name = f"{kind} {','.join(ops)} n={n} {str(dtype)[6:]}"
    for mode in modes:
        if mode == "eager":
            report(f"{name} eager", group, lambda: f(x), calc="fusion", chain=kind, ops=ops, n=n, dtype=str(dtype)[6:], mode=mode)
        elif mode == "compiled":
            g = torch.compile(f)
            report(f"{name} compiled", group, lambda: g(x), calc="fusion", chain=kind, ops=ops, n=n, dtype=str(dtype)[6:], mode=mode)
        elif mode == "eager-graph":
            report(f"{name} eager in a graph", group, graphed(lambda: f(x)), calc="fusion", chain=kind, ops=ops, n=n,
                   dtype=str(dtype)[6:], mode=mode)
        elif mode == "compiled-graph":
            g = torch.compile(f, mode="reduce-overhead")
            report(f"{name} compiled in a graph", group, lambda: g(x), calc="fusion", chain=kind, ops=ops, n=n,
                   dtype=str(dtype)[6:], mode=mode)


def norm_cases(group, kind, rows_, cols, modes, bias=False):
    x = torch.randn(rows_, cols, device=dev, dtype=bf16)
    w = torch.randn(cols, device=dev, dtype=bf16)
    b = torch.randn(cols, device=dev, dtype=bf16) if bias else None
    if kind == "rmsnorm":
        f = lambda t: F.rms_norm(t, (cols,), w, eps=1e-6)
    elif kind == "softmax":
        f = lambda t: torch.softmax(t, dim=-1)
    else:
        f = lambda t: F.layer_norm(t, (cols,), w, b, eps=1e-5)
    for mode in modes:
        g = f if mode == "eager" else torch.compile(f)
        report(f"{kind} {rows_}x{cols} bf16 {mode}{' bias' if bias else ''}", group, lambda: g(x), calc="norm", kind=kind,
               rows=rows_, cols=cols, dtype="bf16", mode=mode, bias=bias)


def gemm_case(group, m, n, k, dtype=bf16):
    count = max(2, min(8, int(200e6 // ((m * k + n * k + m * n) * 2)) + 1))
    a = [torch.randn(m, k, device=dev, dtype=dtype) for _ in range(count)]
    b = [torch.randn(n, k, device=dev, dtype=dtype) for _ in range(count)]
    i = {"i": 0}

    def run():
        i["i"] = (i["i"] + 1) % count
        return a[i["i"]] @ b[i["i"]].t()

    report(f"gemm {m}x{n}x{k} {str(dtype)[6:]}", group, run, calc="tiling", m=m, n=n, k=k, dtype=str(dtype)[6:])


def sdpa_case(group, backend, b, h, s, d, causal=False, q_len=None):
    q_len = q_len or s
    q = torch.randn(b, h, q_len, d, device=dev, dtype=bf16)
    k = torch.randn(b, h, s, d, device=dev, dtype=bf16)
    v = torch.randn(b, h, s, d, device=dev, dtype=bf16)
    be = {"cudnn": torch.nn.attention.SDPBackend.CUDNN_ATTENTION,
          "flash": torch.nn.attention.SDPBackend.FLASH_ATTENTION}[backend]

    def run():
        with torch.nn.attention.sdpa_kernel(be):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    report(f"sdpa {backend} b={b} h={h} q={q_len} kv={s} d={d}{' causal' if causal else ''}", group, run,
           calc="attention", impl=backend, batch=b, heads=h, seq=s, q_len=q_len, head_dim=d, causal=causal)


# ---- a Llama-2-7B decode step and prefill, plain PyTorch (HF-style), random weights ----------
class Llama:
    def __init__(self, layers=32, hidden=4096, inter=11008, heads=32, vocab=32000, max_tokens=0, batch=1):
        self.L, self.H, self.I, self.nh, self.hd = layers, hidden, inter, heads, hidden // heads
        r = lambda *shape: torch.randn(*shape, device=dev, dtype=bf16) * 0.02
        self.w = [dict(q=r(hidden, hidden), k=r(hidden, hidden), v=r(hidden, hidden), o=r(hidden, hidden),
                       g=r(inter, hidden), u=r(inter, hidden), d=r(hidden, inter),
                       n1=torch.ones(hidden, device=dev, dtype=bf16), n2=torch.ones(hidden, device=dev, dtype=bf16))
                  for _ in range(layers)]
        self.emb = r(vocab, hidden)
        self.head = r(vocab, hidden)
        self.nf = torch.ones(hidden, device=dev, dtype=bf16)
        if max_tokens:
            self.kc = [torch.randn(batch, heads, max_tokens, self.hd, device=dev, dtype=bf16) for _ in range(layers)]
            self.vc = [torch.randn(batch, heads, max_tokens, self.hd, device=dev, dtype=bf16) for _ in range(layers)]

    def rotary(self, pos):
        # cos and sin of (position x inverse frequencies), once a forward, as HF's LlamaRotaryEmbedding
        half = self.hd // 2
        inv = 1.0 / (10000 ** (torch.arange(0, half, device=dev, dtype=torch.float32) / half))
        ang = pos[:, None].float() * inv[None, :]
        return torch.cat([ang.cos(), ang.cos()], -1).to(bf16), torch.cat([ang.sin(), ang.sin()], -1).to(bf16)

    def rope(self, t, cs):
        # rotate_half form, as HF's apply_rotary_pos_emb
        half = self.hd // 2
        t1, t2 = t[..., :half], t[..., half:]
        return t * cs[0] + torch.cat([-t2, t1], -1) * cs[1]

    def layer(self, x, i, pos, ctx, causal):
        w = self.w[i]
        b, s, _ = x.shape
        h = F.rms_norm(x, (self.H,), w["n1"], eps=1e-6)
        q = (h @ w["q"].t()).view(b, s, self.nh, self.hd).transpose(1, 2)
        k = (h @ w["k"].t()).view(b, s, self.nh, self.hd).transpose(1, 2)
        v = (h @ w["v"].t()).view(b, s, self.nh, self.hd).transpose(1, 2)
        q, k = self.rope(q, pos), self.rope(k, pos)  # pos: the (cos, sin) pair
        if ctx is not None:  # decode: write the new K, V at ctx, attend to ctx + 1 tokens
            self.kc[i][:, :, ctx:ctx + 1] = k
            self.vc[i][:, :, ctx:ctx + 1] = v
            k, v = self.kc[i][:, :, :ctx + 1], self.vc[i][:, :, :ctx + 1]
        a = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        x = x + a.transpose(1, 2).reshape(b, s, self.H) @ w["o"].t()
        h = F.rms_norm(x, (self.H,), w["n2"], eps=1e-6)
        return x + (F.silu(h @ w["g"].t()) * (h @ w["u"].t())) @ w["d"].t()

    def forward(self, tokens, pos, ctx, causal):
        x = self.emb[tokens]
        cs = self.rotary(pos)
        for i in range(self.L):
            x = self.layer(x, i, cs, ctx, causal)
        return F.rms_norm(x[:, -1:], (self.H,), self.nf, eps=1e-6) @ self.head.t()


def decode_case(group, batch, context, model_cache):
    m = model_cache.get(("decode", batch, context))
    if m is None:
        model_cache.clear()
        torch.cuda.empty_cache()
        m = Llama(max_tokens=context + 1, batch=batch)
    tokens = torch.randint(0, 32000, (batch, 1), device=dev)
    pos = torch.tensor([context], device=dev)
    step = graphed(lambda: m.forward(tokens, pos, context, False))
    report(f"llama-2-7b decode b={batch} ctx={context} graph", group, step, calc="decode", model="llama-2-7b",
           batch_size=batch, context=context, launch="graph")
    del m
    model_cache.clear()
    torch.cuda.empty_cache()


def prefill_case(group, batch, tokens_):
    m = Llama()
    tokens = torch.randint(0, 32000, (batch, tokens_), device=dev)
    pos = torch.arange(tokens_, device=dev)
    report(f"llama-2-7b prefill b={batch} tokens={tokens_} eager", group, lambda: m.forward(tokens, pos, None, True),
           calc="decode", model="llama-2-7b", batch_size=batch, prefill=tokens_, launch="eager")
    del m
    torch.cuda.empty_cache()


def validation():
    g = "validation"
    chain_cases(g, "unary", ["sin", "cos", "exp", "neg"], 1 << 26, torch.float32, ["eager", "compiled"])
    chain_cases(g, "binary", ["add", "mul", "sub", "mul"], 1 << 26, torch.float32, ["eager", "compiled"])
    chain_cases(g, "unary", ["sin", "cos", "exp", "neg"], 1 << 14, torch.float32, ["eager", "eager-graph", "compiled-graph"])
    norm_cases(g, "rmsnorm", 16384, 4096, ["eager", "compiled"])
    norm_cases(g, "softmax", 8192, 8192, ["eager"])
    for m, n, k in ((4096, 4096, 4096), (8192, 8192, 8192), (2048, 11008, 4096), (1024, 1024, 1024), (1, 11008, 4096), (16, 4096, 4096)):
        gemm_case(g, m, n, k)
    sdpa_case(g, "cudnn", 8, 32, 2048, 128)
    sdpa_case(g, "flash", 8, 32, 2048, 128)
    sdpa_case(g, "cudnn", 16, 16, 1024, 64)
    sdpa_case(g, "flash", 32, 32, 4096, 128, q_len=1)
    cache = {}
    decode_case(g, 1, 4096, cache)
    decode_case(g, 32, 2048, cache)
    prefill_case(g, 1, 2048)


def heldout():
    g = "heldout"
    chain_cases(g, "unary", ["tanh", "sigmoid", "silu"], 1 << 27, bf16, ["eager", "compiled"])
    chain_cases(g, "binary", ["add", "div"], 1 << 25, torch.float32, ["eager", "compiled"])
    chain_cases(g, "unary", ["relu", "abs", "neg", "exp", "sin"], 1 << 12, torch.float32, ["eager-graph"])
    norm_cases(g, "rmsnorm", 4096, 8192, ["eager", "compiled"])
    norm_cases(g, "layernorm", 8192, 4096, ["eager"])
    for m, n, k in ((3072, 3072, 3072), (1536, 14336, 4096), (8, 14336, 4096), (64, 8192, 8192)):
        gemm_case(g, m, n, k)
    sdpa_case(g, "cudnn", 2, 16, 4096, 256)
    sdpa_case(g, "flash", 4, 16, 8192, 64)
    sdpa_case(g, "cudnn", 4, 32, 4096, 128, causal=True)
    cache = {}
    decode_case(g, 8, 8192, cache)
    decode_case(g, 64, 1024, cache)
    prefill_case(g, 4, 1024)


def heldout2():
    """Predicted before its run, after probe38 chose the row kernels' re-read and tanh's two-sided
    count (docs/device-runs/issue38-rows/): new shapes on both sides of the L2 and across it."""
    g = "heldout2"
    for kind, rows_, cols in (("rmsnorm", 2048, 12288), ("layernorm", 32768, 2560), ("rmsnorm", 8192, 6144),
                              ("layernorm", 4096, 12288), ("rmsnorm", 16384, 2048)):
        norm_cases(g, kind, rows_, cols, ["eager"])
    chain_cases(g, "unary", ["sin", "tanh"], 1 << 26, bf16, ["compiled"])
    chain_cases(g, "unary", ["tanh", "tanh", "tanh", "tanh"], 1 << 25, torch.float32, ["compiled"])
    chain_cases(g, "unary", ["tanh", "gelu"], 1 << 26, bf16, ["compiled"])


def heldout3():
    """Predicted before its run, after held-out set 2 missed and row_kernel_bandwidth was added
    (docs/device-runs/issue38-rows/run-3/predictions.md): new shapes, none run before."""
    g = "heldout3"
    for kind, rows_, cols in (("rmsnorm", 1024, 24576), ("layernorm", 12288, 5120), ("rmsnorm", 65536, 1536),
                              ("layernorm", 2048, 20480), ("rmsnorm", 6144, 10240), ("layernorm", 16384, 3072)):
        norm_cases(g, kind, rows_, cols, ["eager"])
    chain_cases(g, "unary", ["tanh", "sin", "tanh"], 1 << 26, bf16, ["compiled"])


def heldout4():
    """Predicted before its run (docs/device-runs/issue38-expect/run-4/predictions.md), on main as it
    stood after held-out set 3: new shapes of every kind the issue names, none run before, chosen
    before any of them ran, kept whether the model covers them or not (softmax, compiled norms)."""
    g = "heldout4"
    chain_cases(g, "unary", ["cos", "sigmoid", "relu"], 1 << 27, bf16, ["eager", "compiled"])
    chain_cases(g, "binary", ["mul", "add", "mul"], 1 << 25, bf16, ["eager", "compiled"])
    chain_cases(g, "unary", ["silu", "gelu"], 1 << 16, torch.float32, ["eager-graph", "compiled-graph"])
    norm_cases(g, "rmsnorm", 8192, 5120, ["eager"])
    norm_cases(g, "layernorm", 4096, 8192, ["eager"])
    norm_cases(g, "rmsnorm", 32768, 4096, ["compiled"])
    norm_cases(g, "softmax", 4096, 4096, ["eager"])
    for m, n, k in ((6144, 6144, 6144), (4096, 4096, 14336), (2048, 2048, 8192), (32, 11008, 4096), (4, 4096, 14336),
                    (12288, 4096, 1024)):
        gemm_case(g, m, n, k)
    sdpa_case(g, "cudnn", 1, 32, 8192, 128, causal=True)
    sdpa_case(g, "flash", 16, 16, 2048, 64)
    sdpa_case(g, "cudnn", 16, 32, 8192, 128, q_len=1)
    cache = {}
    decode_case(g, 16, 4096, cache)
    decode_case(g, 128, 512, cache)
    prefill_case(g, 2, 2048)


def heldout5():
    """Predicted before its run (docs/device-runs/issue38-expect/run-5/predictions.md), after ATen's norm
    kernel got its counted instructions and a graph replay its host floor and start: new shapes, none
    run before, LayerNorm with a bias as nn.LayerNorm has."""
    g = "heldout5"
    norm_cases(g, "layernorm", 24576, 2048, ["eager"], bias=True)
    norm_cases(g, "layernorm", 49152, 1536, ["eager"], bias=True)
    norm_cases(g, "layernorm", 3072, 16384, ["eager"], bias=True)
    norm_cases(g, "layernorm", 40960, 1024, ["eager"])
    norm_cases(g, "rmsnorm", 12288, 3072, ["eager"])
    chain_cases(g, "unary", ["exp", "sin"], 1 << 15, torch.float32, ["eager-graph"])
    chain_cases(g, "binary", ["add", "mul", "add"], 1 << 13, torch.float32, ["eager-graph"])
    chain_cases(g, "unary", ["tanh"], 1 << 20, bf16, ["eager-graph"])
    chain_cases(g, "unary", ["silu", "neg", "exp", "cos", "abs", "relu"], 1 << 12, torch.float32, ["eager-graph"])
    for m, n, k in ((3584, 3584, 3584), (8192, 1024, 8192), (128, 14336, 4096)):
        gemm_case(g, m, n, k)
    sdpa_case(g, "cudnn", 8, 16, 4096, 64)
    sdpa_case(g, "flash", 2, 32, 8192, 128, causal=True)
    decode_case(g, 4, 16384, {})


def heldout6():
    """Predicted before its run (docs/device-runs/issue38-expect/run-7/predictions.md), after the H200's
    profile took its own calibration and each streaming or row kernel its first loads' latency: new
    shapes, none run before, on either GPU."""
    g = "heldout6"
    norm_cases(g, "rmsnorm", 24576, 2560, ["eager"])
    norm_cases(g, "rmsnorm", 6144, 8192, ["eager"])
    norm_cases(g, "layernorm", 16384, 2560, ["eager"], bias=True)
    norm_cases(g, "layernorm", 98304, 768, ["eager"], bias=True)
    norm_cases(g, "softmax", 16384, 2048, ["eager"])
    chain_cases(g, "unary", ["gelu", "tanh"], 1 << 25, bf16, ["eager", "compiled"])
    chain_cases(g, "binary", ["sub", "mul"], 1 << 26, torch.float32, ["eager", "compiled"])
    chain_cases(g, "unary", ["exp", "neg", "sigmoid"], 1 << 13, torch.float32, ["eager-graph"])
    chain_cases(g, "binary", ["mul", "add", "sub", "div"], 1 << 16, torch.float32, ["eager-graph"])
    chain_cases(g, "unary", ["sin"], 1 << 18, bf16, ["eager-graph"])
    chain_cases(g, "unary", ["relu", "exp", "tanh"], 1 << 14, torch.float32, ["eager"])
    for m, n, k in ((5120, 5120, 5120), (1024, 28672, 4096), (2, 5120, 13824), (256, 4096, 11008), (16384, 4096, 512)):
        gemm_case(g, m, n, k)
    sdpa_case(g, "cudnn", 4, 40, 2048, 128, causal=True)
    sdpa_case(g, "flash", 16, 32, 1024, 64)
    sdpa_case(g, "cudnn", 64, 32, 2048, 128, q_len=1)
    sdpa_case(g, "flash", 16, 32, 16384, 128, q_len=1)
    decode_case(g, 2, 8192, {})
    decode_case(g, 24, 3072, {})
    prefill_case(g, 8, 512)





def softmax7():
    """Predicted before its run (docs/device-runs/issue38-expect/run-7/predictions-softmax7.md), after
    softmax's instructions were counted: torch.softmax over about 2^26 bf16 elements at widths no
    GPU has run, rows a multiple of 8."""
    for cols in SOFTMAX_WIDTHS:
        norm_cases("softmax7", "softmax", max(8, (1 << 26) // cols // 8 * 8), cols, ["eager"])


def heldout8():
    """Predicted before its run (docs/device-runs/issue38-expect/run-8/predictions.md), after the
    warps' issue share, cunn_SoftMaxForward's three reads and the H100's median graph_replay_host:
    new shapes, none run before, on either GPU."""
    g = "heldout8"
    for rows_, cols in ((24576, 1792), (65536, 640), (8192, 6144), (12288, 5120), (4096, 8000), (4096, 16000),
                        (1024, 65536), (768, 100000), (2048, 40000), (256, 32768)):
        norm_cases(g, "softmax", rows_, cols, ["eager"])
    norm_cases(g, "rmsnorm", 32768, 2048, ["eager"])
    norm_cases(g, "layernorm", 8192, 5120, ["eager"], bias=True)
    chain_cases(g, "unary", ["relu"], 1 << 12, torch.float32, ["eager-graph"])
    chain_cases(g, "unary", ["exp"], 1 << 16, bf16, ["eager-graph"])
    chain_cases(g, "binary", ["add", "mul"], 1 << 12, torch.float32, ["eager-graph"])
    chain_cases(g, "unary", ["silu", "exp"], 1 << 26, bf16, ["eager", "compiled"])
    for m, n, k in ((2048, 11008, 4096), (8192, 8192, 1024), (64, 8192, 8192), (3072, 3072, 12288)):
        gemm_case(g, m, n, k)
    sdpa_case(g, "cudnn", 8, 32, 1024, 128)
    sdpa_case(g, "flash", 4, 16, 4096, 128, causal=True)
    sdpa_case(g, "cudnn", 16, 32, 8192, 128, q_len=1)
    decode_case(g, 8, 4096, {})


def heldout9():
    """Predicted before its run (docs/device-runs/issue38-expect/run-9/predictions.md), after
    expected_gemm took cuBLAS's 192x192 and 320x128 tiles: new shapes, none run before, on either GPU."""
    g = "heldout9"
    for m, n, k in ((3072, 6144, 4096), (4608, 4608, 4608), (9216, 4096, 2048), (6144, 3072, 8192), (2304, 2304, 9216),
                    (7168, 7168, 2048)):
        gemm_case(g, m, n, k)
    for rows_, cols in ((32768, 1280), (6144, 7500), (1536, 60000), (12000, 3000)):
        norm_cases(g, "softmax", rows_, cols, ["eager"])
    norm_cases(g, "rmsnorm", 12288, 5120, ["eager"])
    norm_cases(g, "layernorm", 49152, 1536, ["eager"], bias=True)
    chain_cases(g, "binary", ["add", "mul"], 1 << 25, bf16, ["eager", "compiled"])
    sdpa_case(g, "cudnn", 2, 32, 4096, 128, causal=True)
    sdpa_case(g, "flash", 8, 16, 2048, 64)
    decode_case(g, 16, 2048, {})


SETS = {"validation": validation, "heldout": heldout, "heldout2": heldout2, "heldout3": heldout3, "heldout4": heldout4,
        "heldout5": heldout5, "heldout6": heldout6, "softmax7": softmax7, "heldout8": heldout8, "heldout9": heldout9}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(SETS)
    props = torch.cuda.get_device_properties(0)
    info = dict(gpu=props.name, sms=props.multi_processor_count, torch=torch.__version__, cudnn=torch.backends.cudnn.version(),
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    print(json.dumps(info), flush=True)
    for name in names:
        t0 = time.time()
        SETS[name]()
        print(f"# {name}: {time.time() - t0:.1f} s", flush=True)
        with open(out, "w") as f:
            json.dump(dict(info=info, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
