"""The opcode groups both SASS counts use (aten_norm_sass.py, aten_softmax_sass.py): an opcode, its
modifiers dropped, to fp32, mufu, global or shared load/store, shfl, bar, convert, int_alu,
uniform, ldc_const, s2r, ctrl, or other:OPCODE."""

GROUPS = (
    ("fp32", ("FFMA", "FMUL", "FADD", "FSETP", "FMNMX", "FCHK", "FSEL", "FSET")),
    ("mufu", ("MUFU",)),
    ("ldst_global", ("LDG", "STG")),
    ("ldst_shared", ("LDS", "STS")),
    ("shfl", ("SHFL",)),
    ("bar", ("BAR",)),
    ("convert", ("F2FP", "F2F", "I2FP", "I2F", "F2I")),
    ("int_alu", ("IMAD", "IADD3", "LOP3", "ISETP", "SHF", "PRMT", "LEA", "MOV", "SEL", "VIADD", "PLOP3", "HFMA2", "IABS",
                 "IMNMX", "P2R")),
)


def cat(op):
    """The group of an opcode such as FFMA.SAT."""
    base = op.split(".")[0]
    for group, opcodes in GROUPS:
        if base in opcodes:
            return group
    if base.startswith("U") or base in ("S2UR", "R2UR"):
        return "uniform"
    if base == "LDC":
        return "ldc_const"
    if base == "S2R":
        return "s2r"
    if base in ("BRA", "CALL", "RET", "EXIT", "BSSY", "BSYNC", "WARPSYNC"):
        return "ctrl"
    return "other:" + base
