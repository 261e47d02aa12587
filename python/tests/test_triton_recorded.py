"""gpucalc.triton against the driver, on real Triton kernels compiled on a GPU machine: Triton's
tutorial matmul and fused softmax under configurations like the tutorials' autotune lists
(scripts/probes/triton39.py, run by scripts/device-triton39; the recorded rows and the run's GPU
in docs/device-runs/issue39-triton/). Each row holds what Triton's compiled kernel carried
(n_regs, metadata.shared, num_warps, target arch) and what cuOccupancyMaxActiveBlocksPerMultiprocessor
said for it: gpucalc's blocks per SM must equal the driver's, and the pruner must keep exactly the
configurations whose driver-measured occupancy meets the threshold."""

import json
import types

import pytest

import gpucalc
from conftest import ROOT

RUN = ROOT / "docs" / "device-runs" / "issue39-triton" / "triton39.json"
DATA = json.loads(RUN.read_text())
ROWS = [r for r in DATA["rows"] if "error" not in r and isinstance(r.get("blocks_per_sm"), int)]


def row_id(r):
    shape = f"{r['BM']}x{r['BN']}x{r['BK']}" if r["kernel"] == "matmul" else str(r["BLOCK"])
    return f"{r['kernel']} {shape} s{r['num_stages']} w{r['num_warps']}"


def test_the_run_has_kernels_of_both_kinds():
    kinds = {r["kernel"] for r in ROWS}
    assert kinds == {"matmul", "softmax"}
    assert len(ROWS) >= 20


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_blocks_per_sm_equal_the_drivers(row):
    r = gpucalc.triton.occupancy(regs=row["n_regs"], smem=row["shared"], num_warps=row["num_warps"], target=row["arch"])
    assert r["blocks_per_sm"] == row["blocks_per_sm"]


@pytest.mark.parametrize("threshold", [0.125, 0.25, 0.5])
def test_prune_keeps_exactly_the_configs_the_driver_puts_at_the_threshold(threshold):
    configs = [types.SimpleNamespace(kwargs={}, num_warps=r["num_warps"], num_stages=r["num_stages"], row=r) for r in ROWS]
    prune = gpucalc.triton.prune(threshold, gpu=ROWS[0]["arch"], regs=lambda c: c.row["n_regs"], smem=lambda c: c.row["shared"])
    kept = prune(configs)
    # the driver's occupancy: resident warps over the SM's 64 (2,048 threads on sm_90)
    measured = [c for c in configs if c.row["blocks_per_sm"] * c.row["num_warps"] / 64 >= threshold]
    if measured:
        assert [c.row for c in kept] == [c.row for c in measured]


FAILED = [r for r in DATA["rows"] if "OutOfResources" in r.get("error", "")]


@pytest.mark.parametrize("row", FAILED, ids=row_id)
def test_a_config_triton_refused_for_shared_memory_is_pruned_as_unlaunchable(row):
    # Triton's own message gives the shared memory the config asked for ("Required: N, Hardware
    # limit: 232448": the opt-in limit, the profile's shared_memory_per_block_optin)
    required = int(row["error"].split("Required: ")[1].split(",")[0])
    config = types.SimpleNamespace(kwargs={}, num_warps=row["num_warps"], num_stages=row["num_stages"])
    prune = gpucalc.triton.prune(0.0, gpu="90", regs=lambda c: 128, smem=lambda c: required)
    prune([config])
    (decision,) = prune.report
    assert not decision.kept and decision.reason.startswith("cannot launch")
