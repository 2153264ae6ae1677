"""STS tasks: Spearman (average ranks) between model similarities and mean human ratings.

Every task reports Spearman and Pearson with bootstrap 95% intervals over pairs, per subset; STS3k
adds ``non``, ``adv``, ``negative`` and the structure-blindness gap ``non − adv``. Missing scores (NaN
from a pair scorer or an all-unknown sentence) follow an explicit policy: ``zero`` (the STS3k authors'
``nan_to_num``; default) or ``drop``; their count is part of the result.
"""
from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ...data.registry import DataContext
from ...errors import DataError
from ...metrics import pearson_rows, percentile_interval, resample_indices, spearman_resampled, spearman_rows
from ...results.schema import Score
from ...results.store import as_written
from ..base import EvalCost, Task, TaskMetadata, TaskOutput, items_in_order
from ..options import resamples
from ..registry import register_task
from ..scoring import ComparisonOptions, compare
from . import loaders
from .published import published
from ... import seeds
from ...lazy import lazy_module

pd = lazy_module("pandas")

FODOR = "Fodor, De Deyne & Suzuki (2024), Computational Linguistics"


def apply_missing(raw: np.ndarray, policy: str) -> np.ndarray:
    """The similarities scored under a missing-score policy: ``zero`` turns NaN into 0 (the STS3k authors'
    ``nan_to_num``), ``drop`` keeps NaN (those pairs are left out). The report recomputes scores with it too."""
    return np.where(np.isnan(raw), 0.0, raw) if policy == "zero" else raw


class STSOptions(ComparisonOptions):
    missing: Literal["zero", "drop"] = "zero"  # NaN scores: 0 (the STS3k authors' nan_to_num) or left out
    # resamples behind each 95% bootstrap interval
    bootstrap: int = resamples()


