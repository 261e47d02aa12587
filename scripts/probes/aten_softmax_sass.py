#!/usr/bin/env python3
"""Warp instructions of PyTorch 2.11's forward softmax kernels for bf16 rows (torch.softmax(x, -1),
x bf16 rows x cols, contiguous, output bf16), sm_90, counted from the SASS along the path finite
data takes (docs/device-runs/issue38-rows/aten-softmax-sass.md). Dispatch (host_softmax, SoftMax.cu):

  cols <= 2048                     softmax_warp_forward<BFloat16, BFloat16, float, L, 0, 0>,
                                   L = ceil(log2(cols)); one warp a row (L >= 8), 4 rows a 128-thread block
  2048 < cols <= 9216              cunn_SoftMaxForwardReg<BFloat16, float, BFloat16, Epilogue, long, R>,
                                   R = ceil(cols / 1024); 1024 threads a row
  9216 < cols < 24512, cols % 8 == 0, input and output 16-byte aligned
                                   cunn_SoftMaxForwardSmem<8, ...>; 1024 threads a row
  otherwise                        cunn_SoftMaxForward<8, ...>; 1024 threads a row

How it counts: a small control-flow walker, not hand-typed ranges. It runs one warp through the
SASS from address 0 and issues every instruction it passes (predicated-off ones, BSSY/BSYNC, BRA,
EXIT included: Nsight Compute's smsp__inst_executed counts them). Each conditional branch and
predicated EXIT is decided from an explicit per-kernel table of rules (the *_rules functions; the
rules depend on cols and on the warp's 32 thread indices). A branch or EXIT that no rule covers
stops the walk with an error, and so does entering a CALL (the slow IEEE division). Three
patterns are decided without the table, and each is checked where it is applied:
  * the FCHK fast path. This is a predicated BRA whose fall-through reaches the CALL before its
    target, and it is taken.
  * softmax_warp's `sum == 0 -> NaN` branch. Its target loads the NaN, and it is not taken.
  * BRA.DIV. The warp is converged at it, so it is not taken.
When a branch splits a warp's lanes, the reconverging BSYNC issues once per group, i.e. twice. That
happens at an if-block some lanes skip, or when lanes of one warp make different trip counts
through a loop. The walker adds that one instruction; aten-norm-sass.md found the same thing, and
ncu confirmed it there.

Pipes (an extra check): ncu's smsp__inst_executed_pipe_{fma,alu,xu,lsu} for the six measured
launches are reproduced exactly by one opcode -> pipe map (PIPE below). That map is inferred from
these counts, not documented. HFMA2.MMA is on none of the four pipes (it issues to the MMA pipe).
FCHK, I2F and F2I issue to the XU pipe, beside MUFU. S2R SR_CgaCtaId is not on the LSU pipe.

To reproduce (no GPU needed):
  pip download torch==2.11.0 --no-deps        (torch-2.11.0-cp311-cp311-manylinux_2_28_x86_64.whl)
  unzip the wheel's torch/lib/libtorch_cuda.so
  pip install nvidia-cuda-cuobjdump           (or use any CUDA 12.8+ / 13 toolkit's cuobjdump)
  cuobjdump -xelf all libtorch_cuda.so
  grep -l cunn_SoftMaxForwardReg *sm_90*.cubin   (the cubin compiled from SoftMax.cu: 524 functions)
  cuobjdump -sass THAT.cubin > sm.sass
  python3 aten_softmax_sass.py sm.sass [COLS ...]
The script prints the check against ncu, each measured kernel's per-warp paths, and the formula
constants. Any COLS given are evaluated through the dispatch, for an aligned base. It reads the
listing once, line by line, and stops after the last function it needs: about 1 s.
"""
import collections
import math
import re
import sys

from sass_ops import cat

FRAG = {}
for _L in (8, 9, 10, 11):
    FRAG[f"warp{_L}"] = f"softmax_warp_forwardIN3c108BFloat16ES2_fLi{_L}ELb0ELb0EE"
