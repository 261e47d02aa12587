"""Every calculator of the command table, through the package, against `gpucalc ... --format json`
key for key: results, inputs, profile and notes; and the same cases' other outputs."""

import random

import pytest

import gpucalc
from conftest import cli_args, cli_json, flatten, run_cli, ROOT

# A few cases of each calculator (the README's table, docs/*.md), as keyword arguments.
CASES = [
    ("occupancy", dict(threads=256, regs=64, smem="40KB")),
    ("occupancy", dict(threads=128, regs=32, smem="64KB")),
    ("occupancy", dict(threads=256, regs=33)),
    ("occupancy", dict(threads=256, regs=33, model="simple")),
    ("occupancy", dict(gpu="a100", threads=512, regs=40, smem=16384, carveout=50)),
    ("occupancy", dict(suggest=True, regs=33)),
    ("occupancy", dict(threads=128, regs=32, cluster=2, gpu="h100")),
    ("little", dict()),
    ("little", dict(warps=1, issue_cycles=10, wait_cycles=500)),
    ("little", dict(gpu="h200", latency="672cyc")),
    ("sectors", dict(stride=2)),
    ("sectors", dict(cols=4096, access="column", elem=2)),
    ("sectors", dict(addresses="0,4,8,128,256")),
    ("banks", dict(width=32, access="column")),
    ("banks", dict(width=32, access="column", swizzle="xor")),
    ("banks", dict(words="33*t+5")),
    ("fusion", dict(preset="rmsnorm", rows=16384, cols=4096)),
    ("fusion", dict(preset="unary", ops=4, n=1e8, dtype="bf16", launch="3.6us")),
    ("tiling", dict(m=4096, n=4096, k=4096, tile=128)),
    ("tiling", dict(gpu="h200", dtype="fp32", m=4096, n=4096, k=4096, tile=32, group_m=8)),
    ("waves", dict(blocks=265, blocks_per_sm=1)),
    ("waves", dict(elements="2^24", threads=256, regs=16)),
    ("waves", dict(gpu="a100", gemm="2304,1664", tile="256x128")),
    ("roofline", dict(flops=1.37e11, bytes="101MB")),
    ("roofline", dict(flops="2*4096^3", bytes="3*2*4096^2", time="200us")),
    ("attention", dict(heads=32, seq=4096, head_dim=128, causal=True)),
    ("attention", dict(batch_size=8, heads=32, kv_heads=8, seq=4096, head_dim=128, pass_="fwd+bwd")),
    ("decode", dict(model="llama-2-7b")),
    ("decode", dict(model="llama-3-8b", context=8192, batch_size=16, gpu="h200")),
    ("pipeline", dict(tile="128x256x64", warpgroups="1+2", regs="40,232")),
    ("pipeline", dict(tile="128x128x64", dtype="bf16", gpu="b200")),
    ("collective", dict(size="1GB", gpu="h100")),
    ("collective", dict(size="256MB", gpus=16, nodes=2, algo="auto")),
    ("collective", dict(op="allgather", size="64MB", gpus=4, gpu="l40s")),
    ("decode", dict(model="llama-3-70b", tp=8, batch_size=64, gpu="h100")),
]


def case_id(case):
    name, kwargs = case
    return name + " " + " ".join(f"{k}={v}" for k, v in kwargs.items())


def check_same(name, kwargs, result):
    cli = cli_json(name, *cli_args(kwargs))
    assert dict(result) == flatten(cli["results"])
    assert list(result) == list(flatten(cli["results"]))  # the same keys in the same order
    assert result.inputs == flatten(cli["inputs"])
    assert result.gpu == cli["gpu"]
    assert result.notes == cli.get("notes", [])


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_same_as_cli_json(case):
    name, kwargs = case
    check_same(name, kwargs, getattr(gpucalc, name)(**kwargs))


def test_every_calculator_has_cases():
    # ncu reads a report (test_ncu.py); every other calculator of the table is above.
    assert set(gpucalc.calculators) - {"ncu"} == {name for name, _ in CASES}


