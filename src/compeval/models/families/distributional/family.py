"""Registers the ``dist`` model family: ``dist:PATH[,compose=add|mult]`` for a trained model folder."""
from __future__ import annotations

from ....errors import SpecError
from ...registry import register_model
from .models import DistOptions, load_distributional, with_backoff


@register_model("dist", 1, "count-based distributional model trained with train_distributional (M&L, E&P, TFP, D&L)",
                ("dist:PATH",), extra="spacy",
                options=DistOptions)
def _dist(resolved, builder):
    opts = resolved.options
    if not resolved.arg:
        raise SpecError(f"{resolved.spec}: give the trained model folder, e.g. dist:/tmp/dist/ml,compose=mult")
    model = load_distributional(resolved.arg, opts.compose, options=opts)
    return with_backoff(model, opts.backoff) if opts.backoff else model
