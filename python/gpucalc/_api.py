"""The package's functions, made at import from the engine's command table (gpucalc._gpucalc).

Nothing here computes a model: each call hands the options, as the command line would type
them, to the engine that the command line calls, and wraps what comes back.
"""

import inspect
import json
import keyword
import math
from collections.abc import Mapping, Sequence

from . import _gpucalc


class InputError(ValueError):
    """Bad input: the one-line message the command line prints after ``gpucalc: ``."""


class RequirementError(AssertionError):
    """A requirement that failed: the lines ``--require`` prints (``requirement failed: ...``)."""


_gpucalc.set_input_error(InputError)
InputError.__module__ = RequirementError.__module__ = "gpucalc"

# Options every calculator takes that the package spells its own way: a call is one case
# (batch() is --batch, explain() and the formats are the result's), so only --gpu (and any
# later option of a profile) is a keyword argument.
_NOT_KEYWORDS = {"format", "batch", "sweep", "plot"}


def _keyword(option):
    """An option's name as a keyword argument: underscores for dashes, a Python keyword with one
    after it (from_, pass_)."""
    name = option.replace("-", "_")
    return name + "_" if keyword.iskeyword(name) else name


def _option(key):
    """A keyword argument's option: dashes for underscores, a trailing underscore dropped."""
    return key.rstrip("_").replace("_", "-")


def _text(value):
    """A keyword argument's value as the command line would type it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 2**53:
            return str(int(value))
        return repr(value)
    return str(value)


class Values(Mapping):
    """A case's results by key (the keys of ``--format json``'s "results", dotted where JSON
    nests them: ``limits.registers``), with its inputs and profile."""

    __slots__ = ("calculator", "_results")

    def __getitem__(self, key):
        try:
            return self._results[key]
        except KeyError:
            group = {k[len(key) + 1:]: v for k, v in self._results.items() if k.startswith(key + ".")}
            if group:
                return group
            raise

    def __iter__(self):
        return iter(self._results)

    def __len__(self):
        return len(self._results)

    def __contains__(self, key):
        return key in self._results

    def __eq__(self, other):
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None


class Result(Values):
    """One case, as ``gpucalc CALCULATOR ...`` computes it: a mapping of its results, plus
    ``inputs``, ``notes``, ``gpu``, ``steps`` (the derivation), ``explain()``, ``to_dict()``,
    ``plot()`` and ``require()``."""

    __slots__ = ("_case",)

    def __init__(self, case):
        self._case = case
        self.calculator = case.calculator
        self._results = case.results

    @property
    def inputs(self):
        """The inputs, as --format json's "inputs" (the options read, base units; derived ones)."""
        return self._case.inputs

    @property
    def gpu(self):
        """The profile: {"key", "name", "origin"}, as --format json's "gpu"."""
        key, name, origin = self._case.gpu
        return {"key": key, "name": name, "origin": origin}

    @property
    def notes(self):
        """The notes for people, as --format json's "notes"."""
        return self._case.notes

    @property
    def steps(self):
        """The derivation, a step a line, as --format json --explain's "explain"."""
        return self._case.explain_steps

    def explain(self):
        """What ``--explain`` prints: the text output with the derivation step by step."""
        return self._case.render("text", True)

    def to_dict(self):
        """What ``--format json --explain`` prints, as a dict."""
        return json.loads(self._case.render("json", True))

    def format(self, fmt="text", explain=False):
        """The printout in ``fmt`` (text, json, csv or md), as ``--format`` gives it."""
        return self._case.render(fmt, explain)

    def plot(self):
        """The SVG chart that ``--plot FILE.svg`` writes, as a string."""
        return self._case.chart()

    def require(self, *requirements):
        """Checks each ``KEY OP VALUE`` (``"occupancy>=50%"``) as ``--require`` does; raises
        RequirementError with its lines when one fails (InputError for one it cannot read).
        Returns the result, for chaining."""
        failures = self._case.require([str(r) for r in requirements])
        if failures:
            raise RequirementError("\n".join(failures))
        return self

    def __str__(self):
        return self._case.render("text", False)

    def __repr__(self):
        return self._case.render("text", False).rstrip("\n")

    def _repr_markdown_(self):
        return self._case.render("md", False)


