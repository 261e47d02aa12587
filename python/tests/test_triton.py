"""gpucalc.triton on objects shaped as Triton's (Triton is not installed here): a compiled
kernel's n_regs, metadata.shared, metadata.num_warps and metadata.target (GPUTarget: backend,
arch, warp_size), and triton.Config's num_warps, kwargs and maxnreg."""

from types import SimpleNamespace

import pytest

import gpucalc
import gpucalc.triton as gt


def compiled(n_regs, shared, num_warps, arch=90):
    target = SimpleNamespace(backend="cuda", arch=arch, warp_size=32)
    return SimpleNamespace(n_regs=n_regs, metadata=SimpleNamespace(shared=shared, num_warps=num_warps, target=target))


def config(num_warps, maxnreg=None, **kwargs):
    return SimpleNamespace(kwargs=kwargs, num_warps=num_warps, num_stages=3, num_ctas=1, maxnreg=maxnreg)


def test_occupancy_of_a_compiled_kernel():
    # 8 warps (256 threads) at 33 registers on sm_90: a warp's 1,056 registers are allocated as
    # 1,280, 12 warps a sub-partition of 16,384, 48 an SM: 6 blocks, 75%. Triton's tutorial
    # formula NUM_REGS // (n_regs * WARP_SIZE * num_warps) = 65,536 // 8,448 gives 7.
    r = gt.occupancy(compiled(33, 0, 8))
    assert (r["blocks_per_sm"], r["occupancy"], r["limiter"]) == (6, 0.75, "registers")
    # The next block: 7 blocks are 56 warps, 14 a sub-partition: 16,384 / 14 = 1,170 registers a
    # warp, 1,024 in units of 256: 32 registers a thread.
    assert r["one_more_block.regs"] == 32
    assert gpucalc.profile(r.gpu["key"])["fields"]["compute_capability"]["value"] == "9.0"  # sm_90: a profile of 9.0
    assert dict(r) == dict(gpucalc.occupancy(gpu=r.gpu["key"], threads=256, regs=33, smem=0))


def test_occupancy_with_shared_memory_and_a_named_target():
    # 4 warps, 32 registers, 64 KiB: the A100's SM has 164 KiB (167,936 bytes), 1 KiB reserved a block:
    # 2 x 66,560 = 133,120 <= 167,936 < 3 x 66,560: 2 blocks, 8 warps of 64: 12.5%.
    r = gt.occupancy(compiled(32, 65536, 4, arch=80), target="a100")
    assert (r["blocks_per_sm"], r["limiter"], r["occupancy"]) == (2, "shared_memory", 0.125)
    assert dict(r) == dict(gpucalc.occupancy(gpu="a100", threads=128, regs=32, smem=65536))


def test_older_metadata_as_a_dict():
    kernel = SimpleNamespace(n_regs=64, shared=0, num_warps=4, metadata={"shared": 0, "num_warps": 4})
    assert gt.occupancy(kernel, target="h100")["blocks_per_sm"] == 8  # 64 x 32 x 4 = 8,192 a block: 8 of 65,536


def test_a_kernel_without_registers_is_refused():
    with pytest.raises(gpucalc.InputError):
        gt.occupancy(SimpleNamespace(metadata=SimpleNamespace(shared=0, num_warps=4)))


def test_prune_by_occupancy_and_launchability():
    configs = [config(8, BLOCK=1), config(8, BLOCK=2), config(4, BLOCK=3), config(4, BLOCK=4)]
    regs = {1: 33, 2: 32, 3: 64, 4: 64}
    smem = {1: 0, 2: 0, 3: 0, 4: 240 * 1024}
    prune = gt.prune(min_occupancy="80%", gpu="h100", regs=lambda c: regs[c.kwargs["BLOCK"]],
                     smem=lambda c: smem[c.kwargs["BLOCK"]])
    kept = prune(configs, {})
    # BLOCK 1: 256 threads at 33 registers: 6 blocks, 75% < 80% (the tutorial formula's 7 would be 87.5%).
    # BLOCK 2: 256 threads at 32: 1,024 a warp, 16 warps a sub-partition: 8 blocks, 100%.
    # BLOCK 3: 128 threads at 64: 2,048 a warp, 8 warps a sub-partition: 32 warps, 8 blocks of 4, 50%.
    # BLOCK 4: 240 KiB of shared memory, over the H100's 227 KiB opt-in: cannot launch.
    assert [c.kwargs["BLOCK"] for c in kept] == [2]
    reasons = {d.config.kwargs["BLOCK"]: d for d in prune.report}
    assert reasons[1].result["blocks_per_sm"] == 6 and not reasons[1].kept
    assert reasons[3].result["occupancy"] == 0.5
    assert reasons[4].result is None and reasons[4].reason.startswith("cannot launch: --smem")


def test_prune_keeps_the_best_when_none_meets_the_threshold():
    configs = [config(8, maxnreg=33), config(8, maxnreg=64)]
    kept = gt.prune(min_occupancy=0.9, gpu="h100")(configs, {})
    # maxnreg as the registers: 33 gives 6 blocks of 8 warps (75%), 64 gives 4 (50%).
    assert kept == [configs[0]]


def test_prune_with_compiled_kernels():
    configs = [config(4, BLOCK=64), config(8, BLOCK=128)]
    kernels = {64: compiled(40, 16384, 4), 128: compiled(128, 98304, 8)}
    prune = gt.prune(min_occupancy=0.25, gpu="h100", compile=lambda c, named_args, **kw: kernels[c.kwargs["BLOCK"]])
    kept = prune(configs, {"x": None})
    # 4 warps at 40 registers: 1,280 a warp, 12 warps a sub-partition, 48 warps: 12 blocks by
    # registers; 16 KiB + 1 KiB reserved: 228 KiB / 17 KiB = 13: 12 blocks, 75%.
    # 8 warps at 128 registers: 4,096 a warp, 4 a sub-partition, 16 warps: 2 blocks, 25%.
    assert [d.result["blocks_per_sm"] for d in prune.report] == [12, 2]
    assert kept == configs
