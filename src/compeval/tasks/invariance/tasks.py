"""Syntactic-invariance tasks (Cheung & Penn 2012): relation classification (AUC), restricted QA (rank).

Both run on the seeded generated sets by default, or on a user's JSON Lines file (``path=``; format in
``loaders.py``). Models are used only through their pair similarity (own pair scores, else cosine).
Missing scores (NaN) rank below every real score, tied with each other; their count is recorded.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, PrivateAttr, field_validator, model_validator

from ...data.registry import DataContext, sha256_file
from ...errors import CompevalError, DataError, SpecError
from ...metrics.bootstrap import mean_ci
from ...metrics.ranking import normalised_ranks, roc_auc, roc_auc_ci
from ...models.registry import ModelBuilder, ResolvedModel, check_spec
from ...results.schema import Score
from ...results.store import as_written
from ..base import EvalCost, Task, TaskMetadata, TaskOutput
from ..options import path_text, resamples
from ..recompute import checked_column
from ..registry import register_task
from ..scoring import ComparisonOptions, compare, pair_similarity
from . import generator, loaders, usp
from .published import QA_PUBLISHED, RELATION_PUBLISHED
from ... import seeds
from ...lazy import lazy_module

pd = lazy_module("pandas")

CHEUNG_PENN = "Cheung & Penn (2012), EACL: Evaluating distributional models of semantics for syntactically invariant inference"


def _finite(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def _mean_score(subset: str, metric: str, values: np.ndarray, n_resamples: int, seed: int,
                details: dict[str, Any] | None = None) -> Score:
    """Mean of per-unit values (entity pairs, questions) with a bootstrap interval over the units."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return Score(subset=subset, metric=metric, value=None, n=0, details=details or {})
    low, high = mean_ci(values, n_resamples=n_resamples, seed=seed)
    return Score(subset=subset, metric=metric, value=float(values.mean()), ci_low=_finite(low),
                 ci_high=_finite(high), n=int(values.size), details=details or {})


