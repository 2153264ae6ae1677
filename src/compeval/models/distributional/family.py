"""Registers the ``dist`` model family: ``dist:PATH[,compose=add|mult]`` for a trained model folder."""
from __future__ import annotations

from ...errors import SpecError
from typing import Literal

from pydantic import Field

from ..options import ModelOptions
from ..registry import register_model


class DistOptions(ModelOptions):
    compose: Literal["add", "mult"] = Field("add", description="how word vectors combine")
    backoff: str = Field("", description="an ml model folder for words this model never saw (GENIA back-off)")


@register_model("dist", 1, "count-based distributional model trained with train_distributional (M&L, E&P, TFP, D&L)",
                ("dist:PATH",), extra="spacy",
                options=DistOptions)
def _dist(spec, builder, opts):
    if not spec.arg:
        raise SpecError(f"{spec}: give the trained model folder, e.g. dist:/tmp/dist/ml,compose=mult")
    from .models import load_distributional, with_backoff

    model = load_distributional(spec.arg, opts.compose)
    return with_backoff(model, opts.backoff) if opts.backoff else model
