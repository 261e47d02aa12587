"""gpucalc's exact occupancy for Triton kernels, and a pruner for Triton's autotuner.

Triton itself is not imported: these functions read the attributes Triton's objects carry
(names as in triton-lang/triton, read there):

- a compiled kernel (``triton.compiler.CompiledKernel``, what ``kernel.warmup(...)`` or a launch
  returns): ``n_regs`` (registers per thread, set once its binary is loaded: ``_init_handles()``),
  ``metadata.shared`` (bytes of shared memory the launch asks for), ``metadata.num_warps`` and
  ``metadata.target`` (``triton.backends.compiler.GPUTarget``: ``backend``, ``arch`` (90 for
  compute capability 9.0), ``warp_size``); older releases kept ``shared`` and ``num_warps`` on
  the kernel itself and ``metadata`` as a dict, which are read too;
- an autotuner configuration (``triton.Config``, python/triton/runtime/autotuner.py):
  ``kwargs``, ``num_warps``, ``num_stages``, ``num_ctas``, ``maxnreg``; its ``early_config_prune``
  is called as ``early_config_prune(configs, named_args, **kwargs)`` and returns the configs to
  benchmark (at least one).
"""

import inspect

from ._api import InputError

_UNSET = object()


def _get(obj, name, default=_UNSET):
    """obj.name, or obj[name] for a dict (older metadata)."""
    if isinstance(obj, dict):
        if name in obj:
            return obj[name]
    elif obj is not None and hasattr(obj, name):
        return getattr(obj, name)
    if default is _UNSET:
        raise AttributeError(name)
    return default


def _cc_of(arch):
    """A GPUTarget's arch (90, "90", "sm_90a") as a compute capability "9.0"."""
    text = str(arch).lower().removeprefix("sm_").rstrip("af")
    if not text.isdigit() or len(text) < 2:
        raise InputError(f"target: '{arch}' is not a CUDA architecture: expected a GPUTarget arch such as 90 (sm_90)")
    return f"{text[:-1]}.{text[-1]}"


def profile_for(target):
    """The profile to use for ``target``: a profile name or FILE.toml as given; a GPUTarget, or
    its arch (90), or a compute capability ("9.0"): the first built-in profile of that compute
    capability (gpucalc hw list), whose per-SM limits are those of every GPU of it."""
    from . import profiles

    if target is None:
        return "h100"
    arch = _get(target, "arch", None)
    if arch is None and isinstance(target, str) and not target.replace(".", "").isdigit():
        return target  # a profile name or a path
    if arch is None:
        arch = str(target).replace(".", "")
    cc = _cc_of(arch)
    for p in profiles():
        if p.get("compute_capability") == cc:
            return p["key"]
    raise InputError(f"target: compute capability {cc}: no built-in profile has it (gpucalc hw list); "
                     "give target= a profile name or FILE.toml")


def resources(kernel):
    """(registers per thread, shared memory bytes, warps, target or None) of a compiled Triton
    kernel or its metadata."""
    if _get(kernel, "n_regs", None) is None and hasattr(kernel, "_init_handles"):
        kernel._init_handles()  # n_regs is known once the binary is loaded
    metadata = _get(kernel, "metadata", None)
    regs = _get(kernel, "n_regs", None)
    shared = _get(metadata, "shared", None)
    if shared is None:
        shared = _get(kernel, "shared", None)
    warps = _get(metadata, "num_warps", None)
    if warps is None:
        warps = _get(kernel, "num_warps", None)
    target = _get(metadata, "target", None)
    if regs is None or shared is None or warps is None:
        missing = [n for n, v in (("n_regs", regs), ("metadata.shared", shared), ("metadata.num_warps", warps)) if v is None]
        raise InputError(f"kernel: no {', '.join(missing)}: expected a compiled Triton kernel (kernel.warmup(...) or a "
                         "launch's return) or its metadata")
    return int(regs), int(shared), int(warps), target


def occupancy(kernel=None, *, target=None, regs=None, smem=None, num_warps=None, warp_size=None):
    """gpucalc's exact occupancy of a compiled Triton kernel (or of ``regs``, ``smem`` and
    ``num_warps`` given): a gpucalc Result of ``gpucalc.occupancy`` with ``blocks_per_sm``,
    ``occupancy``, ``limiter``, ``one_more_block.*`` (the smallest change of registers, shared
    memory or block size that buys another block) and its notes. ``target``: a profile name or
    FILE.toml, a GPUTarget or a compute capability; by default the kernel's own target."""
    from . import occupancy as _occupancy

    kernel_target = None
    if kernel is not None:
        k_regs, k_smem, k_warps, kernel_target = resources(kernel)
        regs = k_regs if regs is None else regs
        smem = k_smem if smem is None else smem
        num_warps = k_warps if num_warps is None else num_warps
    if regs is None or num_warps is None:
        raise InputError("kernel: expected a compiled Triton kernel, or regs= and num_warps=")
    chosen = target if target is not None else kernel_target
    if warp_size is None:
        warp_size = _get(chosen, "warp_size", None) or 32
    return _occupancy(gpu=profile_for(chosen), threads=int(num_warps) * int(warp_size), regs=int(regs),
                      smem=int(smem or 0))