class Row(Values):
    """One row of many (a batch's, a report's kernels), as --format json writes it: its results,
    ``inputs``, ``gpu`` (its key), ``steps`` (the derivation), ``line`` (a batch's CSV line) and
    ``error`` (a row that could not run: the command line's message; the mapping is then empty)."""

    __slots__ = ("_json",)

    def __init__(self, calculator, obj):
        self.calculator = calculator
        self._json = obj
        self._results = _flatten(obj.get("results") or {})

    inputs = property(lambda self: _flatten(self._json.get("inputs") or {}), doc="the row's inputs")
    gpu = property(lambda self: {"key": self._json.get("gpu")}, doc="the row's profile key")
    notes = property(lambda self: list(self._json.get("notes") or ()), doc="the row's notes")
    steps = property(lambda self: list(self._json.get("explain") or ()), doc="the row's derivation")
    line = property(lambda self: self._json.get("line"), doc="the batch's CSV line")
    error = property(lambda self: self._json.get("error"), doc="the row's error message, or None")

    def to_dict(self):
        """The row as ``--format json`` writes it."""
        return dict(self._json)

    def explain(self):
        return "\n".join(f"  {i}. {s}" for i, s in enumerate(self.steps, 1))

    def __repr__(self):
        body = ", ".join(f"{k}={v!r}" for k, v in self._results.items())
        return f"<gpucalc.{self.calculator} row {self.line}: {self.error or body}>"


class Rows(Sequence):
    """A batch's rows, each read from the engine's JSON line when it is first asked for (a
    million rows cost their parse only where they are read)."""

    __slots__ = ("_calculator", "_lines", "_rows")

    def __init__(self, calculator, lines):
        self._calculator = calculator
        self._lines = lines
        self._rows = [None] * len(lines)

    def __len__(self):
        return len(self._lines)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        row = self._rows[i]
        if row is None:
            row = self._rows[i] = Row(self._calculator, json.loads(self._lines[i]))
        return row

    def __repr__(self):
        return f"<gpucalc.{self._calculator} batch: {len(self)} rows>"


