"""A million occupancy rows through gpucalc.occupancy.batch, in each form the package takes,
beside the command line's --batch on the same rows (issue 39: at least 500k rows/s).

    .venv-py/bin/python python/bench/batch.py [ROWS] [RUNS]     (scripts/python-test makes .venv-py)

The rows are scripts/bench's occupancy formula (threads 32 to 1,024, registers 16 to 128, shared
memory 0 to 100 KiB), row i for i in 0..ROWS-1. Each time is the best of RUNS (default 3) of the
whole call: the columns or dicts handed over, every row run by the engine, the results made as
Python objects. The command line is timed as a process (`gpucalc occupancy --batch FILE --format
csv|json`, the CSV written to a file first; build/gpucalc, or $GPUCALC_CLI). CPU time (user + sys of
this process or the child) is given beside wall time: on a shared machine it moves less.
"""

import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import gpucalc

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("GPUCALC_CLI", str(ROOT / "build" / "gpucalc"))


def columns(n):
    """scripts/bench's occupancy rows as lists."""
    return {
        "threads": [32 * (1 + (i * 7) % 32) for i in range(n)],
        "regs": [16 + (i * 13) % 113 for i in range(n)],
        "smem": [1024 * ((i * 29) % 101) for i in range(n)],
    }


def cpu(who=resource.RUSAGE_SELF):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def best(runs, f):
    """(wall, cpu) seconds, the best of `runs` calls of f, and the last result."""
    walls, cpus, out = [], [], None
    for _ in range(runs):
        out = None
        c0, t0 = cpu(), time.perf_counter()
        out = f()
        walls.append(time.perf_counter() - t0)
        cpus.append(cpu() - c0)
    return min(walls), min(cpus), out


def cli(path, runs, fmt):
    walls, cpus = [], []
    for _ in range(runs):
        c0, t0 = cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run([CLI, "occupancy", "--batch", path, "--format", fmt], check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
        cpus.append(cpu(resource.RUSAGE_CHILDREN) - c0)
    return min(walls), min(cpus)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    lists = columns(n)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.csv")
        with open(path, "w") as f:
            f.write("threads,regs,smem\n")
            f.writelines(f"{t},{r},{s}\n" for t, r, s in zip(lists["threads"], lists["regs"], lists["smem"]))
        for fmt in ("csv", "json"):
            results.append((f"`gpucalc occupancy --batch FILE --format {fmt}` (a process)", *cli(path, runs, fmt)))
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        arrays = {k: numpy.asarray(v, dtype=numpy.int64) for k, v in lists.items()}
        wall, cpu_s, out = best(runs, lambda: gpucalc.occupancy.batch(arrays))
        assert len(out["blocks_per_sm"]) == n and out["error"].count(None) == n
        results.append(("`occupancy.batch({column: numpy array})`, a dict of arrays back", wall, cpu_s))
        try:
            import pandas
        except ImportError:
            pandas = None
        if pandas is not None:
            frame = pandas.DataFrame(arrays)
            wall, cpu_s, out = best(runs, lambda: gpucalc.occupancy.batch(frame))
            assert len(out) == n
            results.append(("`occupancy.batch(DataFrame)`, a DataFrame back", wall, cpu_s))
    wall, cpu_s, out = best(runs, lambda: gpucalc.occupancy.batch(lists))
    assert len(out["occupancy"]) == n
    results.append(("`occupancy.batch({column: list})`, a dict of lists back", wall, cpu_s))
    dicts = [dict(threads=t, regs=r, smem=s) for t, r, s in zip(lists["threads"], lists["regs"], lists["smem"])]
    wall, cpu_s, out = best(runs, lambda: gpucalc.occupancy.batch(dicts))
    assert len(out) == n
    results.append(("`occupancy.batch([dict, ...])`, rows back (each --format json's, parsed when read)", wall, cpu_s))
    print(f"{n:,} occupancy rows, best of {runs}; Python {sys.version.split()[0]}, numpy "
          f"{numpy.__version__ if numpy else 'absent'}")
    print("| what | wall | rows/s (wall) | CPU | rows/s (CPU) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for what, wall, cpu_s in results:
        print(f"| {what} | {wall:.2f} s | {n / wall:,.0f} | {cpu_s:.2f} s | {n / max(cpu_s, 1e-9):,.0f} |")


if __name__ == "__main__":
    main()