class Pruned:
    """What a prune decided for one config: ``config``, ``kept``, ``reason`` and ``result``
    (the gpucalc Result; None for a config that cannot launch)."""

    __slots__ = ("config", "kept", "reason", "result")

    def __init__(self, config, kept, reason, result):
        self.config, self.kept, self.reason, self.result = config, kept, reason, result

    def __repr__(self):
        return f"<{'kept' if self.kept else 'pruned'} {self.config}: {self.reason}>"


def _value(source, config, named_args, kwargs):
    """regs= or smem= for one config: a number, or a function of the config (and, when it takes
    them, the kernel's named arguments and keyword arguments)."""
    if not callable(source):
        return source
    params = inspect.signature(source).parameters
    if len(params) >= 2:
        return source(config, named_args, **kwargs) if any(
            p.kind is p.VAR_KEYWORD for p in params.values()) else source(config, named_args)
    return source(config)


def prune(min_occupancy=0.0, *, gpu=None, regs=None, smem=None, compile=None, warp_size=32):
    """An ``early_config_prune`` for ``triton.autotune(prune_configs_by={"early_config_prune":
    gpucalc.triton.prune(...)})``: drops each config that cannot launch (shared memory over the
    profile's opt-in limit, a block over its thread or register limits) or whose exact occupancy
    is below ``min_occupancy`` (a fraction, or a percent as "50%").

    A config's resources: ``compile(config, named_args, **kwargs)`` returning its compiled kernel
    (registers and shared memory exact, as ptxas gave them); else ``regs`` and ``smem``, each a
    number or a function of the config; else the config's ``maxnreg`` as its registers. Warps
    are the config's ``num_warps``. When no config meets the occupancy, those of the highest
    occupancy that launch are kept (the autotuner needs one). The last call's decisions are in
    the function's ``report`` (a list of Pruned)."""
    from . import occupancy as _occupancy

    threshold = _fraction(min_occupancy)
    profile = profile_for(gpu)

    def early_config_prune(configs, named_args=None, **kwargs):
        decisions = []
        for config in configs:
            warps = _get(config, "num_warps", 4)
            try:
                if compile is not None:
                    c_regs, c_smem, c_warps, _ = resources(compile(config, named_args, **kwargs))
                    warps = c_warps
                else:
                    c_regs = _value(regs, config, named_args, kwargs)
                    if c_regs is None:
                        c_regs = _get(config, "maxnreg", None)
                    if c_regs is None:
                        raise InputError("prune: no registers for the config: give compile=, regs= or the config's maxnreg")
                    c_smem = _value(smem, config, named_args, kwargs) or 0
                result = _occupancy(gpu=profile, threads=int(warps) * warp_size, regs=int(c_regs), smem=int(c_smem))
            except InputError as e:
                if str(e).startswith("prune:"):
                    raise
                decisions.append(Pruned(config, False, f"cannot launch: {e}", None))
                continue
            if not result["fits"]:
                decisions.append(Pruned(config, False, f"cannot launch: no block fits ({result['limiter']})", result))
                continue
            ok = result["occupancy"] >= threshold
            reason = (f"occupancy {result['occupancy']:.4g} ({result['blocks_per_sm']} blocks/SM, limiter "
                      f"{result['limiter']}) {'>=' if ok else '<'} {threshold:.4g}")
            decisions.append(Pruned(config, ok, reason, result))
        kept = [d for d in decisions if d.kept]
        if not kept:
            launchable = [d for d in decisions if d.result is not None and d.result["fits"]]
            if launchable:
                best = max(d.result["occupancy"] for d in launchable)
                for d in launchable:
                    if d.result["occupancy"] == best:
                        d.kept = True
                        d.reason += f"; kept: no config reaches {threshold:.4g}, this one has the highest occupancy"
        early_config_prune.report = decisions
        return [d.config for d in decisions if d.kept]

    early_config_prune.report = []
    return early_config_prune


def _fraction(value):
    if isinstance(value, str):
        text = value.strip()
        return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    return float(value)
