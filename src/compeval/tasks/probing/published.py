"""Published probing accuracies (Ettinger, Elgohary & Resnik 2016, RepEval), from the method spec."""
from __future__ import annotations

from ...results.schema import PublishedScore

ETTINGER = "Ettinger, Elgohary & Resnik (2016), RepEval"
# model: (has-school, has-human, school-as-agent) accuracy in %
_FIGURES = {"GloVe average": (100, 99.9, 47.98), "Paragram": (100, 90.5, 48.57), "Skip-Thought": (100, 99.0, 91.15)}


def _rows(column: int, note: str = "") -> tuple[PublishedScore, ...]:
    return tuple(PublishedScore(model=m, subset="logreg", metric="accuracy", value=v[column] / 100, citation=ETTINGER,
                                note=note) for m, v in _FIGURES.items())


HAS_X_PUBLISHED = _rows(0, "has-school only; compeval pools school, professor and dog")
HAS_HUMAN_PUBLISHED = _rows(1)
X_AS_AGENT_PUBLISHED = _rows(2, "school-as-agent in active and passive sentences only: preset=school-as-agent; "
                                 "the default pools school, professor and dog over compeval's fuller grammar")