def test_random_occupancy_cases_equal_the_cli():
    rng = random.Random(39)
    for _ in range(40):
        kwargs = dict(gpu=rng.choice(["h100", "a100", "h200", "l4"]), threads=32 * rng.randint(1, 32),
                      regs=rng.randint(16, 255), smem=rng.choice([0, 1024 * rng.randint(1, 96)]))
        check_same("occupancy", kwargs, gpucalc.occupancy(**kwargs))


def test_random_roofline_and_waves_cases_equal_the_cli():
    rng = random.Random(7)
    for _ in range(15):
        kwargs = dict(flops=f"{rng.uniform(1, 9):.3f}e{rng.randint(6, 14)}", bytes=f"{rng.randint(1, 999)}MB",
                      dtype=rng.choice(["fp32", "bf16", "fp16", "fp8", "tf32"]))
        check_same("roofline", kwargs, gpucalc.roofline(**kwargs))
        kwargs = dict(blocks=rng.randint(1, 100000), blocks_per_sm=rng.randint(1, 16), gpu=rng.choice(["h100", "a100"]))
        check_same("waves", kwargs, gpucalc.waves(**kwargs))


@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json"])
def test_printouts_equal_the_cli(fmt):
    kwargs = dict(threads=256, regs=64, smem="40KB")
    code, out, _ = run_cli("occupancy", *cli_args(kwargs), "--format", fmt)
    assert code == 0
    assert gpucalc.occupancy(**kwargs).format(fmt) == out


def test_explain_repr_markdown_and_to_dict():
    kwargs = dict(threads=256, regs=33)
    r = gpucalc.occupancy(**kwargs)
    assert r.explain() == run_cli("occupancy", *cli_args(kwargs), "--explain")[1]
    assert repr(r) + "\n" == run_cli("occupancy", *cli_args(kwargs))[1]
    assert r._repr_markdown_() == run_cli("occupancy", *cli_args(kwargs), "--format", "md")[1]
    assert r.to_dict() == cli_json("occupancy", *cli_args(kwargs), "--explain")
    assert r.steps == r.to_dict()["explain"]
    # 33 registers x 32 lanes = 1,056 a warp, allocated as 1,280 (a multiple of 256): 16,384 / 1,280 =
    # 12 warps a sub-partition, 48 an SM, 6 blocks of 8 warps; the simple model's 65,536 / (33 x 256) = 7.
    assert (r["blocks_per_sm"], r["warps_per_sm"], r["occupancy"], r["limiter"]) == (6, 48, 0.75, "registers")
    assert r["limits"]["registers"] == r["limits.registers"] == 6


def test_plot_is_the_svg_the_cli_writes(tmp_path):
    kwargs = dict(flops=1.37e11, bytes="101MB")
    path = tmp_path / "r.svg"
    code, _, err = run_cli("roofline", *cli_args(kwargs), "--plot", path)
    assert code == 0, err
    assert gpucalc.roofline(**kwargs).plot() == path.read_text()
    kwargs = dict(threads=256, regs=64, smem="40KB")
    path = tmp_path / "o.svg"
    assert run_cli("occupancy", *cli_args(kwargs), "--plot", path)[0] == 0
    assert gpucalc.occupancy(**kwargs).plot() == path.read_text()


def test_plot_of_a_calculator_without_a_chart_says_so_as_the_cli():
    code, _, err = run_cli("banks", "--width", "33", "--plot", "b.svg")
    assert code == 2
    with pytest.raises(gpucalc.InputError) as e:
        gpucalc.banks(width=33).plot()
    # The command line names the file it was asked to write; the package has none.
    assert str(e.value) == err.strip().removeprefix("gpucalc: ").replace("'b.svg'", "''")