def _flatten(obj, prefix=""):
    """JSON's nested objects as dotted keys (limits.registers)."""
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(_flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


class Calculator:
    """A calculator of the command table as a function: keyword arguments are its options
    (underscores for dashes), numbers or strings with units; returns a Result."""

    def __init__(self, spec, common):
        self.name = spec["name"]
        self.__name__ = self.name
        self.__qualname__ = self.name
        self.help = spec["help"]
        self.options = {o["name"]: o for o in spec["options"]}
        self._order = {name: i for i, name in enumerate(self.options)}
        self.results = [key for key, _ in spec["results"]]
        self.chart = spec["chart"]
        self.rows_option = spec["rows_option"]
        self.rows_options = list(spec["rows_options"])
        self._common = [c for c in common if c not in _NOT_KEYWORDS]
        params = [inspect.Parameter(_keyword(n), inspect.Parameter.KEYWORD_ONLY, default=None)
                  for n in list(self.options) + self._common]
        self.__signature__ = inspect.Signature(params)
        lines = [f"{self.help}.", "", f"The command line's `gpucalc {self.name}`. Options:"]
        for o in self.options.values():
            default = f" (default {o['default']})" if o["default"] else ""
            required = " (required)" if o["required"] else ""
            lines.append(f"  {_keyword(o['name'])}: {o['what']}{default}{required}")
        lines.append("  gpu: hardware profile, a name or FILE.toml (default h100)")
        lines += ["", "Result keys: " + ", ".join(self.results)]
        self.__doc__ = "\n".join(lines)
        self.positional = spec["positional"]

    def read(self, path, **kwargs):
        """A calculator that reads a file (ncu's report): a Row per entry of the file
        (``gpucalc.ncu.read("report.csv")``: a row per kernel launch)."""
        if self.positional is None:
            raise AttributeError(f"gpucalc.{self.name} reads no file")
        return self.rows(**{_keyword(self.positional): str(path)}, **kwargs)

    def __repr__(self):
        return f"<gpucalc calculator {self.name}: {self.help}>"

    def _unknown(self, name, value):
        """The command line's message for an option it does not take."""
        args = ["--" + name] if value is True else ["--" + name, _text(value)]
        code, _, err = _gpucalc.program(["gpucalc", self.name, *args])
        line = err.strip().splitlines()[0] if err.strip() else f"{self.name}: unknown option '--{name}'"
        return line[len("gpucalc: "):] if line.startswith("gpucalc: ") else line

    def _split(self, kwargs):
        """Keyword arguments as the engine takes them: the options in declared order, and the
        common options (--gpu)."""
        raw, common = [], []
        for key, value in kwargs.items():
            name = _option(key)
            if name in self._common:
                if value is not None:
                    common.append((name, _text(value)))
                continue
            option = self.options.get(name)
            if option is None:
                raise InputError(self._unknown(name, value))
            if value is None:
                continue
            if option["kind"] == "flag":
                if value is True or (isinstance(value, str) and value == "true"):
                    raw.append((name, ["true"]))
                elif value is not False and value != "false":
                    raise InputError(f"--{name}: a flag takes True or False (got {value!r})")
            elif option["kind"] == "repeated" and isinstance(value, (list, tuple)):
                raw.append((name, [_text(v) for v in value]))
            else:
                raw.append((name, [_text(value)]))
        raw.sort(key=lambda item: self._order[item[0]])
        return raw, common

    def __call__(self, **kwargs):
        raw, common = self._split(kwargs)
        if self.rows_option is not None and self.rows_option == self.positional:
            # A calculator of rows only (ncu): its file makes the rows.
            raise InputError(f"{self.name}: the {self.positional} makes a row per entry: call "
                             f"gpucalc.{self.name}.read(path)")
        for name, _ in raw:
            if name in self.rows_options:
                raise InputError(f"{self.name}: --{name} makes a row per entry: call "
                                 f"gpucalc.{self.name}.rows({_keyword(name)}=...)"
                                 + (f" or gpucalc.{self.name}.read(path)" if name == self.positional else ""))
        return Result(_gpucalc.solve(self.name, raw, common))

    def rows(self, **kwargs):
        """A form of many rows (ncu's report, occupancy's --from): a Row each, as ``--format json``."""
        raw, common = self._split(kwargs)
        _, out, _ = _gpucalc.invoke(self.name, raw, common, "json", True, False, "")
        return [Row(self.name, json.loads(line)) for line in out.splitlines() if line.startswith("{")]

    def batch(self, rows, *, strict=False, errors="raise", **kwargs):
        """Many cases through the engine's --batch, cells handed to it as they are (no CSV or
        JSON text between): ``rows`` a list of dicts (keys: options, and gpu), a dict of columns
        (lists, or numpy arrays) or a pandas DataFrame; keyword arguments apply to every row, as
        options on the command line do. A list gives a list of Row (each ``--format json``'s
        row); columns give the rows' columns as ``--format csv`` has them (line, gpu, inputs,
        results, error): a dict of lists, of numpy arrays where a column came as one, a
        DataFrame for a DataFrame. A bad row raises InputError with the command line's message
        (``errors="keep"``: the row carries it in ``.error``, or the error column)."""
        raw, common = self._split(kwargs)
        if _is_frame(rows) or isinstance(rows, Mapping):
            return self._batch_columns(rows, raw, common, strict, errors)
        rows = list(rows)
        if not rows:
            return Rows(self.name, [])
        if not all(type(r) is dict for r in rows):
            rows = [dict(r) for r in rows]
        keys = _gpucalc.row_keys(rows)
        names = [_option(k) for k in keys]
        code, lines, err = _gpucalc.batch(self.name, raw, common, names, keys, rows, [], [], len(rows),
                                          "json-lines", False, strict)
        _raise_bad_rows(code, err, errors)
        return Rows(self.name, lines)

    def _batch_columns(self, table, raw, common, strict, errors):
        frame = _is_frame(table)
        names, columns, nan_missing = [], [], []
        arrays = frame
        count = None
        for key in table:
            column, missing, array = _column(table[key])
            arrays = arrays or array
            if count is None:
                count = len(column)
            elif len(column) != count:
                raise ValueError(f"batch: column {key!r} has {len(column)} rows, the first {count}")
            names.append(_option(str(key)))
            columns.append(column)
            nan_missing.append(missing)
        code, out, err = _gpucalc.batch(self.name, raw, common, names, [], None, columns, nan_missing,
                                        count or 0, "arrays" if arrays else "columns", False, strict)
        _raise_bad_rows(code, err, errors)
        result = _columns_out(out, arrays)
        if frame:
            import pandas
            return pandas.DataFrame(result)
        return result


def _is_frame(rows):
    return type(rows).__name__ == "DataFrame" and hasattr(rows, "to_csv")


def _column(values):
    """A column as the module takes it: (a list, or a contiguous float64 or int64 array; whether
    a NaN is a missing value; whether it came as an array)."""
    if type(values) is list:
        return values, False, False
    if hasattr(values, "dtype"):  # a numpy array, or a pandas Series
        array = values.to_numpy() if hasattr(values, "to_numpy") else values
        import numpy
        kind = getattr(array.dtype, "kind", "O")
        if kind in "iu":
            return numpy.ascontiguousarray(array, dtype=numpy.int64), True, True
        if kind == "f":
            return numpy.ascontiguousarray(array, dtype=numpy.float64), True, True
        return list(array.tolist()), True, True  # words, bools (true/false), objects
    return list(values), False, False


def _columns_out(columns, arrays):
    """The module's columns as Python's: with `arrays`, those of numbers as numpy arrays (int64
    when every one is a whole number, else float64 with NaN for none); the others, and every
    column without `arrays`, lists of what --format json writes (int, float, str, bool, None)."""
    out = {}
    if arrays:
        import numpy
    for key, numbers, whole, values in columns:
        if values is not None:
            out[key] = values
        else:
            column = numpy.frombuffer(numbers, dtype=numpy.float64)
            out[key] = column.astype(numpy.int64) if whole else column.copy()
    return out


def _raise_bad_rows(code, err, errors):
    if code == 2 and errors == "raise":
        first = err.strip().splitlines()[0] if err.strip() else "a bad row"
        raise InputError(first[len("gpucalc: "):] if first.startswith("gpucalc: ") else first)


def _program(*argv):
    """The command line on argv, its stdout; InputError with its message on exit 2."""
    code, out, err = _gpucalc.program(["gpucalc", *argv])
    if code != 0:
        lines = [line[len("gpucalc: "):] if line.startswith("gpucalc: ") else line for line in err.strip().splitlines()]
        raise InputError("\n".join(lines))
    return out


def profiles():
    """The built-in profiles, as ``gpucalc hw list --format json`` lists them."""
    data = json.loads(_program("hw", "list", "--format", "json"))
    return data.get("profiles", data) if isinstance(data, dict) else data


def profile(name_or_path):
    """One profile (a built-in name or alias, or a FILE.toml), as ``gpucalc hw show NAME --format json``."""
    return json.loads(_program("hw", "show", str(name_or_path), "--format", "json"))


def make_calculators():
    common = _gpucalc.common_text_options()
    return {spec["name"]: Calculator(spec, common) for spec in _gpucalc.calculators()}
