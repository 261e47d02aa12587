"""docs/python.md's examples run: each ```python block (but the Triton recipe, which needs a GPU
and Triton), and each ```pycon block's call raises what the page says."""

import re

import pytest

import gpucalc
from conftest import ROOT

PAGE = (ROOT / "docs" / "python.md").read_text()
BLOCKS = re.findall(r"```(python|pycon)\n(.*?)```", PAGE, re.S)


def test_the_page_has_examples():
    assert sum(1 for kind, _ in BLOCKS if kind == "python") >= 2
    assert any(kind == "pycon" for kind, _ in BLOCKS)


@pytest.mark.parametrize("code", [c for k, c in BLOCKS if k == "python" and "import torch" not in c])
def test_python_blocks_run(code, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, "docs/python.md", "exec"), {"gpucalc": gpucalc})


@pytest.mark.parametrize("code", [c for k, c in BLOCKS if k == "pycon"])
def test_pycon_blocks_say_what_happens(code):
    lines = code.strip().splitlines()
    call, said = lines[0].removeprefix(">>> "), lines[1]
    kind, message = said.split(": ", 1)
    with pytest.raises(getattr(gpucalc, kind.removeprefix("gpucalc."))) as e:
        eval(call, {"gpucalc": gpucalc})
    assert str(e.value) == message
