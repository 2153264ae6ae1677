"""The hybrid role model ("VerbNet-CN", ``models.md`` §4): a sentence as eight role vectors.

Role similarity is the cosine of the role phrases' vectors from an inner word-vector encoder, only where
both sentences fill the role; six cross-role alignments rescue a role that one sentence expresses
under a neighbouring role; the sentence score is the weighted sum over roles divided by all weights
("basic", unmatched roles add 0) or by the weights of the matched roles only ("norm").
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal, Sequence

import numpy as np

from ....errors import SpecError
from ....specs import parse_spec, quote_value
from pydantic import Field

from ...options import KeepsConfig, ModelOptions, TorchOptions, identity_field
from ...protocol import can_encode
from ...registry import expand_alias, register_model
from ....linguistics.roles import (ROLES, ParseTable, RoleParse, load_gpt4_parses, load_hand_parses,
                                  load_parse_file, missing_parse_error, parse_context)

PAPER_WEIGHTS = (2.0, 3.0, 2.0, 2.0, 0.5, 0.5, 0.5, 0.5)  # Agent Verb Patient Theme Time Manner Location Trajectory
ALIGNMENTS = (("Location", "Trajectory"), ("Theme", "Patient"), ("Theme", "Manner"), ("Manner", "Trajectory"),
              ("Patient", "Location"), ("Patient", "Manner"))
FORMS = ("basic", "norm")
_INDEX = {r: i for i, r in enumerate(ROLES)}


def role_comparisons(parse_a: RoleParse, parse_b: RoleParse, align: bool = True
                     ) -> list[tuple[str, str, str]]:
    """Which phrases to compare for one pair: ``(role the score is kept under, phrase_a, phrase_b)``.

    Roles filled in both are compared directly; then, in ``ALIGNMENTS`` order, ``tag1`` filled in one sentence
    only and ``tag2`` in the other only are compared under ``tag1``, and ``tag2`` counts as missing (as in the
    authors' code, so later alignments skip them)."""
    a = {r: parse_a[r] for r in ROLES if parse_a.get(r)}
    b = {r: parse_b[r] for r in ROLES if parse_b.get(r)}
    out = [(r, a[r], b[r]) for r in ROLES if r in a and r in b]
    if not align:
        return out
    for t1, t2 in ALIGNMENTS:
        if t1 in a and t1 not in b and t2 in b and t2 not in a:
            out.append((t1, a[t1], b[t2]))
            b[t1] = b.pop(t2)
        elif t1 in b and t1 not in a and t2 in a and t2 not in b:
            out.append((t1, a[t2], b[t1]))
            a[t1] = a.pop(t2)
    return out


def combine_role_similarities(sims: np.ndarray, weights: Sequence[float] = PAPER_WEIGHTS,
                              form: str = "basic") -> np.ndarray:
    """Sentence scores from an (n, 8) matrix of role similarities, NaN = role not matched. basic: Σ w·sim
    over matched roles / Σ all weights; norm: the same sum / Σ weights of the matched roles (NaN if none)."""
    sims = np.atleast_2d(np.asarray(sims, dtype=np.float64))
    w = np.asarray(weights, dtype=np.float64)
    if sims.shape[1] != len(w):
        raise ValueError(f"{sims.shape[1]} role columns but {len(w)} weights")
    matched = ~np.isnan(sims)
    num = np.where(matched, sims, 0.0) @ w
    if form == "basic":
        return num / w.sum()
    if form == "norm":
        den = matched.astype(np.float64) @ w
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    raise ValueError(f"form {form!r}: choose one of {', '.join(FORMS)}")


class RoleModel(KeepsConfig):
    """Pair scorer over role parses (from a table or a labeler) and an inner word-vector encoder."""

    def __init__(self, inner: Any, parses: ParseTable | Any, parses_name: str, form: str = "basic",
                 weights: Sequence[float] = PAPER_WEIGHTS, align: bool = True, missing: str = "error", *,
                 options: "RolesOptions | None" = None):
        if not can_encode(inner):
            raise SpecError(f"the role model needs a word-vector encoder; {inner.config.display} cannot encode")
        if form not in FORMS:
            raise SpecError(f"form={form!r}: choose one of {', '.join(FORMS)}")
        if len(weights) != len(ROLES) or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise SpecError(f"weights must be {len(ROLES)} non-negative numbers ({'/'.join(ROLES)})")
        self.inner, self.parses, self.parses_name = inner, parses, parses_name
        self.form, self.weights, self.align, self.missing = form, tuple(map(float, weights)), align, missing
        if options is None:  # made directly: the options its arguments amount to
            options = RolesOptions(parses=parses_name, form=form, align=align, missing=missing)
        facts: dict[str, Any] = {"zero_vector_sim": 0.0}
        if isinstance(parses, ParseTable):  # the files read (a pair-id file's sentences= among them)
            facts["parses_sha256"] = parses.digest
        else:
            facts["labeler"] = parses.version_tag
        # weights: the numbers used (the paper's by default)
        self._config = options.to_model_config(
            f"roles:{inner.config.display}", facts=facts, children=(inner.config,),
            resolved={"weights": "/".join(f"{w:g}" for w in self.weights)})

    def _parse_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> list[tuple[RoleParse | None, ...]]:
        if not isinstance(self.parses, ParseTable):
            pa, pb = self.parses.label(list(texts_a)), self.parses.label(list(texts_b))
            return list(zip(pa, pb))
        out = []
        for a, b in zip(texts_a, texts_b):
            pa, pb = self.parses.pair(a, b)
            for text, parse in ((a, pa), (b, pb)):
                if parse is None and self.missing == "error":
                    raise missing_parse_error(text, self.parses_name)
            out.append((pa, pb))
        return out

    def role_similarity_matrix(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        """(n, 8) role similarities in ``ROLES`` order, NaN where a role is not matched (or, with
        missing=nan, every role of a pair without a parse). Input for the fine-tuning analyses."""
        if len(texts_a) != len(texts_b):
            raise ValueError(f"got {len(texts_a)} and {len(texts_b)} texts")
        pairs = self._parse_pairs(texts_a, texts_b)
        jobs: list[tuple[int, int, str, str]] = []
        for row, (pa, pb) in enumerate(pairs):
            if pa is None or pb is None:
                continue
            for role, x, y in role_comparisons(pa, pb, self.align):
                jobs.append((row, _INDEX[role], x.lower(), y.lower()))
        sims = np.full((len(pairs), len(ROLES)), np.nan)
        if not jobs:
            return sims
        phrases = list(dict.fromkeys([j[2] for j in jobs] + [j[3] for j in jobs]))
        vecs = np.asarray(self.inner.encode(phrases), dtype=np.float64)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        unit = np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)
        where = {p: i for i, p in enumerate(phrases)}
        ia = np.array([where[j[2]] for j in jobs])
        ib = np.array([where[j[3]] for j in jobs])
        # A phrase with no known word has a zero vector: similarity 0, as the authors' cosine gives.
        values = np.einsum("ij,ij->i", unit[ia], unit[ib])
        sims[np.array([j[0] for j in jobs]), np.array([j[1] for j in jobs])] = values
        return sims

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        sims = self.role_similarity_matrix(texts_a, texts_b)
        scores = combine_role_similarities(sims, self.weights, self.form)
        if self.missing == "nan" and isinstance(self.parses, ParseTable):
            pairs = self._parse_pairs(texts_a, texts_b)
            scores[[i for i, (pa, pb) in enumerate(pairs) if pa is None or pb is None]] = np.nan
        return scores


TOK_CHOICES = ("sts3k", "clean", "montague", "inner")
# device, dtype, batch, max_length: for the inner model
INNER_TORCH = tuple(k for k in TorchOptions.model_fields if k not in ModelOptions.model_fields)


def _inner_spec(arg: str, tok: str, opts: Any = None, where: str = "") -> str:
    """Static word vectors get the STS3k tokenisation by default (stop words dropped, as the authors);
    device/dtype/batch/max_length given to the composite go to a torch-backed inner model."""
    from ...registry import resolve_family

    try:
        family = expand_alias(parse_spec(arg)).name
    except SpecError:
        family = ""
    if family == "static" and tok != "inner" and "tok=" not in arg:
        arg = f"{arg},tok={tok}"
    forwarded = [k for k in INNER_TORCH if opts is not None and k in opts.model_fields_set]
    if forwarded:
        if not family or not resolve_family(family).torch:
            raise SpecError(f"{where}: {', '.join(forwarded)} apply to a torch-backed inner model (sbert:, hf:), "
                            f"and {arg.split(',')[0]!r} is not one")
        arg += "".join(f",{k}={quote_value(str(getattr(opts, k)))}" for k in forwarded)
    return arg


def build_parses(source: str, sentences: str | None, builder: Any, spec_text: str) -> ParseTable | Any:
    ctx = parse_context(getattr(builder, "data_dir", None))
    if source == "hand":
        return load_hand_parses(ctx)
    if source == "gpt4":
        return load_gpt4_parses(ctx)
    if source == "spacy":
        from ....linguistics.labeler import RoleLabeler

        cache = getattr(builder, "cache", None)
        return RoleLabeler(cache_dir=getattr(cache, "directory", None))
    path = Path(source).expanduser()
    if not path.exists():
        raise SpecError(f"{spec_text}: parses={source!r} is neither hand, gpt4, spacy nor an existing file")
    return load_parse_file(path, Path(sentences).expanduser() if sentences else None)


class RolesOptions(TorchOptions):
    """``weights`` and ``align`` are recorded but not in the display name, as ids written before have it."""

    parses: str = Field("hand", description="hand|gpt4|spacy|PATH")
    sentences: str | None = Field(None, description="PATH of the sentences a parse file follows")
    form: Literal[FORMS] = "basic"  # type: ignore[valid-type]
    weights: str | None = identity_field(None, show="never", description="8 numbers joined by '/'")
    align: bool = identity_field(True, show="never")
    missing: Literal["error", "nan"] = "error"
    tok: Literal[TOK_CHOICES] = Field("sts3k", description="tokenisation of static inner vectors")  # type: ignore[valid-type]

    # sentences= is in the parses' digest; tok and the torch options are the inner model's (the child config)
    unrecorded: ClassVar[tuple[str, ...]] = ("sentences", "tok", "dtype", "max_length")


@register_model(
    "roles", 1, "hybrid role model (VerbNet-CN): 8 role vectors, weighted role cosines with alignment",
    ("roles:WORDVECTORS",), extra=("glove", "spacy"), options=RolesOptions,
)
def _roles(resolved: Any, builder: Any) -> RoleModel:
    opts = resolved.options
    s = str(resolved.spec)
    weights = PAPER_WEIGHTS
    if opts.weights:
        try:
            weights = tuple(float(x) for x in opts.weights.split("/"))
        except ValueError:
            raise SpecError(f"{s}: weights={opts.weights!r} must be 8 numbers joined by '/'") from None
    inner = builder(_inner_spec(resolved.arg or "glove-6b-50d", opts.tok, opts, s))
    return RoleModel(inner, build_parses(opts.parses, opts.sentences, builder, s), opts.parses, form=opts.form,
                     weights=weights, align=opts.align, missing=opts.missing, options=opts)
