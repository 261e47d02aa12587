"""The pytest suite of the Python package: each answer against the command line's own
(build/gpucalc, or $GPUCALC_CLI), which scripts/test builds before it runs this suite."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = pathlib.Path(os.environ.get("GPUCALC_CLI", ROOT / "build" / "gpucalc"))


def run_cli(*args, stdin=None):
    """The command line's (exit code, stdout, stderr)."""
    if not CLI.exists():
        pytest.fail(f"{CLI} is missing: build the command line first (scripts/test does)")
    p = subprocess.run([str(CLI), *map(str, args)], input=stdin, capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    code, out, err = run_cli(*args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def flatten(obj, prefix=""):
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def cli_args(kwargs):
    """Keyword arguments as command-line options (what the package hands the engine)."""
    args = []
    for k, v in kwargs.items():
        flag = "--" + k.rstrip("_").replace("_", "-")
        if v is True:
            args.append(flag)
        else:
            args += [flag, str(v)]
    return args
