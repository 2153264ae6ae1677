"""What a headline's "best" must clear: a metric's chance level, the trivial reference models (random vectors,
lemma overlap), and intervals that say nothing (a ratio over a near-zero denominator).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

# The score a model with no signal gets, by metric, where it follows from the metric alone: no correlation,
# an AUC or a normalised rank of one half, a pairwise order agreement of one half (the two orders of each pair
# equally likely). Where a random-vector model's result is in the folder, that is the reference instead.
CHANCE = {"spearman": 0.0, "pearson": 0.0, "auc": 0.5, "normalised_rank": 0.5, "order_agreement": 0.5}
REFERENCE_FAMILIES = {"random": "random vectors", "overlap": "lemma overlap"}  # trivial models: never "best"
RATIO_SPREAD = 10.0  # a ratio's interval whose ends differ more than tenfold: its denominator nears zero
NA_RATIO = f"interval n/a: a ratio whose bootstrap denominator nears zero (upper/lower > {RATIO_SPREAD:g})"


@dataclass
class RankRow:
    """One headline: its label, which way is better, and per model (value, ci_low, ci_high). ``chance`` is
    used when no random-vector result is present; ``na``: model → why its interval is not shown."""

    suite: str
    label: str
    direction: int  # +1 higher is better, -1 lower is better
    cells: dict[str, tuple[float, float | None, float | None]] = field(default_factory=dict)
    note: str = ""  # e.g. "mean of 5 tasks"
    references: dict[str, str] = field(default_factory=dict)
    chance: float | None = None
    caveat: str = ""
    na: dict[str, str] = field(default_factory=dict)

    def reference(self) -> tuple[str, tuple[float, float | None, float | None]] | None:
        """(what, cell) a model must clear to be marked best: random vectors' score where present, else the
        metric's chance level; None when neither is known."""
        for m, kind in self.references.items():
            if kind == REFERENCE_FAMILIES["random"] and m in self.cells:
                return kind, self.cells[m]
        if self.chance is not None:
            return "chance", (self.chance, None, None)
        return None

    def clears_reference(self, model: str) -> bool:
        """Whether the model's interval lies wholly on the better side of the reference (and of its interval);
        False when no reference is known: a best that nothing was cleared against is not claimed."""
        ref = self.reference()
        if ref is None:
            return False
        (rv, rlo, rhi), (v, lo, hi) = ref[1], self.cells[model]
        if self.direction > 0:
            return (lo if lo is not None and math.isfinite(lo) else v) > (rhi if rhi is not None else rv)
        return (hi if hi is not None and math.isfinite(hi) else v) < (rlo if rlo is not None else rv)

    def best(self) -> str | None:
        """The model with the best value among those that are not trivial references and whose interval clears
        the reference (None when fewer than two models have a value, none clears it, or no reference is known)."""
        have = {m: v for m, (v, _, _) in self.cells.items() if v is not None and math.isfinite(v)}
        if len(have) < 2 or self.direction == 0:
            return None
        eligible = [m for m in have if m not in self.references and self.clears_reference(m)]
        return max(eligible, key=lambda m: self.direction * have[m]) if eligible else None



def meaningless_interval(score) -> bool:
    """A ratio's bootstrap interval (a score ``normalised_by`` another) whose ends differ more than
    ``RATIO_SPREAD``-fold: some resamples divide by nearly zero, so the interval says nothing (random vectors'
    sts3k-types profile: [0.896, 118.870]). Shown as n/a with ``NA_RATIO``."""
    details = getattr(score, "details", None) or {}
    lo, hi = score.ci_low, score.ci_high
    if "normalised_by" not in details or lo is None or hi is None:
        return False
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return True
    return lo <= 0 < hi or (lo > 0 and hi / lo > RATIO_SPREAD)
