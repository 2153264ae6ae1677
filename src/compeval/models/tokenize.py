"""Tokenisation conventions for word-vector models (``models.md`` §1).

- ``clean`` (default): lower-case word tokens (letters and digits), nothing dropped; unknown words skipped.
- ``sts3k``: the STS3k authors' convention: lower-case, split on whitespace, drop stop words (NLTK list,
  checked *before* punctuation is stripped), strip ``[^\\w\\s]``; an unknown word is retried as a verb
  lemma, then skipped.
- ``montague``: the modifier-consistency authors' convention: every whitespace token kept; an unknown
  word contributes a zero vector that still counts in the mean.
"""
from __future__ import annotations

import re
from typing import Callable

CONVENTIONS = ("clean", "sts3k", "montague")

# The NLTK English stop-word list (179 words), as used by the STS3k authors' code.
NLTK_STOPWORDS = frozenset(
    """i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves
    he him his himself she she's her hers herself it it's its itself they them their theirs themselves what
    which who whom this that that'll these those am is are was were be been being have has had having do
    does did doing a an the and but if or because as until while of at by for with about against between
    into through during before after above below to from up down in out on off over under again further
    then once here there when where why how all any both each few more most other some such no nor not
    only own same so than too very s t can will just don don't should should've now d ll m o re ve y ain
    aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't
    ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't
    won won't wouldn wouldn't""".split()
)

_CLEAN = re.compile(r"[^\W_]+")
_PUNCT = re.compile(r"[^\w\s]")

# WordNet's morphy detachment rules for verbs, without its exception list (which would need the
# WordNet data download); irregular forms fall through to "skipped".
_VERB_RULES = (("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""), ("s", ""))


def verb_lemma_candidates(word: str) -> list[str]:
    out = []
    for suffix, repl in _VERB_RULES:
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            stem = word[: -len(suffix)] + repl
            out.append(stem)
            # doubled final consonant: "stopped" -> "stopp" -> "stop"
            if repl == "" and len(stem) > 2 and stem[-1] == stem[-2]:
                out.append(stem[:-1])
    return out


def tokenize(text: str, convention: str) -> list[str]:
    if convention == "clean":
        return _CLEAN.findall(text.lower())
    if convention == "sts3k":
        out = []
        for tok in text.lower().split():
            if tok in NLTK_STOPWORDS:
                continue
            tok = _PUNCT.sub("", tok)
            if tok:
                out.append(tok)
        return out
    if convention == "montague":
        return text.split()
    raise ValueError(f"unknown tokenisation {convention!r}; choose one of {', '.join(CONVENTIONS)}")


def lookup_tokens(tokens: list[str], convention: str, has: Callable[[str], bool]) -> list[str | None]:
    """Map tokens to vocabulary keys; ``None`` = a zero vector (montague); unknown words otherwise dropped."""
    out: list[str | None] = []
    for tok in tokens:
        if has(tok):
            out.append(tok)
        elif convention == "sts3k":
            lemma = next((c for c in verb_lemma_candidates(tok) if has(c)), None)
            if lemma is not None:
                out.append(lemma)
        elif convention == "montague":
            out.append(None)
    return out
