"""gpucalc in Python: the calculators of the command line, one function each, made from its
command table at import (``gpucalc.occupancy(threads=256, regs=64, smem="40KB")``), each answer
the command line's key for key (docs/python.md)."""

from ._api import InputError, RequirementError, Result, Row, profile, profiles, make_calculators

_calculators = make_calculators()
globals().update(_calculators)
calculators = tuple(_calculators)

from . import triton  # noqa: E402  (after the calculators it calls)

__all__ = ["InputError", "RequirementError", "Result", "Row", "profile", "profiles", "calculators", "triton",
           *_calculators]