for _R in range(3, 10):
    FRAG[f"reg{_R}"] = f"cunn_SoftMaxForwardRegIN3c108BFloat16EfS4_NS1_22SoftMaxForwardEpilogueElLi{_R}EE"
FRAG["smem8"] = "cunn_SoftMaxForwardSmemILi8EN3c108BFloat16EfS4_NS1_22SoftMaxForwardEpilogueElEE"
FRAG["block8"] = "cunn_SoftMaxForwardILi8EN3c108BFloat16EfS4_NS1_22SoftMaxForwardEpilogueEEE"
INS_RE = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?;)")
BLOCK = 1024   # SoftMaxForward_getBlockSize(cols) for cols >= 1024
ILP = 8        # sizeof(float4) / sizeof(BFloat16)


def load(path):
    """{name: {address: (file line, text, predicate, opcode, operands)}}. One bounded pass."""
    out, cur, left = {k: {} for k in FRAG}, None, set(FRAG)
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if "Function :" in line:
                if cur is not None:
                    left.discard(cur)
                    if not left:
                        break
                cur = next((k for k, frag in FRAG.items() if frag in line), None)
                continue
            if cur is not None:
                m = INS_RE.match(line)
                if m:
                    txt = m.group(2).strip()
                    out[cur][int(m.group(1), 16)] = (number, txt) + split(txt)
    for k, v in out.items():
        assert v, f"{FRAG[k]} not found in {path}"
    return out


def split(txt):
    """(predicate or '', opcode with modifiers, operand text)."""
    m = re.match(r"(@!?U?P[T0-9]+)\s+(.*)", txt)
    pred, rest = (m.group(1), m.group(2)) if m else ("", txt)
    op, _, operands = rest.rstrip(";").strip().partition(" ")
    return pred, op, operands


def target(operands):
    return int(re.findall(r"0x([0-9a-f]+)", operands)[-1], 16)


def pipe(op, operands):
    """The opcode -> ncu pipe map that reproduces smsp__inst_executed_pipe_* exactly (inferred)."""
    base = op.split(".")[0]
    if base in ("FFMA", "FMUL", "FADD", "IMAD", "VIADD"):
        return "fma"
    if base in ("FSETP", "FSEL", "FMNMX", "ISETP", "IADD3", "LOP3", "SHF", "PRMT", "LEA", "SEL", "P2R",
                "PLOP3", "F2FP", "MOV", "R2UR"):
        return "alu"
    if base in ("MUFU", "FCHK", "I2F", "F2I"):
        return "xu"
    if base in ("LDG", "STG", "LDS", "STS", "SHFL") or (base == "S2R" and "CgaCtaId" not in operands):
        return "lsu"
    return "-"


_CAT = {}


def mix(ins, path):
    """gpucalc's InstructionMix {instructions, fp32, integer, sfu, 0}. fp32 is FFMA/FMUL/FADD/FSETP/
    FMNMX/FSEL/FCHK. integer is the integer and logic ops, IMAD, MOV, HFMA2.MMA used as a move,
    the bf16 unpack (SHF/IMAD.U32/PRMT) and the bf16 pack F2FP. sfu is MUFU."""
    c = collections.Counter()
    for a, n in collections.Counter(path).items():
        key = (id(ins), a)
        if key not in _CAT:
            op = ins[a][3]
            _CAT[key] = (cat(op), "F2FP" if op.startswith("F2FP") else ("FCHK" if op == "FCHK" else None))
        k1, k2 = _CAT[key]
        c[k1] += n
        if k2:
            c[k2] += n
    return (len(path), c["fp32"], c["int_alu"] + c["F2FP"], c["mufu"], 0), c


def add(a, b, k=1):
    return tuple(x + k * y for x, y in zip(a, b))


