"""Issue 38: gpucalc's expected times beside what the GPU ran (scripts/probes/expect38.py's JSON).

For each row of expect38.json, the gpucalc command that predicts it (built from the row's own
parameters), its expected key, its bound, the measured time, measured / expected, and the verdict
by the issue's criteria: within 15% of the expected time where the case ran at least 50 us, within
30% below that, and never faster than the bound. With --predict, it takes only the cases'
parameters from the JSON (an earlier run's, on any GPU) and prints the commands and their expected
times for GPU: the predictions, to commit before a run on that GPU. With --predictions FILE (such
a table, committed earlier), each case's expected time is the one FILE holds, not what gpucalc says
now: the verdicts of predictions made by an earlier model. Several JSON files are read as one run.

Usage: python3 compare38.py GPUCALC GPU expect38.json [more.json ...] [--predict | --predictions FILE]
(a Markdown table on stdout)
"""
import json
import subprocess
import sys

DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16", "bf16": "bf16"}


def command(row):
    """(gpucalc arguments, expected key, bound) for a row of expect38.json."""
    calc = row["calc"]
    if calc == "fusion":
        mode = row["mode"]
        args = ["fusion", "--preset", row["chain"], "--ops", ",".join(row["ops"]), "--n", str(row["n"]),
                "--dtype", DTYPES[row["dtype"]], "--launch", "graph" if mode.endswith("graph") else "eager"]
        fused = mode.startswith("compiled")
        side = "fused" if fused else "unfused"
        # the lesson's time counts a host launch of 3.6 us a kernel: a bound of eager runs only; a
        # graph's kernels are bounded by their bytes at the datasheet's bandwidth
        bound = f"{side}_memory_time" if mode.endswith("graph") else f"{side}_time"
        return args, f"expected_{side}_time", [bound]
    if calc == "norm":
        # one kernel in PyTorch 2.11 eager (F.rms_norm, F.layer_norm, softmax) and compiled alike
        args = ["fusion", "--preset", row["kind"], "--rows", str(row["rows"]), "--cols", str(row["cols"]), "--dtype", "bf16"]
        return args, "expected_fused_time", ["fused_time"]
    if calc == "tiling":
        args = ["tiling", "--m", str(row["m"]), "--n", str(row["n"]), "--k", str(row["k"]), "--dtype", DTYPES[row["dtype"]]]
        return args, "expected_gemm_time", ["compute_time", "min_time"]
    if calc == "attention":
        args = ["attention", "--batch-size", str(row["batch"]), "--heads", str(row["heads"]), "--head-dim", str(row["head_dim"]),
                "--impl", "fa2" if row["impl"] == "flash" else "fa3"]
        if row["q_len"] == row["seq"]:
            args += ["--seq", str(row["seq"])]
        else:
            args += ["--seq-q", str(row["q_len"]), "--seq-kv", str(row["seq"])]
        if row["causal"]:
            args.append("--causal")
        return args, "expected_time", ["time"]
    if calc == "decode":
        args = ["decode", "--model", row["model"], "--batch-size", str(row["batch_size"]), "--launch", row["launch"]]
        if "prefill" in row:
            # prefill_time is one sequence's: the bound of a batch is batch x it (the FLOPs at the peak)
            return args + ["--prefill", str(row["prefill"])], "expected_prefill_time", [("prefill_time", row["batch_size"])]
        return args + ["--context", str(row["context"])], "expected_step_time", ["step_time"]
    raise ValueError(f"unknown calc {calc}")


def gpucalc(binary, gpu, args):
    out = subprocess.run([binary, *args, "--gpu", gpu, "--format", "json"], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise RuntimeError(f"gpucalc {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)["results"]


def bound_of(results, keys):
    best = 0.0
    for key in keys:
        name, times = key if isinstance(key, tuple) else (key, 1)
        if results.get(name) is not None:
            best = max(best, results[name] * times)
    return best


def us(seconds):
    return f"{seconds * 1e6:.2f}"


def committed(path, gpu):
    """{(set, case): expected seconds} from the rows of a --predict table made for GPU."""
    table = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 5 and cells[3][:1].isdigit() and cells[2].endswith(f"--gpu {gpu}`"):
                table[(cells[0], cells[1])] = float(cells[3]) * 1e-6
    return table


def main():
    binary, gpu, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    predict = "--predict" in rest
    earlier = None
    if "--predictions" in rest:
        i = rest.index("--predictions")
        earlier = committed(rest[i + 1], gpu)
        del rest[i:i + 2]
    files = [a for a in rest if a != "--predict"]
    runs = [json.load(open(f)) for f in files]
    data = {"info": runs[0]["info"], "rows": [row for run in runs for row in run["rows"]]}
    if predict:
        print(f"Predictions for gpucalc --gpu {gpu} (the cases' parameters from {data['info']['gpu']}'s run)\n")
        print("| set | case | gpucalc command | expected (us) | bound (us) |")
        print("| --- | --- | --- | ---: | ---: |")
        for row in data["rows"]:
            args, key, bounds = command(row)
            r = gpucalc(binary, gpu, args)
            e = r.get(key)
            print(f"| {row['set']} | {row['case']} | `gpucalc {' '.join(args)} --gpu {gpu}` | {us(e) if e is not None else ''} | "
                  f"{us(bound_of(r, bounds))} |")
        return
    print(f"GPU of the run: {data['info']['gpu']} ({data['info']['date']}); gpucalc --gpu {gpu}"
          + (", expected times as committed earlier" if earlier is not None else "") + "\n")
    print("| set | case | gpucalc command | expected (us) | bound (us) | measured (us) | measured / expected | verdict |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    tally = {}
    for row in data["rows"]:
        args, key, bounds = command(row)
        r = gpucalc(binary, gpu, args)
        expected, bound, measured = r.get(key), bound_of(r, bounds), row["seconds"]
        if earlier is not None:
            expected = earlier.get((row["set"], row["case"]))
        if expected is None:
            verdict, ratio = "no expected time", ""
        else:
            ratio = measured / expected
            tolerance = 0.15 if measured >= 50e-6 else 0.30
            if measured < bound:
                verdict = "FASTER THAN THE BOUND"
            elif abs(ratio - 1) <= tolerance:
                verdict = f"within {tolerance:.0%}"
            else:
                verdict = f"miss (over {tolerance:.0%})"
            ratio = f"{ratio:.3f}"
        t = tally.setdefault(row["set"], [0, 0])
        t[0] += verdict.startswith("within")
        t[1] += 1
        print(f"| {row['set']} | {row['case']} | `gpucalc {' '.join(args)} --gpu {gpu}` | "
              f"{us(expected) if expected is not None else ''} | {us(bound)} | {us(measured)} | {ratio} | {verdict} |")
    print()
    for group, (ok, n) in tally.items():
        print(f"{group}: {ok} of {n} within the issue's tolerance")


if __name__ == "__main__":
    main()
