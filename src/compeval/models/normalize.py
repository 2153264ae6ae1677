"""``norm=`` is a task option, never a model option: centring or z-scoring over a set has no per-text meaning,
so a model's vectors would depend on the other texts encoded. Refused here, naming the task spelling.
"""
from __future__ import annotations

from ..errors import SpecError
from ..specs import Spec

#: The option name refused on a model spec (a task option of the comparing tasks).
OPTION = "norm"


def refuse_model_norm(spec: Spec, text: str) -> None:
    """A SpecError when a model spec sets ``norm=``: it is a task option."""
    if OPTION in spec.options:
        value = spec.options[OPTION]
        raise SpecError(f"{text}: norm is a task option now: --task sts3k,norm={value} (give the model as "
                        f"{Spec(spec.name, spec.arg, {k: v for k, v in spec.options.items() if k != OPTION})})")
