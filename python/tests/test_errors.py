"""Bad input raises gpucalc.InputError (a ValueError) with the command line's one line."""

import pytest

import gpucalc
from conftest import cli_args, run_cli

BAD = [
    ("occupancy", dict(threads=256, regs="x")),
    ("occupancy", dict(threads=256, regs=300)),
    ("occupancy", dict(threads=2048, regs=32)),
    ("occupancy", dict(threads=256, regs=32, smem="300KB")),
    ("occupancy", dict(threads=256, regs=32, gpu="h1000")),
    ("occupancy", dict(threads=256, regs=32, model="fancy")),
    ("occupancy", dict(regs=32)),
    ("little", dict(bandwidth="fast")),
    ("sectors", dict(stride=2, elem=3)),
    ("banks", dict(width=33, access="zigzag")),
    ("fusion", dict(preset="rmsnorm", rows=0, cols=4096)),
    ("tiling", dict(m=4096, n=4096, k=4096, tile=0)),
    ("waves", dict(blocks=-1, blocks_per_sm=1)),
    ("roofline", dict(flops="1e", bytes="1MB")),
    ("attention", dict(heads=32, seq=4096, head_dim=128, kv_heads=5)),
    ("decode", dict(model="llama-9")),
    ("pipeline", dict(tile="128x256")),
    ("decode", dict(model="llama-3-8b", experts=8)),
    ("occupancy", dict(threads=256, regs=32, smme="1KB")),
]


@pytest.mark.parametrize("case", BAD, ids=lambda c: c[0] + " " + " ".join(f"{k}={v}" for k, v in c[1].items()))
def test_input_error_is_the_cli_line(case):
    name, kwargs = case
    code, out, err = run_cli(name, *cli_args(kwargs))
    assert code == 2 and out == ""
    with pytest.raises(gpucalc.InputError) as e:
        getattr(gpucalc, name)(**kwargs)
    assert isinstance(e.value, ValueError)
    assert "gpucalc: " + str(e.value) == err.rstrip("\n")
