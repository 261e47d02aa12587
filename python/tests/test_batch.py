"""calculator.batch(rows): the engine's --batch path; each row equals the single call."""

import json

import pytest

import gpucalc
from conftest import run_cli

ROWS = [
    dict(threads=256, regs=64, smem="40KB"),
    dict(threads=128, regs=32, smem="64KB"),
    dict(threads=256, regs=33),
    dict(threads=1024, regs=32, gpu="a100"),
    dict(threads=96, regs=200, smem=0, gpu="h200"),
]


def test_batch_rows_equal_single_calls():
    rows = gpucalc.occupancy.batch(ROWS)
    assert len(rows) == len(ROWS)
    for kwargs, row in zip(ROWS, rows):
        single = gpucalc.occupancy(**kwargs)
        assert dict(row) == dict(single)
        assert row.inputs == single.inputs
        assert row.gpu["key"] == single.gpu["key"]


def test_batch_is_the_cli_batch():
    csv = "threads,regs,smem,gpu\n256,64,40KB,\n128,32,64KB,\n256,33,,\n1024,32,,a100\n96,200,0,h200\n"
    code, out, err = run_cli("occupancy", "--batch", "-", "--format", "json", stdin=csv)
    assert code == 0, err
    expected = [json.loads(line) for line in out.splitlines()]
    assert [r.to_dict() for r in gpucalc.occupancy.batch(ROWS)] == expected


def test_batch_options_apply_to_every_row():
    rows = gpucalc.occupancy.batch([dict(threads=t) for t in (64, 128, 256)], regs=64, gpu="h200")
    for t, row in zip((64, 128, 256), rows):
        assert dict(row) == dict(gpucalc.occupancy(threads=t, regs=64, gpu="h200"))


def test_batch_bad_row_raises_the_cli_message():
    rows = [dict(threads=256, regs=32), dict(threads=64, regs="x")]
    code, _, err = run_cli("occupancy", "--batch", "-", stdin="threads,regs\n256,32\n64,x\n")
    assert code == 2
    with pytest.raises(gpucalc.InputError) as e:
        gpucalc.occupancy.batch(rows)
    assert "gpucalc: " + str(e.value) == err.strip()
    kept = gpucalc.occupancy.batch(rows, errors="keep")
    assert kept[0]["blocks_per_sm"] == 8 and kept[1].error == err.strip().removeprefix("gpucalc: ")


def test_batch_of_other_calculators():
    rows = [dict(blocks=b, blocks_per_sm=1) for b in (132, 133, 265)]
    for kwargs, row in zip(rows, gpucalc.waves.batch(rows)):
        assert dict(row) == dict(gpucalc.waves(**kwargs))
    # 265 blocks, one an SM of 132: 3 waves, the last 1 block (1/132 = 0.76%).
    assert gpucalc.waves.batch(rows)[2]["waves"] == 3


def test_batch_of_a_dataframe():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame([dict(threads=256, regs=64, smem="40KB"), dict(threads=128, regs=32, smem="64KB")])
    out = gpucalc.occupancy.batch(frame)
    assert list(out["blocks_per_sm"]) == [4, 3]
    assert list(out["limiter"]) == ["registers", "shared_memory"]


def test_an_empty_batch_is_no_rows():
    assert len(gpucalc.occupancy.batch([])) == 0
