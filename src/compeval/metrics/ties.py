"""The tie rule of every rank statistic: scores are compared at ``RANK_BITS`` significant bits, so float noise
(a cosine of 0.999999999999993 for two identical vectors) is a tie, not signal (docs/reproduction.md).
Rounding each value alone keeps ties transitive and scale-free, and ``frexp``/``ldexp`` keep it exact."""
from __future__ import annotations

import numpy as np

#: Significant bits at which rank statistics compare scores: relative precision 2**-30 ≈ 9.3e-10 (about nine
#: significant digits). Float64 noise (~1e-15) is far below it; the float32 resolution of a model's output
#: (~6e-8) is far above it, so no score a model can tell apart is tied.
RANK_BITS = 30


def at_rank_precision(values: np.ndarray) -> np.ndarray:
    """``values`` (float64) rounded to ``RANK_BITS`` significant bits (half to even); NaN, ±inf and 0 unchanged,
    and so is a value within half a step of the largest float (rounding it up would make it infinite)."""
    values = np.asarray(values, dtype=np.float64)
    mantissa, exponent = np.frexp(values)
    with np.errstate(over="ignore"):
        rounded = np.ldexp(np.round(np.ldexp(mantissa, RANK_BITS)), exponent - RANK_BITS)
    return np.where(np.isinf(rounded) & np.isfinite(values), values, rounded)