def _user_file(path: str) -> tuple[Path, dict[str, str]]:
    """A user's own file is not in the data registry, so its hash is recorded with the counts."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise SpecError(f"path={path!r}: no such file (give a JSON Lines file; see docs/invariance.md)")
    return p, {"data_file": str(p.resolve()), "data_sha256": sha256_file(p)}


class _GeneratedOptions(ComparisonOptions):
    path: str = ""  # a user's JSON Lines file instead of the generated set
    # entity pairs generated per relation; at most every ordered pair of the generator's names
    pairs_per_relation: int = Field(4, ge=1, le=generator.MAX_ENTITY_PAIRS)

    @field_validator("path", mode="before")
    @classmethod
    def fspath(cls, value: Any) -> Any:
        return path_text(value)


@register_task
class InvarianceRelation(Task):
    """Task 1: per (relation, entity pair), ROC AUC of E × E∖{(e, e)} pair scores against E × NE."""

    conformance_options = "pairs_per_relation=1,bootstrap=40"
    metadata = TaskMetadata(
        name="invariance-relation", suite="invariance", main_metric="auc",
        description="relation classification invariant to syntax: AUC of same-relation pairs vs hard negatives "
                    "(generated: passives, nominalisations, datives vs reversed roles, other relations, negation)",
        reference=CHEUNG_PENN, published=RELATION_PUBLISHED,
    )
    eval_cost = EvalCost(at_50=0.311, at_384=0.336)  # CPU s, benchmarks/eval_vs_encode.py --costs
    quick = "pairs_per_relation=1"  # the suite's quick task: 156 texts

    class Options(_GeneratedOptions):
        per_construction: int = Field(1, ge=1)  # E sentences per construction
        negatives_per_type: int = Field(4, ge=1)  # NE sentences per negative type
        generator_seed: int = Field(0, ge=0)
        # resamples behind each 95% bootstrap interval
        bootstrap: int = resamples()

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.groups: list[generator.RelationGroup] = []
        self.pairs: pd.DataFrame | None = None
        self.source_counts: dict[str, Any] = {}

    def load(self, data: DataContext) -> None:
        o = self.options
        if o.path:
            file, self.source_counts = _user_file(o.path)
            self.groups = loaders.load_relation_jsonl(file)
        else:
            self.groups = generator.generate_relation_groups(
                o.pairs_per_relation, o.per_construction, o.negatives_per_type, o.generator_seed)
            self.source_counts = {"data": "generated", "generator_seed": o.generator_seed}
        self.pairs = build_relation_pairs(self.groups)

    def texts(self) -> list[str]:
        return [s.text for g in self.groups for s in g.sentences]

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        raw = compare(model, self.pairs["text_a"].tolist(), self.pairs["text_b"].tolist(), self.options.norm)
        return self._output(as_written(raw), seed)  # the scores as stored: verify recomputes exactly

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """The scores from the predictions' per-pair ``score`` through ``_output``, as ``evaluate`` computes
        them; the predictions' pairs (group, kind, texts) must be the loaded data's, in its order."""
        raw = checked_column(self.slug, predictions, self.pairs, ("group", "kind", "text_a", "text_b"), "score")
        return self._output(raw, seed).scores

    def _output(self, raw: np.ndarray, seed: int) -> TaskOutput:
        """Scores (bootstrap intervals seeded by ``seed``) and predictions of the per-pair similarities."""
        pairs = self.pairs.copy()
        pairs["score"] = raw
        n_boot = self.options.bootstrap
        positive = (pairs["kind"] == "H").to_numpy()
        by_group = [np.flatnonzero(pairs["group"].to_numpy() == g.key) for g in self.groups]
        score = pairs["score"].to_numpy()
        tag_b = pairs["tag_b"].to_numpy()

        def per_group(h_keep: np.ndarray, l_keep: np.ndarray) -> np.ndarray:
            return np.array([roc_auc(score[rows[positive[rows] & h_keep[rows]]],
                                     score[rows[~positive[rows] & l_keep[rows]]]) for rows in by_group])

        everything = np.ones(len(pairs), dtype=bool)
        group_auc = per_group(everything, everything)
        scores = [_mean_score("all", "auc", group_auc, n_boot, seed,
                              {"averaged_over": "entity pairs", "interval": "bootstrap over entity pairs"})]
        constructions = sorted({t for t in tag_b[positive] if t})
        for c in constructions:
            scores.append(_mean_score(f"construction={c}", "auc", per_group(tag_b == c, everything), n_boot, seed,
                                      {"positives": f"E × E pairs whose second sentence is {c}"}))
        for t in sorted({t for t in tag_b[~positive] if t}):
            scores.append(_mean_score(f"negative={t}", "auc", per_group(everything, tag_b == t), n_boot, seed,
                                      {"negatives": f"E × NE pairs whose NE sentence is {t}"}))
        for k, (g, rows) in enumerate(zip(self.groups, by_group)):
            pos, neg = score[rows[positive[rows]]], score[rows[~positive[rows]]]
            low, high = roc_auc_ci(pos, neg, n_resamples=n_boot, seed=seeds.derive(seed, "group-auc", g.key))
            scores.append(Score(subset=f"group={g.key}", metric="auc", value=_finite(group_auc[k]),
                                ci_low=_finite(low), ci_high=_finite(high), n=len(rows),
                                details={"n_H": len(pos), "n_L": len(neg),
                                         "interval": "stratified bootstrap over pairs"}))
        labels = Counter((s.label, s.tag) for g in self.groups for s in g.sentences)
        counts = {
            **self.source_counts,
            "entity_pairs": len(self.groups),
            "sentences": sum(len(g.sentences) for g in self.groups),
            "H_pairs": int(positive.sum()), "L_pairs": int((~positive).sum()),
            "missing_scores": int(np.isnan(score).sum()), "missing_policy": "rank lowest, tied",
            "sentences_by_tag": {f"{lab}:{tag or '-'}": n for (lab, tag), n in sorted(labels.items())},
            "bootstrap_resamples": n_boot, "bootstrap_method": "percentile",
        }
        return TaskOutput(scores=scores, n_items=len(self.groups), predictions=pairs, counts=counts)


def build_relation_pairs(groups: list[generator.RelationGroup]) -> pd.DataFrame:
    """All ordered pairs per group: H = E × E without self-pairs, L = E × NE."""
    rows = []
    for g in groups:
        e = [s for s in g.sentences if s.label == "E"]
        ne = [s for s in g.sentences if s.label == "NE"]
        for i, a in enumerate(e):
            rows.extend((g.key, "H", a.tag, b.tag, a.text, b.text) for j, b in enumerate(e) if i != j)
            rows.extend((g.key, "L", a.tag, b.tag, a.text, b.text) for b in ne)
    return pd.DataFrame(rows, columns=["group", "kind", "tag_a", "tag_b", "text_a", "text_b"])


@register_task
class InvarianceQA(Task):
    """Task 2: normalised rank of the one answering sentence among its document (ties at the median)."""

    conformance_options = "pairs_per_relation=1,distractors_per_type=1,bootstrap=40"
    metadata = TaskMetadata(
        name="invariance-qa", suite="invariance", main_metric="normalised_rank",
        description="restricted QA invariant to syntax: normalised rank of the answer sentence among distractors "
                    "with the same entities (reversed roles, other relation, negation, other entities)",
        subsets=("all", "subset"), reference=CHEUNG_PENN, published=QA_PUBLISHED,
    )
    eval_cost = EvalCost(at_50=0.0107, at_384=0.0118)  # CPU s, benchmarks/eval_vs_encode.py --costs

    class Options(_GeneratedOptions):
        # path='s layout: jsonl (compeval's own, loaders.py) or usp (USP's answer file, with texts= the GENIA abstracts)
        format: Literal["jsonl", "usp"] = "jsonl"
        texts: str = ""  # format=usp: the folder of GENIA abstracts, one file per abstract, one sentence a line
        # distractor sentences per question and kind (reversed roles, other relation, negation, other entities)
        distractors_per_type: int = Field(2, ge=1)
        generator_seed: int = Field(0, ge=0)
        subset_model: str = "overlap"  # model spec of the baseline that defines the paper's "Subset"; "" for none
        _subset: ResolvedModel | None = PrivateAttr(None)
        # resamples behind each 95% bootstrap interval
        bootstrap: int = resamples()

        @field_validator("texts", mode="before")
        @classmethod
        def texts_path(cls, value: Any) -> Any:
            return path_text(value)

        @model_validator(mode="after")
        def known_model(self):
            """A given subset_model is resolved once, when the task is built (planning); the task keeps it."""
            if "subset_model" in self.model_fields_set and self.subset_model:
                try:
                    self._subset = check_spec(self.subset_model)
                except SpecError as exc:
                    raise ValueError(f"option subset_model={self.subset_model!r}: {exc}") from None
            return self

        @model_validator(mode="after")
        def usp_needs_texts(self):
            if self.format == "usp" and not (self.path and self.texts):
                raise ValueError("format=usp needs path= (USP's answer file) and texts= (the GENIA abstracts folder)")
            if self.texts and self.format != "usp":
                raise ValueError("texts= is read only with format=usp")
            return self

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.items: list[generator.QAItem] = []
        self.rows: pd.DataFrame | None = None
        self.in_subset: np.ndarray | None = None
        self.source_counts: dict[str, Any] = {}

    def load(self, data: DataContext) -> None:
        o = self.options
        if o.path and o.format == "usp":
            file, self.source_counts = _user_file(o.path)
            self.items, abstracts = usp.load_usp_answers(file, Path(o.texts).expanduser())
            self.source_counts.update({"format": "usp", "texts": str(Path(o.texts).expanduser().resolve()),
                                       "abstracts_sha256": abstracts})
        elif o.path:
            file, self.source_counts = _user_file(o.path)
            self.items = loaders.load_qa_jsonl(file)
        else:
            self.items = generator.generate_qa_items(o.pairs_per_relation, o.distractors_per_type, o.generator_seed)
            self.source_counts = {"data": "generated", "generator_seed": o.generator_seed}
        self.rows = pd.DataFrame(
            [(k, item.qid, item.question, s, i == item.answer, item.tags[i])
             for k, item in enumerate(self.items) for i, s in enumerate(item.document)],
            columns=["question_index", "qid", "question", "sentence", "is_answer", "tag"],
        )
        self.in_subset = self._baseline_subset()

    def _baseline_subset(self) -> np.ndarray | None:
        """The paper's "Subset": questions the baseline (lemma overlap) does not rank perfectly."""
        spec = self.options.subset_model
        if not spec:
            return None
        # The baseline comes from the run's builder (behind the run's cache, on its device); outside a run,
        # from a builder with this task's settings.
        build = self.context.model_builder or ModelBuilder.for_context(self.context)
        try:
            baseline = build(self.options._subset or spec)
        except CompevalError as exc:  # never a silently missing subset score
            raise CompevalError(f"subset_model={spec}: {exc}") from None
        return self._ranks(pair_similarity(baseline, self.rows["question"].tolist(),
                                           self.rows["sentence"].tolist())) < 1.0

    def _ranks(self, score: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
        """Normalised rank per question over the kept candidates (NaN where fewer than two remain)."""
        rows = self.rows
        keep = np.ones(len(rows), dtype=bool) if keep is None else keep
        q = rows["question_index"].to_numpy()
        sizes = np.bincount(q[keep], minlength=len(self.items))
        ok = sizes >= 2
        sel = keep & ok[q]
        out = np.full(len(self.items), np.nan)
        if sel.any():
            codes, inverse = np.unique(q[sel], return_inverse=True)
            out[codes] = normalised_ranks(score[sel], inverse, rows["is_answer"].to_numpy()[sel])
        return out

    def texts(self) -> list[str]:
        return [t for item in self.items for t in (item.question, *item.document)]

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        rows = self.rows
        score = compare(model, rows["question"].tolist(), rows["sentence"].tolist(), self.options.norm)
        return self._output(as_written(score), seed)  # the scores as stored: verify recomputes exactly

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """The scores from the predictions' ``candidate_scores`` (each question's document, in its order)
        through ``_output``, as ``evaluate`` computes them: the ranks are ranked again, not read back. The
        predictions' questions and answers must be the loaded data's, in its order."""
        answers = pd.DataFrame({"qid": [it.qid for it in self.items], "question": [it.question for it in self.items],
                                "answer": [it.document[it.answer] for it in self.items]})
        checked_column(self.slug, predictions, answers, ("qid", "question", "answer"), "normalised_rank")
        if "candidate_scores" not in predictions:
            raise DataError(f"{self.slug}: the predictions have no candidate_scores column (written before "
                            "compeval recomputed this task's ranks: re-run the job to write them)")
        lists = predictions["candidate_scores"].tolist()
        if any(not isinstance(c, list) or len(c) != len(it.document) for c, it in zip(lists, self.items)):
            raise DataError(f"{self.slug}: the predictions' candidate_scores are not one per document sentence")
        flat = [np.nan if v is None else v for c in lists for v in c]
        return self._output(as_written(pd.to_numeric(pd.Series(flat, dtype=object), errors="coerce")
                                       .to_numpy(dtype=np.float64)), seed).scores

    def _output(self, score: np.ndarray, seed: int) -> TaskOutput:
        """Scores (bootstrap intervals seeded by ``seed``) and predictions of the question-sentence scores."""
        rows = self.rows
        n_boot = self.options.bootstrap
        ranks = self._ranks(score)
        scores = [_mean_score("all", "normalised_rank", ranks, n_boot, seed)]
        if self.in_subset is not None:
            scores.append(_mean_score("subset", "normalised_rank", ranks[self.in_subset], n_boot, seed,
                                      {"questions": f"{self.options.subset_model} does not rank the answer first alone"}))
        is_answer = rows["is_answer"].to_numpy()
        answer_tag = rows.loc[is_answer, "tag"].to_numpy()  # one per question, in question order
        for c in sorted({t for t in answer_tag if t}):
            scores.append(_mean_score(f"answer={c}", "normalised_rank", ranks[answer_tag == c], n_boot, seed))
        tags = rows["tag"].to_numpy()
        per_type = {}
        for t in sorted({t for t in tags[~is_answer] if t}):
            per_type[t] = self._ranks(score, is_answer | (tags == t))
            scores.append(_mean_score(f"negative={t}", "normalised_rank", per_type[t], n_boot, seed,
                                      {"candidates": f"the answer and the {t} distractors only"}))
        predictions = pd.DataFrame({
            "qid": [it.qid for it in self.items], "question": [it.question for it in self.items],
            "answer": [it.document[it.answer] for it in self.items], "answer_tag": answer_tag,
            "document_size": [len(it.document) for it in self.items], "normalised_rank": ranks,
            **({"in_subset": self.in_subset} if self.in_subset is not None else {}),
            **{f"rank_vs_{t}": r for t, r in per_type.items()},
            # what the ranks are ranked from (``score_predictions``), one per document sentence
            "candidate_scores": [c.tolist() for c in np.split(score, np.cumsum([len(it.document) for it in self.items])[:-1])],
        })
        counts = {
            **self.source_counts,
            "questions": len(self.items), "candidates": len(rows),
            "subset_questions": int(self.in_subset.sum()) if self.in_subset is not None else None,
            "answers_by_tag": dict(Counter(answer_tag.tolist())),
            "distractors_by_tag": dict(Counter(tags[~is_answer].tolist())),
            "missing_scores": int(np.isnan(score).sum()), "missing_policy": "rank lowest, tied",
            "ties": "median of the tied block",
            "bootstrap_resamples": n_boot, "bootstrap_method": "percentile",
        }
        return TaskOutput(scores=scores, n_items=len(self.items), predictions=predictions, counts=counts)
