"""``norm=`` is a task option, never a model option: this module refuses it on a model spec.

Normalising per dimension over a data set (``compeval.vectors.NORMALISERS``: the STS3k ``_norml``
variants, mean-centring or z-scoring each side of the pairs) is part of how a task compares two lists of
texts, so the tasks whose score is the cosine of a pair declare it (``--task sts3k,norm=center``, see
``compeval.tasks.scoring``). On a model spec it would have to mean the same on every task, and it cannot:
centring or z-scoring over a set has no per-text meaning, so a task that uses one text's vector (the
modifier tests, probing classifiers, fine-tuned heads) would either see the raw vectors under an id that
claims ``norm=…`` or vectors that depend on which other texts the task happened to encode. Hence the refusal,
with the task spelling as its hint.
"""
from __future__ import annotations

from ..errors import SpecError
from ..specs import Spec

#: The option name refused on a model spec (a task option of the comparing tasks).
OPTION = "norm"


def refuse_model_norm(spec: Spec, text: str) -> None:
    """A SpecError when a model spec sets ``norm=``: it is a task option now."""
    if OPTION in spec.options:
        value = spec.options[OPTION]
        raise SpecError(f"{text}: norm is a task option now: --task sts3k,norm={value} (give the model as "
                        f"{Spec(spec.name, spec.arg, {k: v for k, v in spec.options.items() if k != OPTION})})")
