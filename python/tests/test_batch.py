"""calculator.batch(rows): the engine's --batch path; each row equals the single call."""

import json

import pytest

import gpucalc
from conftest import flatten, run_cli

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


# The columnar path: columns in (lists, numpy arrays, a DataFrame's), the rows' columns out, no
# CSV or JSON between; each cell the command line's --batch value for that row and key.
COLUMNS = dict(threads=[256, 128, 256, 1024, 96], regs=[64, 32, 33, 32, 200], smem=["40KB", "64KB", None, None, 0],
               gpu=[None, None, None, "a100", "h200"])
COLUMNS_CSV = "threads,regs,smem,gpu\n256,64,40KB,\n128,32,64KB,\n256,33,,\n1024,32,,a100\n96,200,0,h200\n"


def cli_rows(csv_text, *args):
    code, out, err = run_cli("occupancy", "--batch", "-", "--format", "json", *args, stdin=csv_text)
    return code, [json.loads(line) for line in out.splitlines()], err


def assert_columns_are_cli_rows(columns, rows, types=True):
    """Every key of every CLI row (inputs, results, line, gpu, error) is that row's cell; a key
    the row leaves out is None (or NaN in a float array). `types`: each cell of json's type too
    (lists; an array of float64 holds a whole number as 64.0)."""
    n = len(rows)
    assert all(len(column) == n for column in columns.values())
    for k, row in enumerate(rows):
        expected = {"line": row["line"], "gpu": row["gpu"], "error": row.get("error")}
        expected.update(flatten(row.get("inputs", {})))
        expected.update(flatten(row.get("results", {})))
        for key, column in columns.items():
            got = column[k]
            got = got.item() if hasattr(got, "item") else got
            want = expected.get(key)
            if want is None:
                assert got is None or got != got, (k, key, got)
            else:
                assert got == want and (not types or type(got) is type(want) or isinstance(want, float)), (k, key, got, want)
        assert set(expected) - {"error"} <= set(columns)


def test_columns_are_the_cli_batch():
    code, rows, err = cli_rows(COLUMNS_CSV)
    assert code == 0, err
    out = gpucalc.occupancy.batch(COLUMNS)
    assert_columns_are_cli_rows(out, rows)
    # 256 threads, 64 registers, 40 KiB: 65,536 / (64 x 256) = 4 blocks by registers (h100).
    assert out["blocks_per_sm"][0] == 4 and out["limiter"][0] == "registers"
    assert all(isinstance(v, list) for v in out.values())


def test_columns_equal_the_rows_form():
    rows = gpucalc.occupancy.batch(ROWS)
    out = gpucalc.occupancy.batch(COLUMNS)
    for k, row in enumerate(rows):
        for key, value in row.items():
            assert out[key][k] == value or (value is None and out[key][k] is None), (k, key)


def test_numpy_columns_give_arrays():
    numpy = pytest.importorskip("numpy")
    code, rows, err = cli_rows("threads,regs,carveout\n" + "".join(f"{t},{r},{c}\n" for t, r, c in
                                                                  [(256, 64, 50), (128, 40, 100), (1024, 16, 0)]))
    assert code == 0, err
    out = gpucalc.occupancy.batch(dict(threads=numpy.array([256, 128, 1024]), regs=numpy.array([64.0, 40.0, 16.0]),
                                       carveout=[50, 100, 0]))
    assert out["blocks_per_sm"].dtype == numpy.int64 and out["occupancy"].dtype == numpy.float64
    assert_columns_are_cli_rows(out, rows, types=False)


def test_a_dataframe_gives_a_dataframe_of_the_cli_columns():
    pandas = pytest.importorskip("pandas")
    code, out_csv, err = run_cli("occupancy", "--batch", "-", "--format", "csv", stdin=COLUMNS_CSV)
    assert code == 0, err
    header = out_csv.splitlines()[0].split(",")
    frame = gpucalc.occupancy.batch(pandas.DataFrame(COLUMNS))
    assert list(frame.columns) == header  # --format csv's columns, in its order
    _, rows, _ = cli_rows(COLUMNS_CSV)
    assert_columns_are_cli_rows({k: list(frame[k]) for k in frame.columns}, rows, types=False)


def test_a_bad_cell_in_a_column_is_the_cli_message():
    columns = dict(threads=[256, 64], regs=[32, "x"])
    code, rows, err = cli_rows("threads,regs\n256,32\n64,x\n")
    assert code == 2
    with pytest.raises(gpucalc.InputError) as e:
        gpucalc.occupancy.batch(columns)
    assert "gpucalc: " + str(e.value) == err.strip()
    kept = gpucalc.occupancy.batch(columns, errors="keep")
    assert_columns_are_cli_rows(kept, rows)
    assert kept["error"] == [None, err.strip().removeprefix("gpucalc: ")]


def test_columns_of_other_lengths_are_refused():
    with pytest.raises(ValueError):
        gpucalc.occupancy.batch(dict(threads=[256, 128], regs=[32]))


def test_a_nan_in_a_dataframe_is_an_empty_cell():
    pandas = pytest.importorskip("pandas")
    # smem as floats with a NaN: row 1 takes --smem's default (0), as DataFrame.to_csv's empty cell does.
    frame = pandas.DataFrame(dict(threads=[256, 256], regs=[64, 64], smem=[40960.0, float("nan")]))
    code, rows, err = cli_rows("threads,regs,smem\n256,64,40960\n256,64,\n")
    assert code == 0, err
    out = gpucalc.occupancy.batch(frame)
    assert_columns_are_cli_rows({k: list(out[k]) for k in out.columns}, rows, types=False)
    # 256 threads at 64 registers: 65,536 / (64 x 256) = 4 blocks by registers either way; a block's
    # shared memory is its own plus the 1 KiB the h100 reserves a block: 40,960 + 1,024 and 0 + 1,024.
    assert list(out["blocks_per_sm"]) == [4, 4] and list(out["shared_memory_per_block"]) == [41984, 1024]