# ---- the walker ----
class Warp:
    def __init__(self, first_tid):
        self.first = first_tid
        self.tids = range(first_tid, first_tid + 32)


def lanes(pred_of_tid, warp):
    v = [bool(pred_of_tid(t)) for t in warp.tids]
    return "all" if all(v) else ("none" if not any(v) else "some")


def walk(ins, rules, warp):
    """One warp's issued addresses, in order. rules: {address: f(warp, visits) -> 'T'|'F'|'D'|'FD'}.
    'D': lanes split at an if-block, so the fall-through runs and the target (a BSYNC) issues twice.
    'FD': a loop's last back-edge where the lanes made different trip counts; the next BSYNC issues
    twice."""
    path, pc, visits, extra, next_bsync_twice = [], 0, collections.Counter(), set(), False
    while True:
        assert len(path) < 200000, "runaway walk"
        assert pc in ins, hex(pc)
        pred, op, operands = ins[pc][2:]
        base = op.split(".")[0]
        path.append(pc)
        if base == "BSYNC" and (pc in extra or next_bsync_twice):
            path.append(pc)
            extra.discard(pc)
            next_bsync_twice = False
        if base == "CALL":
            raise AssertionError(f"walked into the slow path's CALL at {pc:#x}")
        if base == "EXIT":
            if not pred:
                return path
            assert pc in rules, f"no rule for {ins[pc][1]} at {pc:#x}"
            d = rules[pc](warp, visits[pc])
            assert d in ("T", "F")
            visits[pc] += 1
            if d == "T":
                return path
        elif base == "BRA":
            tgt = target(operands)
            if op == "BRA.DIV":
                d = "F"
            elif not pred and not re.match(r"!?P[0-9]", operands):
                d = "T"
            elif pc in rules:
                d = rules[pc](warp, visits[pc])
            else:
                d = default_rule(ins, pc, tgt)
                assert d is not None, f"no rule for {ins[pc][1]} at {pc:#x}"
            visits[pc] += 1
            if d == "T":
                pc = tgt
                continue
            if d == "D":
                assert ins[tgt][3].startswith("BSYNC"), hex(pc)
                extra.add(tgt)
            elif d == "FD":
                next_bsync_twice = True
        pc += 16


def default_rule(ins, pc, tgt):
    # softmax_warp_forward's `sum == 0 -> NaN`: the target loads the NaN (+QNAN, or bf16 0x7fff)
    if "+QNAN" in ins[tgt][1] or re.search(r", 0x7fff ;$", ins[tgt][1]):
        return "F"
    # FCHK fast path: the fall-through up to the target holds the CALL of the slow division
    if tgt > pc and any(ins[a][3].startswith("CALL") for a in range(pc + 16, tgt, 16)):
        assert any(ins[a][3] == "FCHK" for a in range(pc - 0x100, pc, 16) if a in ins)
        return "T"
    return None


# ---- rule builders ----
def const(d):
    return lambda w, v: d


def warp0(d0, dother):
    return lambda w, v: d0 if w.first == 0 else dother


def skip_if(pred_of_tid, is_exit=False):
    """An if-block skipped where pred(tid) holds (a BRA to its BSYNC), or a predicated EXIT."""
    def f(w, v):
        s = lanes(pred_of_tid, w)
        return "T" if s == "all" else ("F" if s == "none" or is_exit else "D")
    return f


def loop_skip(trips):
    return lambda w, v: "T" if max(trips(t) for t in w.tids) == 0 else "F"


def loop_back(trips, has_bsync=True):
    def f(w, v):
        t = [trips(x) for x in w.tids]
        if v + 1 < max(t):
            return "T"
        return "FD" if has_bsync and min(t) != max(t) else "F"
    return f


