"""The one tie rule of every rank statistic (Spearman, AUC, normalised ranks, orderings, triplet accuracy).

Scores that are equal in exact arithmetic often differ in their last bits: a bag-of-words or averaging model
gives a sentence and its word-order swap the same vector, yet the cosine of the two comes out as
0.999999999999993 rather than 1.0, and that float noise would be ranked as if it were signal. Every rank
statistic therefore compares scores at ``RANK_BITS`` significant bits: each value is rounded to the nearest
float with a ``RANK_BITS``-bit significand (``at_rank_precision``), and values that round to the same float
are ties. That is a function of each value alone, so the rule is well defined and transitive (ties are the
classes of equal rounded values, whatever else is in the array), it is the same for any scale (a relative
precision: 1e-300 and 1e+300 keep their digits), and it is exact (``frexp``/``ldexp`` move only the
exponent). Two scores closer than the precision can still fall on either side of a rounding boundary: the
rule ties what float noise makes of one value, not every pair of close values.
"""
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