class STSTask(Task):
    """Base class: subclasses set ``metadata`` and implement ``read`` (→ pairs and subset masks)."""
    conformance_options = "bootstrap=50"

    Options = STSOptions
    options: STSOptions

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.pairs: pd.DataFrame | None = None
        self.subsets: dict[str, np.ndarray] = {}

    def read(self, data: DataContext) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
        raise NotImplementedError

    def load(self, data: DataContext) -> None:
        self.pairs, subsets = self.read(data)
        self.subsets = {"all": np.arange(len(self.pairs)), **subsets}

    def texts(self) -> list[str]:
        return self.pairs["sentence_1"].tolist() + self.pairs["sentence_2"].tolist()

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        pairs = self.pairs
        raw = compare(model, pairs["sentence_1"].tolist(), pairs["sentence_2"].tolist(), self.options.norm)
        return self._output(as_written(raw), seed)  # the similarities as stored: verify recomputes exactly

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """The scores from the predictions' per-pair ``score`` (the raw similarity, NaN where missing) and
        the data's gold ratings, through ``_output`` as ``evaluate`` computes them; the predictions' pairs
        and gold ratings must be the loaded data's, in its order."""
        pairs = self.pairs
        pred = items_in_order(predictions, len(pairs), self.slug)
        if "score" not in pred:
            raise DataError(f"{self.slug}: the predictions have no score column")
        for column in ("sentence_1", "sentence_2"):
            if column in pred and pred[column].astype(str).tolist() != pairs[column].astype(str).tolist():
                raise DataError(f"{self.slug}: the predictions' {column} differ from the data's")
        gold = pairs["gold"].to_numpy(dtype=np.float64)
        if "gold" in pred and not np.allclose(pd.to_numeric(pred["gold"]).to_numpy(dtype=np.float64), gold,
                                              rtol=0, atol=1e-9, equal_nan=True):
            raise DataError(f"{self.slug}: the predictions' gold ratings differ from the data's")
        raw = pd.to_numeric(pred["score"], errors="coerce").to_numpy(dtype=np.float64)
        return self._output(raw, seed).scores

    def _output(self, raw: np.ndarray, seed: int) -> TaskOutput:
        """Scores (with bootstrap intervals seeded by ``seed``) and predictions of the raw pair similarities."""
        pairs = self.pairs
        missing = np.isnan(raw)
        scores_used = apply_missing(raw, self.options.missing)
        gold = pairs["gold"].to_numpy(dtype=np.float64)
        out: list[Score] = []
        dists: dict[str, np.ndarray] = {}
        for subset, rows in self.subsets.items():
            keep = rows if self.options.missing == "zero" else rows[~missing[rows]]
            x, y = scores_used[keep], gold[keep]
            idx = (resample_indices(len(keep), self.options.bootstrap, seeds.derive(seed, "sts-bootstrap", subset))
                   if len(keep) > 1 else None)
            details = {"n_missing": int(missing[rows].sum()), "missing_policy": self.options.missing}
            for metric, fn, resampled in (
                ("spearman", spearman_rows, lambda: spearman_resampled(x, y, idx)),
                ("pearson", pearson_rows, lambda: pearson_rows(x[idx], y[idx])),
            ):
                value = float(fn(x, y)) if len(keep) > 1 else float("nan")
                if idx is not None:
                    dist = resampled()
                    lo, hi = percentile_interval(dist)
                else:
                    lo, hi, dist = float("nan"), float("nan"), np.array([])
                dists[(subset, metric)] = dist
                out.append(Score(subset=subset, metric=metric, value=_clean(value), ci_low=_clean(lo),
                                 ci_high=_clean(hi), n=len(keep), details=details))
        if "non" in self.subsets and "adv" in self.subsets:
            non = next(s for s in out if s.subset == "non" and s.metric == "spearman")
            adv = next(s for s in out if s.subset == "adv" and s.metric == "spearman")
            lo, hi = percentile_interval(dists[("non", "spearman")] - dists[("adv", "spearman")])
            gap = None if non.value is None or adv.value is None else non.value - adv.value
            out.append(Score(subset="non_minus_adv", metric="spearman", value=gap, ci_low=_clean(lo),
                             ci_high=_clean(hi), n=non.n + adv.n,
                             details={"note": "structure blindness: Spearman(non) - Spearman(adv)"}))
        predictions = pairs.assign(score=raw, missing=missing)
        subset_of = np.full(len(pairs), "", dtype=object)
        for subset, rows in self.subsets.items():
            if subset != "all":
                subset_of[rows] = np.where(subset_of[rows] == "", subset, subset_of[rows] + "," + subset)
        predictions["subsets"] = subset_of
        return TaskOutput(
            scores=out, n_items=len(pairs), predictions=predictions.reset_index(names="item"),
            counts={"pairs": len(pairs), "missing_scores": int(missing.sum()),
                    "missing_policy": self.options.missing, "bootstrap_resamples": self.options.bootstrap,
                    "bootstrap_method": "percentile", **{f"subset_{k}": len(v) for k, v in self.subsets.items()}},
        )


