#!/usr/bin/env python3
"""The parameters of one of expect38.py's sets, without a GPU or PyTorch: expect38 is imported with
torch stubbed out, nothing is timed, and each case's parameters go to OUT.json in expect38's
format (the cases.json that a set's predictions are made from, before any run).

Usage: python3 expect38_cases.py OUT.json SET     (then: compare38.py GPUCALC GPU OUT.json --predict)
"""
import json
import os
import sys
from unittest import mock


class DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


def main():
    out, name = sys.argv[1], sys.argv[2]
    torch = mock.MagicMock()
    torch.bfloat16, torch.float32, torch.float16 = DType("bfloat16"), DType("float32"), DType("float16")
    sys.modules.update({"torch": torch, "torch.nn": torch.nn, "torch.nn.functional": torch.nn.functional})
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import expect38
    expect38.graphed = lambda fn: fn
    expect38.timed = lambda fn: (0.0, 0.0, 0.0)
    expect38.SETS[name]()
    rows = [{k: v for k, v in r.items() if k not in ("seconds", "min", "max")} for r in expect38.rows]
    info = {"gpu": f"none: {name}'s parameters, written from scripts/probes/expect38.py before any run"}
    with open(out, "w") as f:
        json.dump({"info": info, "rows": rows}, f, indent=1)
    print(f"{len(rows)} cases of {name} in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