def ceil_div(a, b):
    return -(-a // b)


def instr(ins, a):
    return ins[a][2:]


def warp_rules(ins, cols):
    """softmax_warp_forward<L>, L >= 8: one warp a row (WARP_BATCH 1), 2^L / 32 elements a lane, all
    unrolled. The only branching is in the store loop. Each element's store ends with a predicated
    EXIT, which is the `break` at element_index >= element_count."""
    exits = [a for a in sorted(ins) if instr(ins, a)[1] == "EXIT" and instr(ins, a)[0]]
    nb = len(exits) - 1          # store blocks = 2^L / 32; the last one ends with a plain EXIT
    r = {exits[0]: const("F"),                                    # local_batches < 1
         exits[1]: skip_if(lambda t: t >= cols, is_exit=True)}    # lane >= element_count
    for k, a in enumerate(exits[2:]):                             # after element k's store
        r[a] = skip_if(lambda t, k=k: t + (k + 1) * 32 >= cols, is_exit=True)
    assert instr(ins, exits[0])[0] == "@!P0" and nb in (8, 16, 32, 64)
    return r


def reg_rules(ins, cols, reg_cnt):
    """cunn_SoftMaxForwardReg<R>: R elements a thread, at tid + r * 1024, each kept if < classes. The
    per-element blocks are `@Px BRA <its BSYNC>` in source order: R in the exp-sum pass, then R in
    the store pass, where the last one is a predicated EXIT. The two branches that sit just before
    a BRA.DIV are BlockReduce's `tid >= 32` skips of the second warp-level reduction; warp 0 does
    that reduction."""
    brs = [a for a in sorted(ins) if instr(ins, a)[0] and instr(ins, a)[1] == "BRA"]
    w0 = [a for a in brs if any(instr(ins, x)[1] == "BRA.DIV" for x in (a + 16, a + 32))]
    elem = [a for a in brs if a not in w0 and instr(ins, a)[0].startswith("@P")
            and instr(ins, target(instr(ins, a)[2]))[1] == "BSYNC"
            and any(instr(ins, x)[1] == "MUFU.EX2" for x in range(a, target(instr(ins, a)[2]), 16))]
    exits = [a for a in sorted(ins) if instr(ins, a)[1] == "EXIT" and instr(ins, a)[0]]
    assert len(w0) == 2 and len(elem) == 2 * reg_cnt - 1 and len(exits) == 1, (reg_cnt, w0, elem, exits)
    r = {a: warp0("F", "T") for a in w0}
    for i, a in enumerate(elem + exits):
        k = i % reg_cnt
        r[a] = skip_if(lambda t, k=k: t + k * BLOCK >= cols, is_exit=(a in exits))
    return r


def smem_trips(cols):
    return lambda t: max(0, ceil_div(cols // ILP - t, BLOCK))


def smem_rules(ins, cols):
    """cunn_SoftMaxForwardSmem<8>: three passes, each `for (offset = tid; offset*8 < classes;
    offset += 1024)`. Pass 1 loads to smem and takes the max, pass 2 sums exp from smem, pass 3
    applies the epilogue from smem and stores."""
    assert cols % ILP == 0
    tr = smem_trips(cols)
    r = {0x00D0: loop_skip(tr), 0x03A0: loop_back(tr),          # pass 1
         0x07C0: loop_skip(tr), 0x0DE0: loop_back(tr),          # pass 2
         0x1030: loop_skip(tr), 0x1EA0: loop_back(tr, False),   # pass 3 (entry is an EXIT, ends in EXIT)
         0x0620: warp0("F", "T"), 0x0F20: warp0("F", "T")}      # BlockReduce: tid >= 32 skip
    for x, want in ((0x00D0, "@P0"), (0x07C0, "@P0"), (0x0620, "@P4"), (0x0F20, "@P4"), (0x1030, "@P0"),
                    (0x03A0, "@!P1"), (0x0DE0, "@!P1"), (0x1EA0, "@!P0")):
        assert instr(ins, x)[0] == want and instr(ins, x)[1] in ("BRA", "EXIT"), (hex(x), ins[x])
    return r


def block_rules(ins, cols, shift=0):
    """cunn_SoftMaxForward<8>, the input and output rows at the same offset mod 16 bytes
    (shift == output_shift: true for torch.softmax's fresh output). A row's shift is
    (row * cols) % 8 for a 16-byte aligned base. ilpReduce (max, then sum of exp) and
    WriteFpropResultsVectorized each do the same: if shift > 0, one scalar element a thread at
    tid - shift, then size' = cols + shift - 1024; then a vector loop over size' - size' % 8192;
    then a scalar tail over size' % 8192."""
    size = cols if shift == 0 else cols + shift - min(cols + shift, BLOCK)
    last = size % (ILP * BLOCK)
    vec = lambda t: max(0, ceil_div((size - last) // ILP - t, BLOCK))
    tail = lambda t: max(0, ceil_div(last - t, BLOCK))
    s = "T" if shift == 0 else "F"
    r = {0x0150: const(s), 0x0AE0: const(s), 0x1A10: const(s),    # shift == 0: skip the head element
         0x1750: const("T"),                                      # shift == output_shift
         0x1A60: skip_if(lambda t: t < shift or t >= cols + shift),  # write's head element
         0x0470: loop_skip(vec), 0x0620: loop_back(vec),          # max: vector loop
         0x0650: loop_skip(tail), 0x06C0: loop_back(tail),        # max: scalar tail
         0x0D60: loop_skip(vec), 0x1330: loop_back(vec),          # sum of exp: vector loop
         0x1370: loop_skip(tail), 0x1480: loop_back(tail),        # sum of exp: scalar tail
         0x1F00: loop_skip(vec), 0x2C90: loop_back(vec),          # write: vector loop
         0x2CD0: loop_skip(tail), 0x2EF0: loop_back(tail, False),  # write: tail (entry EXIT, ends in EXIT)
         0x0920: warp0("F", "T"), 0x15C0: warp0("F", "T")}
    for x in r:
        assert instr(ins, x)[1] in ("BRA", "EXIT") and instr(ins, x)[0], (hex(x), ins[x])
    return r


# ---- counting ----
def kernel_for(cols, aligned=True):
    """host_softmax's choice for bf16, inner_size 1, !half_to_float (SoftMax.cu)."""
    if cols <= 2048:
        return f"warp{max(0, math.ceil(math.log2(cols)))}"
    if ceil_div(cols, BLOCK) < 10:
        return f"reg{ceil_div(cols, BLOCK)}"
    if aligned and cols % ILP == 0 and cols < (49152 - 128) // 2:
        return "smem8"
    return "block8"


def row_paths(fns, k, cols, shift=0):
    """Per-warp paths of one row of kernel k at cols (a row: 1 warp, or the 32 warps of a block)."""
    ins = fns[k]
    if k.startswith("warp"):
        assert (1 << (int(k[4:]) - 1)) < cols <= (1 << int(k[4:]))
        return [walk(ins, warp_rules(ins, cols), Warp(0))]
    if k.startswith("reg"):
        rules = reg_rules(ins, cols, int(k[3:]))
    elif k == "smem8":
        rules = smem_rules(ins, cols)
    else:
        rules = block_rules(ins, cols, shift)
    return [walk(ins, rules, Warp(32 * w)) for w in range(BLOCK // 32)]


_ROW = {}


def row_mix(fns, k, cols, shift=0):
    if (k, cols, shift) not in _ROW:
        tot = Z
        for p in row_paths(fns, k, cols, shift):
            m, c = mix(fns[k], p)
            tot = add(tot, m + (c["F2FP"], c["FCHK"]))
        _ROW[(k, cols, shift)] = tot
    return _ROW[(k, cols, shift)]


Z = (0,) * 7   # a row's InstructionMix, then its F2FP and FCHK counts (inside integer and fp32)


def fm(t):
    """An InstructionMix, with its F2FP and FCHK counts after it."""
    return f"{t[:5]} [F2FP {t[5]}, FCHK {t[6]}]"


def row_pipes(fns, k, cols):
    c = collections.Counter()
    for p in row_paths(fns, k, cols):
        for a in p:
            _, op, operands = instr(fns[k], a)
            c[pipe(op, operands)] += 1
    return c


def ranges(path):
    out = []
    for a in path:
        if out and a == out[-1][1] + 16:
            out[-1][1] = a
        else:
            out.append([a, a])
    return out


def fmt_ranges(path, limit=12):
    r = ranges(path)
    s = " ".join(f"{a:04x}-{b:04x}" if a != b else f"{a:04x}" for a, b in r[:limit])
    return s + (f" ... ({len(r)} ranges in all)" if len(r) > limit else "")


def fmt_cat(c):
    keys = ["fp32", "int_alu", "mufu", "convert", "ldst_global", "ldst_shared", "shfl", "bar",
            "ldc_const", "uniform", "s2r", "ctrl"]
    s = ", ".join(f"{k}={c[k]}" for k in keys if c[k])
    extra = [k for k in c if k not in keys and k not in ("F2FP", "FCHK")]
    return s + (" " + str({k: c[k] for k in extra}) if extra else "") + f" (F2FP {c['F2FP']}, FCHK {c['FCHK']})"


# run-5-h100/rowsinst.csv: 2^26 bf16 elements, one launch each; inst_executed, pipe fma, alu, xu, lsu
MEASURED = {
    1024: (82_575_360, 31_588_352, 18_153_472, 6_291_456, 7_012_352),
    2048: (81_133_568, 29_229_056, 19_759_104, 6_291_456, 6_651_904),
    4096: (166_674_432, 65_093_632, 39_485_440, 8_388_608, 14_319_616),
    8192: (162_242_560, 62_169_088, 45_170_688, 8_388_608, 11_091_968),
    16384: (99_209_216, 47_468_544, 24_551_424, 8_388_608, 3_842_048),
    32768: (93_972_480, 48_310_272, 20_926_464, 8_781_824, 2_314_240)}


def check(fns):
    print("===== check against Nsight Compute (H100, 2^26 bf16 elements, one launch each) =====")
    print("  cols   rows kernel  instr/row    counted x rows       measured    ratio | pipes fma/alu/xu/lsu a row: counted = measured?")
    for cols, meas in sorted(MEASURED.items()):
        k, rows = kernel_for(cols), (1 << 26) // cols
        tot = row_mix(fns, k, cols)[0]
        pc = row_pipes(fns, k, cols)
        pm = [m // rows for m in meas[1:]]
        pcs = [pc["fma"], pc["alu"], pc["xu"], pc["lsu"]]
        print(f"{cols:6d} {rows:6d} {k:7s} {tot:9d} {tot * rows:16,d} {meas[0]:14,d} {tot * rows / meas[0]:8.6f} | "
              f"{'/'.join(map(str, pcs))} {'==' if pcs == pm and all(m % rows == 0 for m in meas[1:]) else '!='} "
              f"{'/'.join(map(str, pm))}")


def paths_report(fns):
    for cols in sorted(MEASURED):
        k = kernel_for(cols)
        ins, paths = fns[k], row_paths(fns, k, cols)
        tot = row_mix(fns, k, cols)
        print(f"\n===== {k} at cols={cols}: a row = {len(paths)} warp(s), InstructionMix {fm(tot)} =====")
        groups = collections.OrderedDict()
        for w, p in enumerate(paths):
            groups.setdefault(tuple(p), []).append(w)
        for p, ws in groups.items():
            m, c = mix(ins, list(p))
            who = f"warp {ws[0]}" if len(ws) == 1 else f"warps {ws[0]}-{ws[-1]}"
            first, lastl = ins[p[0]][0], ins[p[-1]][0]
            print(f"  {who} (x{len(ws)}): {m} | {fmt_cat(c)}")
            print(f"    path (file lines {first}..{lastl}): {fmt_ranges(list(p))}")


def formulas(fns):
    """Per-row constants, derived by differencing walks and checked against direct walks."""
    print("\n===== formulas: InstructionMix {total, fp32, integer, sfu, 0} =====")
    # softmax_warp_forward<L>: a row = one warp; every store block is one column per lane (32 columns).
    for L in (8, 9, 10, 11):
        k, lo, hi = f"warp{L}", (1 << (L - 1)) + 1, 1 << L
        NB = hi // 32
        w_lo, w_lo2 = row_mix(fns, k, lo), row_mix(fns, k, lo + 32)
        S = add(w_lo2, w_lo, -1)
        A = add(w_lo, S, -ceil_div(lo, 32))
        E = add(add(A, S, NB), row_mix(fns, k, hi), -1)
        for c in sorted({lo, lo + 31, lo + 32, hi - 33, hi - 32, hi - 1, hi, (lo + hi) // 2}):
            nb = ceil_div(c, 32)
            want = add(add(A, S, nb), E, -1 if nb == NB else 0)
            assert row_mix(fns, k, c) == want, (k, c)
        print(f"{k} (cols {lo}..{hi}): row = A + S*ceil(cols/32) - E*[ceil(cols/32) == {NB}]\n"
              f"    A={fm(A)} S={fm(S)} E={fm(E)}; at {hi}: {fm(row_mix(fns, k, hi))}")
    # cunn_SoftMaxForwardReg<R>: cols in (1024(R-1), 1024R]. Only element R-1 can be out of range:
    # a warp whose 32 lanes are all past cols skips its exp block and exits before its store.
    for R in range(3, 10):
        k = f"reg{R}"
        full = row_mix(fns, k, 1024 * R)
        X = add(full, row_mix(fns, k, 1024 * R - 32), -1)            # one warp skips element R-1
        P = add(row_mix(fns, k, 1024 * R - 16), full, -1)            # one warp split at element R-1
        for c in (1024 * (R - 1) + 1, 1024 * (R - 1) + 32, 1024 * R - 100, 1024 * R - 33, 1024 * R - 1):
            rem = c - 1024 * (R - 1)                                  # columns of element R-1
            nskip, npart = 32 - ceil_div(rem, 32), 1 if rem % 32 else 0
            assert row_mix(fns, k, c) == add(add(full, X, -nskip), P, npart), (k, c)
        print(f"Reg<{R}> (cols {1024 * (R - 1) + 1}..{1024 * R}): row = F - X*nskip + P*[cols % 32 != 0], "
              f"nskip = 32 - ceil((cols - {1024 * (R - 1)})/32)\n    F={fm(full)} X={fm(X)} P={P[:5]}")
    # cunn_SoftMaxForwardSmem<8> and cunn_SoftMaxForward<8> (shift 0): a warp's trip of all three
    # passes' vector loops covers 256 columns (32 lanes x 8). Where cols is a multiple of 8192 every
    # lane makes cols/8192 trips: row = F + V * cols/256.
    for k, c1, c2 in (("smem8", 8192, 16384), ("block8", 24576, 32768)):
        w1, w2 = row_mix(fns, k, c1), row_mix(fns, k, c2)
        V = tuple(x // 32 for x in add(w2, w1, -1))
        assert add(w2, w1, -1) == tuple(32 * x for x in V)
        F = add(w2, V, -c2 // 256)
        for c in (8192, 16384, 24576, 65536):
            assert row_mix(fns, k, c) == add(F, V, c // 256), (k, c)
        print(f"{k} (cols a multiple of 8192): row = F + V * cols/256\n    F={fm(F)} V={fm(V)} "
              f"(V/8 = {tuple(round(x / 8, 3) for x in V[:5])} a 32 columns)")
    # Smem, any cols % 8 == 0: warp w's lanes make t = ceil((cols/8 - tid)/1024) trips; the warp
    # makes its lane 0's (tid = 32w); where its lanes differ, passes 1 and 2 each issue one more BSYNC.
    k = "smem8"
    w1, w2 = row_mix(fns, k, 8192), row_mix(fns, k, 16384)
    V = tuple(x // 32 for x in add(w2, w1, -1))
    B = add(w2, V, -64)                              # the trip-free part of a row (32 warps)
    for c in (9224, 10000, 12344, 16384, 20000, 24504):
        n = c // 8
        trips = sum(ceil_div(n - 32 * w, BLOCK) for w in range(32))
        mixed = sum(1 for w in range(32) if ceil_div(n - 32 * w, BLOCK) != ceil_div(n - 32 * w - 31, BLOCK))
        assert row_mix(fns, k, c) == add(add(B, V, trips), (2, 0, 0, 0, 0, 0, 0), mixed), c
    print(f"smem8 (any cols % 8 == 0): row = B + V * sum_w t_w + 2 * (warps whose lanes differ), "
          f"t_w = ceil((cols/8 - 32w)/1024)\n    B={fm(B)} V={fm(V)}")
    # block8, shift 0, any cols % 8 == 0: vector part as above on cols - cols % 8192, plus the
    # scalar tails over last = cols % 8192: a warp with lanes left makes T(tau) more, tau = max trips.
    k = "block8"
    base = row_mix(fns, k, 32768)
    V = tuple(x // 32 for x in add(base, row_mix(fns, k, 24576), -1))
    T1 = add(row_mix(fns, k, 32768 + 32), base, -1)                  # warp 0 enters, 1 tail trip
    t2 = add(row_mix(fns, k, 32768 + 1024 + 32), base, -1)           # warp 0: 2 trips, warps 1-31: 1
    Tstep = add(t2, T1, -32)                                           # warp 0's second trip
    for c in (24584, 25600, 32776, 33000, 34000, 36864 + 24, 40952, 50264):
        last = c % 8192
        acc = add(base, V, (c - last) // 256 - 128)
        for w in range(32):
            tau = ceil_div(last - 32 * w, BLOCK) if last > 32 * w else 0
            if tau:
                acc = add(add(acc, T1), Tstep, tau - 1)
                if ceil_div(last - 32 * w - 31, BLOCK) != tau:
                    acc = add(acc, (2, 0, 0, 0, 0, 0, 0))
        assert row_mix(fns, k, c) == acc, (c, row_mix(fns, k, c), acc)
    F = add(base, V, -128)
    print(f"block8 (shift 0, any cols % 8 == 0): row = F + V*(cols - last)/256 + sum over warps with "
          f"tau_w = ceil((last - 32w)/1024) > 0 of [T1 + Tstep*(tau_w - 1) + 2*(lanes differ)], "
          f"last = cols % 8192\n    F={fm(F)} V={fm(V)} T1={fm(T1)} Tstep={fm(Tstep)}")


def main():
    fns = load(sys.argv[1])
    check(fns)
    paths_report(fns)
    formulas(fns)
    for cols in (int(x) for x in sys.argv[2:]):
        k = kernel_for(cols)
        if k == "block8" and cols % 8:
            shifts = [(r * cols) % 8 for r in range(8)]
            ms = [row_mix(fns, k, cols, s) for s in shifts]
            avg = tuple(sum(m[i] for m in ms) / 8 for i in range(7))
            print(f"cols={cols}: {k}, rows' shifts {shifts}: per row {[m[:5] for m in ms]}; mean {fm(avg)}")
        elif k in fns:
            print(f"cols={cols}: {k}: per row {fm(row_mix(fns, k, cols))}")
        else:
            print(f"cols={cols}: {k}: not counted here (warp kernels with L < 8 run 2 rows a warp)")


if __name__ == "__main__":
    main()
