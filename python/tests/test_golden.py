"""tests/golden (the command line's whole outputs, byte for byte): each golden case that is one
calculator call of plain options, made through the package, gives the same printout (exit 0) or
raises InputError with the same line (exit 2)."""

import shlex

import pytest

import gpucalc
from conftest import ROOT

GOLDEN = ROOT / "tests" / "golden"
# What the package spells otherwise (batch(), no sweep, plot() without a file, require()).
NOT_A_CALL = {"--batch", "--sweep", "--plot", "--require", "--strict", "--from", "--help"}


def golden_calls():
    codes = dict(line.split() for line in (GOLDEN / "exit-codes.txt").read_text().splitlines() if line.strip())
    for line in (GOLDEN / "cases.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, command = line.split(None, 1)
        if any(c in command for c in "<|>$`"):
            continue
        words = shlex.split(command)
        calc = getattr(gpucalc, words[0], None) if words[0] in gpucalc.calculators else None
        if calc is None or calc.rows_option is not None and calc.rows_option == calc.positional:
            continue
        kwargs, fmt, explain, plain = {}, "text", False, True
        i = 1
        while i < len(words):
            word = words[i]
            if not word.startswith("--") or "=" in word or word in NOT_A_CALL:
                plain = False
                break
            option = word[2:]
            if option == "explain":
                explain = True
            elif option == "format":
                fmt = words[i + 1]
                i += 1
            elif option in calc.options and calc.options[option]["kind"] == "flag":
                kwargs[option] = True
            elif i + 1 < len(words) and option not in kwargs:
                kwargs[option] = words[i + 1]
                i += 1
            else:
                plain = False
                break
            i += 1
        if plain and codes.get(name) in ("0", "2"):
            yield pytest.param(name, words[0], kwargs, fmt, explain, int(codes[name]), id=name)


CALLS = list(golden_calls())


def test_golden_calls_cover_every_calculator():
    assert {c.values[1] for c in CALLS} >= set(gpucalc.calculators) - {"ncu"}
    assert sum(1 for c in CALLS if c.values[5] == 2) >= 5  # refusals too


@pytest.mark.parametrize("name,calculator,kwargs,fmt,explain,code", CALLS)
def test_golden(name, calculator, kwargs, fmt, explain, code):
    calc = getattr(gpucalc, calculator)
    kwargs = {k.replace("-", "_"): v for k, v in kwargs.items()}
    if code == 0:
        assert calc(**kwargs).format(fmt, explain) == (GOLDEN / f"{name}.out").read_text()
    else:
        with pytest.raises(gpucalc.InputError) as e:
            calc(**kwargs).format(fmt, explain)
        assert "gpucalc: " + str(e.value) + "\n" == (GOLDEN / f"{name}.err").read_text()
