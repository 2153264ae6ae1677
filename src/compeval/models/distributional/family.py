"""Registers the ``dist`` model family: ``dist:PATH[,compose=add|mult]`` for a trained model folder."""
from __future__ import annotations

from ...errors import SpecError
from ...specs import pop_option, reject_unknown
from ..registry import register_model


@register_model("dist", 1, "count-based distributional model trained with train_distributional (M&L, E&P, TFP, D&L)",
                ("dist:PATH[,compose=add|mult]",), extra="spacy")
def _dist(spec, builder):
    if not spec.arg:
        raise SpecError(f"{spec}: give the trained model folder, e.g. dist:/tmp/dist/ml,compose=mult")
    opts = dict(spec.options)
    op = pop_option(opts, "compose", "add", choices=("add", "mult"), spec=str(spec))
    reject_unknown(opts, str(spec), ["compose"])
    from .models import load_distributional

    return load_distributional(spec.arg, op)