def _clean(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


@register_task
class STS3k(STSTask):
    metadata = TaskMetadata(
        name="sts3k", suite="sts", data_sources=("sts3k",), main_metric="spearman",
        # The paper's point is the adversarial pairs: their Spearman is the task's one headline, the number the
        # job line, the ranking, the leaderboards, the report and the MTEB export all show.
        main_subset="adv", version="2",
        description="STS3k: 2,800 adversarial pairs where word overlap and meaning come apart",
        subsets=("all", "non", "adv", "negative", "non_minus_adv"), reference=FODOR, published=published("sts3k"),
    )
    eval_cost = EvalCost(at_50=0.53, at_384=0.567)  # CPU s, benchmarks/eval_vs_encode.py --costs

    def read(self, data):
        pairs = loaders.read_semicolon(data.path("sts3k", "STS3k_all.txt"))
        n = len(pairs)
        non = loaders.read_indices(data.path("sts3k", "STS3k_non_adv_indices.txt"), n)
        adv = loaders.read_indices(data.path("sts3k", "STS3k_adv_noneg_indices.txt"), n)
        negative = sorted(set(range(n)) - set(non) - set(adv))
        return pairs, {"non": np.array(non), "adv": np.array(adv), "negative": np.array(negative)}


@register_task
class STS3kPilot(STSTask):
    metadata = TaskMetadata(
        name="sts3k-pilot", suite="sts", data_sources=("sts3k",), main_metric="spearman",
        description="STS3k pilot (2022): 120 simple 'the N1 Vs the N2' pairs", reference=FODOR,
    )
    eval_cost = EvalCost(at_50=0.00789, at_384=0.00823)  # CPU s, benchmarks/eval_vs_encode.py --costs
    quick = ""  # the suite's quick task: 236 texts

    def read(self, data):
        return loaders.read_semicolon(data.path("sts3k", "pilot/Fodor_pilot_2022.txt")), {}


@register_task
class STSB(STSTask):
    conformance_options = "split=dev,bootstrap=50"
    metadata = TaskMetadata(
        name="stsb", suite="sts", data_sources=("stsb",), main_metric="spearman",
        description="STS Benchmark (Cer et al. 2017); test split by default",
        reference="Cer et al. (2017), SemEval-2017 Task 1", published=published("stsb"),
    )
    eval_cost = EvalCost(at_50=0.122, at_384=0.0869)  # CPU s, benchmarks/eval_vs_encode.py --costs

    class Options(STSOptions):
        # the STS Benchmark split scored
        split: Literal["train", "dev", "test"] = "test"

    def read(self, data):
        return loaders.read_stsb(data.path("stsb", f"sts-{self.options.split}.csv")), {}


@register_task
class SICK(STSTask):
    metadata = TaskMetadata(
        name="sick", suite="sts", data_sources=("sick",), main_metric="spearman",
        description="SICK relatedness (Marelli et al. 2014); all 9,840 pairs by default",
        reference="Marelli et al. (2014), SemEval-2014 Task 1", published=published("sick"),
    )
    eval_cost = EvalCost(at_50=2.06, at_384=1.72)  # CPU s, benchmarks/eval_vs_encode.py --costs

    class Options(STSOptions):
        # the SICK split scored (all: every pair)
        split: Literal["all", "train", "trial", "test"] = "all"

    def read(self, data):
        return loaders.read_sick(data.path("sick", "SICK.txt"), self.options.split), {}


def _simple(name: str, source: str, file: str, description: str, reference: str, eval_cost: EvalCost) -> type:
    cls = type(
        name.upper().replace("-", "_"), (STSTask,),  # its name in this module: workers unpickle it by it
        {"metadata": TaskMetadata(name=name, suite="sts", data_sources=(source,), main_metric="spearman",
                                  description=description, reference=reference, published=published(name)),
         "read": lambda self, data: (loaders.read_semicolon(data.path(source, file)), {}), "eval_cost": eval_cost,
         "__module__": __name__},  # where it is defined (its registry origin), not type()'s caller
    )
    return register_task(cls)


GS2011 = _simple("gs2011", "gs2011", "GS2011_processed.csv",
                 "GS2011 transitive-verb sentence similarity (199 pairs)", "Grefenstette & Sadrzadeh (2011)",
                  EvalCost(at_50=0.0188, at_384=0.0198))
KS2013 = _simple("ks2013", "ks2013", "KS2013_processed.csv",
                 "KS2013 subject-verb-object similarity (108 pairs)", "Kartsaklis & Sadrzadeh (2013)",
                  EvalCost(at_50=0.00762, at_384=0.00752))
STSS131 = _simple("stss131", "stss131", "STS131_processed.csv",
                  "STSS-131 dictionary-definition sentence similarity", "O'Shea, Bandar & Crockett (2014)",
                  EvalCost(at_50=0.00821, at_384=0.00819))
STSB_CAPTIONS = _simple("stsb-captions", "stsb-captions", "STSb_captions_test.txt",
                        "STS-B test split, captions genre (624 pairs): Table 9's STSb-captions column",
                        "Cer et al. (2017); the STS3k authors' processed copy", EvalCost(at_50=0.052, at_384=0.0434))


@register_task
class STR2022(STSTask):
    metadata = TaskMetadata(
        name="str2022", suite="sts", data_sources=("str2022",), main_metric="spearman",
        description="STR-2022 semantic textual relatedness (5,500 pairs; research use, not redistributed)",
        reference="Abdalla, Vishnubhotla & Mohammad (2023), EACL", published=published("str2022"),
    )
    eval_cost = EvalCost(at_50=0.796, at_384=0.328)  # CPU s, benchmarks/eval_vs_encode.py --costs

    def read(self, data):
        return loaders.read_str2022(data.path("str2022", "sem_text_rel_ranked.csv")), {}
