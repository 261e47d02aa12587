"""gpucalc.ncu.read(path): a row per kernel, as `gpucalc ncu FILE --format json`."""

import json

import pytest

import gpucalc
from conftest import ROOT, run_cli

REPORTS = ["tests/data/ncu/h200/full-occupancy.txt", "tests/data/ncu/h200/full-gemm.raw.csv", "tests/data/ncu/softmax-sm86.txt"]


@pytest.mark.parametrize("report", REPORTS)
def test_rows_equal_the_cli(report):
    code, out, err = run_cli("ncu", ROOT / report, "--format", "json", "--explain")
    assert code == 0, err
    expected = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    rows = gpucalc.ncu.read(ROOT / report)
    assert len(rows) == len(expected) > 0
    assert [r.to_dict() for r in rows] == expected


def test_a_missing_report_raises_the_cli_line():
    code, _, err = run_cli("ncu", "no-such-report.csv")
    assert code == 2
    with pytest.raises(gpucalc.InputError) as e:
        gpucalc.ncu.read("no-such-report.csv")
    assert "gpucalc: " + str(e.value) == err.strip()