def test_require_raises_the_cli_lines():
    kwargs = dict(threads=256, regs=64, smem="40KB")
    r = gpucalc.occupancy(**kwargs)
    assert r.require("occupancy>=50%", "limiter==registers") is r
    code, _, err = run_cli("occupancy", *cli_args(kwargs), "--require", "occupancy>=60%", "--require", "blocks_per_sm>4")
    assert code == 1
    with pytest.raises(gpucalc.RequirementError) as e:
        r.require("occupancy>=60%", "blocks_per_sm>4")
    assert str(e.value) == err.strip()
    code, _, err = run_cli("occupancy", *cli_args(kwargs), "--require", "occupancy>>1")
    assert code == 2
    with pytest.raises(gpucalc.InputError) as e:
        r.require("occupancy>>1")
    assert "gpucalc: " + str(e.value) == err.strip()


def test_functions_come_from_the_command_table():
    code, out, _ = run_cli("--help")
    for name in gpucalc.calculators:
        assert name in out
        assert callable(getattr(gpucalc, name))
    assert "threads per block" in gpucalc.occupancy.__doc__
    assert "blocks_per_sm" in gpucalc.occupancy.results
    import inspect
    assert "bytes_per_load" in inspect.signature(gpucalc.little).parameters


def test_profiles():
    listed = gpucalc.profiles()
    assert [p["key"] for p in listed] == [p["key"] for p in cli_json("hw", "list")["profiles"]]
    assert gpucalc.profile("h200") == cli_json("hw", "show", "h200")
    path = ROOT / "tests" / "data" / "v100.toml"
    assert gpucalc.profile(path) == cli_json("hw", "show", path)
    code, _, err = run_cli("hw", "show", "h1000")
    with pytest.raises(gpucalc.InputError) as e:
        gpucalc.profile("h1000")
    assert "gpucalc: " + str(e.value) == err.strip()


def test_a_profile_file_as_gpu():
    path = ROOT / "tests" / "data" / "v100.toml"
    kwargs = dict(gpu=path, threads=128, regs=37)
    r = gpucalc.occupancy(**kwargs)
    check_same("occupancy", kwargs, r)
    # The Best Practices Guide's example: 12 blocks of 4 warps, 48 of 64 warps.
    assert (r["blocks_per_sm"], r["occupancy"]) == (12, 0.75)


@pytest.mark.parametrize("case", [("waves", dict(blocks=265, blocks_per_sm=1, sms=4)),
                                  ("roofline", dict(flops=1.37e11, bytes="101MB", sms=66)),
                                  ("occupancy", dict(threads=256, regs=64, sms=8))], ids=case_id)
def test_sms_as_the_cli(case):
    name, kwargs = case
    check_same(name, kwargs, getattr(gpucalc, name)(**kwargs))


def test_sms_refused_as_the_cli():
    kwargs = dict(threads=128, regs=32, cluster=2, sms=8)
    code, _, err = run_cli("occupancy", *cli_args(kwargs))
    assert code == 2
    with pytest.raises(gpucalc.InputError) as e:
        gpucalc.occupancy(**kwargs)
    assert "gpucalc: " + str(e.value) == err.strip()


def test_forms_of_rows_are_rows_not_one_case():
    # occupancy --from and ncu's report make a row per kernel: .rows() / .read(), not a call.
    with pytest.raises(gpucalc.InputError, match=r"occupancy: --from makes a row per entry: call gpucalc.occupancy.rows\(from_=...\)"):
        gpucalc.occupancy(from_="tests/data/kernels/spill.ptxas.txt", threads=256)
    with pytest.raises(gpucalc.InputError, match=r"ncu.read\(path\)"):
        gpucalc.ncu(report="tests/data/ncu/h200/full-occupancy.txt")
    with pytest.raises(gpucalc.InputError, match=r"ncu.read\(path\)"):
        gpucalc.ncu()
    path = ROOT / "tests" / "data" / "kernels" / "spill.ptxas.txt"
    code, out, err = run_cli("occupancy", "--from", path, "--threads", "256", "--format", "json", "--explain")
    assert code == 0, err
    import json
    expected = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r.to_dict() for r in gpucalc.occupancy.rows(from_=path, threads=256)] == expected
