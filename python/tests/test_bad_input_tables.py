"""Every bad-input case of the C++ tables (tests/cli/bad_input_all_test.cc, bad_input_test.cc,
bad_input_access_test.cc), read from those files at test time, run through the module: each
raises gpucalc.InputError with the line the command line prints for it (run here for each case).

Cases that cannot be a Python call are counted by reason and their reasons held to a known
list (CANNOT): an option typed without its value, a subcommand that is no calculator (hw, a
misspelt name), and the options the package spells otherwise (--format, --batch, --sweep,
--plot, --explain, --strict: a call is one case; results have format() and plot()).
--require is a call's .require() (not of a rows form: ROWS_REQUIRE); a rows form (occupancy
--from, ncu's report) is .rows().
"""

import ast
import collections
import re
import shlex

import pytest

import gpucalc
from conftest import ROOT, run_cli

CLI_TABLES = ROOT / "tests" / "cli"
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def literal(text):
    """A C++ string literal's body as its text (the escapes these tables use are Python's too)."""
    return ast.literal_eval('"' + text + '"')


def read_tables():
    """[(file:line, argv)] of every table row: {{"a", "b"}, ...} rows, and the access table's
    {"a b", "--opt"} rows (a shell-quoted command line)."""
    cases = []
    row = re.compile(r'\{\{((?:\s*"(?:[^"\\]|\\.)*"\s*,?)+)\}\s*,\s*"')  # a row may span lines
    for name in ("bad_input_all_test.cc", "bad_input_test.cc"):
        text = (CLI_TABLES / name).read_text()
        for m in row.finditer(text):
            number = text.count("\n", 0, m.start()) + 1
            cases.append((f"{name}:{number}", [literal(s) for s in STRING.findall(m.group(1))]))
    text = (CLI_TABLES / "bad_input_access_test.cc").read_text()
    body = text[text.index("bad_inputs()"):]
    body = body[:body.index("};")]
    for number, line in enumerate(body.splitlines(), text[:text.index("bad_inputs()")].count("\n") + 1):
        m = re.match(r'\s*\{"((?:[^"\\]|\\.)*)",\s*"--', line)
        if m:
            cases.append((f"bad_input_access_test.cc:{number}", shlex.split(literal(m.group(1)))))
    return cases


CASES = read_tables()

# What a case can be in Python, or why it cannot be.
NO_CALCULATOR = "not a calculator (hw, a misspelt subcommand): no function of the package"
NO_VALUE = "an option typed without its value: a keyword argument always has one"
NOT_KEYWORD = "an option the package spells otherwise (--format, --batch, --sweep, --plot, --explain, --strict)"
TWICE = "an option given twice: a keyword argument is given once"
ROWS_REQUIRE = "--require on a form of rows (ncu's report, --from): rows() gives rows, which have no require()"
CANNOT = {NO_CALCULATOR, NO_VALUE, NOT_KEYWORD, TWICE, ROWS_REQUIRE}
OTHERWISE = {"format", "batch", "sweep", "plot", "explain", "strict"}


def as_call(argv):
    """(calculator, keyword arguments, requirements) for argv, or the reason it is no call."""
    if not argv or argv[0] not in gpucalc.calculators:
        return NO_CALCULATOR
    calc = getattr(gpucalc, argv[0])
    kwargs, requirements, i = {}, [], 1
    while i < len(argv):
        token = argv[i]
        if not token.startswith("--") or token == "--":
            if calc.positional is None or calc.positional in {k.replace("_", "-") for k in kwargs}:
                return NO_CALCULATOR if calc.positional is None else TWICE
            kwargs[calc.positional.replace("-", "_")] = token
            i += 1
            continue
        name, eq, value = token[2:].partition("=")
        option = calc.options.get(name)
        if name in OTHERWISE:
            return NOT_KEYWORD
        if option is not None and option["kind"] == "flag" and not eq:
            value, i = True, i + 1
        elif eq:
            i += 1
        elif i + 1 < len(argv) and not (argv[i + 1].startswith("--") and len(argv[i + 1]) > 2):
            value, i = argv[i + 1], i + 2
        elif option is None and name not in ("gpu", "sms", "require"):
            value, i = True, i + 1  # an unknown option alone: the command line names it
        else:
            return NO_VALUE
        if name == "require":
            requirements.append(value)
            continue
        key = name.replace("-", "_")
        key = key + "_" if key in ("from", "pass") else key
        if key in kwargs:
            if option is not None and option["kind"] == "repeated":
                kwargs[key] = (kwargs[key] if isinstance(kwargs[key], list) else [kwargs[key]]) + [value]
                continue
            return TWICE
        kwargs[key] = value
    given = {k.rstrip("_").replace("_", "-") for k in kwargs}
    if requirements and given & set(calc.rows_options):
        return ROWS_REQUIRE
    return argv[0], kwargs, requirements


def call(name, kwargs, requirements):
    calc = getattr(gpucalc, name)
    given = {k.rstrip("_").replace("_", "-") for k in kwargs}
    if given & set(calc.rows_options):
        return calc.rows(**kwargs)
    result = calc(**kwargs)
    if requirements:
        result.require(*requirements)
    return result


def test_the_tables_are_read():
    # Each table's rows as the parser read them equal the rows a line count finds in its file (a
    # row opens with `{{"` on its own line, as `grep -c '^ *{{"'` counts them), and the access table's.
    per_file = collections.Counter(where.split(":")[0] for where, _ in CASES)
    for name in ("bad_input_all_test.cc", "bad_input_test.cc"):
        text = (ROOT / "tests" / "cli" / name).read_text()
        opened = sum(1 for line in text.splitlines() if line.lstrip().startswith('{{"'))
        assert per_file[name] == opened > 50, name
    assert per_file["bad_input_access_test.cc"] > 50


@pytest.mark.parametrize("where,argv", CASES, ids=[w for w, _ in CASES])
def test_every_bad_input_case_raises_the_cli_line(where, argv):
    call_or_reason = as_call(argv)
    if isinstance(call_or_reason, str):
        assert call_or_reason in CANNOT
        pytest.skip(call_or_reason)
    code, out, err = run_cli(*argv)
    assert code == 2, (argv, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpucalc: ")
    with pytest.raises(gpucalc.InputError) as e:
        call(*call_or_reason)
    assert str(e.value) == lines[0][len("gpucalc: "):]
