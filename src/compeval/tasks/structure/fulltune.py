"""Full fine-tuning on STS3k (Figure 7; task ``sts3k-finetune-full``; docs/structure.md).

``train`` runs ``SentenceTransformerTrainer``'s steps with torch and sentence-transformers alone (no
``datasets`` or ``accelerate``, which a GPU machine may lack); the tests check it gives the Trainer's weights.
``time_one_epoch`` times one epoch of the recipe for ``benchmarks/gpu_check.py``."""
from __future__ import annotations

import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np
from pydantic import Field

from ...data.registry import DataContext
from ...errors import DataError, ModelCapabilityError, SpecError
from ...metrics import pearson_rows, percentile_interval, resample_indices, spearman_resampled, spearman_rows
from ...models.protocol import role_scorer, sentence_transformer_source
from ...results.schema import PublishedScore, Score
from ...results.store import as_written
from ..base import Task, TaskMetadata, TaskOutput
from ..options import resamples
from ..recompute import checked_column
from ..registry import register_task
from ..scoring import ComparisonOptions, compare
from ..sts.tasks import FODOR, STS3k
from ... import seeds
from ...lazy import lazy_module

pd = lazy_module("pandas")


@dataclass(frozen=True)
class Recipe:
    """The training settings of one fine-tuning (the task's options pass them; every one is recorded)."""

    epochs: int = 4
    batch_size: int = 16
    learning_rate: float = 2e-5
    warmup: float = 0.1  # share of the training steps with a linear warm-up
    seed: int = 0
    evaluate: bool = True  # the held-out part's Spearman after each epoch (a learning curve; no selection)

    def record(self) -> dict[str, Any]:
        return {**asdict(self), "loss": "CosineSimilarityLoss (MSE of cosine against the 0-1 rating)",
                "trainer": "SentenceTransformerTrainer's steps in torch (compeval fulltune.train)",
                "scheduler": "linear", "optimizer": "AdamW (fused, weight decay 0: transformers' Trainer default)",
                "max_grad_norm": 1.0}


@dataclass(frozen=True)
class Fold:
    """One training run: train on ``train``, predict ``test`` (row numbers of the task's pairs)."""

    split: str
    index: int
    train: np.ndarray
    test: np.ndarray


def k_folds(n: int, k: int, seed: int) -> list[Fold]:
    """Random k-fold partition of ``n`` pairs (scikit-learn's shuffled ``KFold``)."""
    from sklearn.model_selection import KFold

    if not 2 <= k <= n:
        raise ValueError(f"{k} folds need at least {k} pairs (got {n})")
    splitter = KFold(n_splits=k, shuffle=True, random_state=seeds.derive(seed, "sts3k-finetune-full", "folds"))
    return [Fold("random", i, np.sort(tr), np.sort(te)) for i, (tr, te) in enumerate(splitter.split(np.arange(n)))]


def bf16_supported(device: str) -> bool:
    """bfloat16 training where the device does it natively (a CUDA GPU with bf16); float32 elsewhere."""
    if not str(device).startswith("cuda"):
        return False
    import torch

    return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())


#: Progress lines where stderr is not a terminal (a log file): at most one per this many seconds.
PROGRESS_LINE_SECONDS = 30.0


class _Progress:
    """Training steps on stderr: a tqdm bar on a terminal, else a plain line every ``PROGRESS_LINE_SECONDS``
    and one at the end (a bar's carriage returns make a log one unreadable line)."""

    def __init__(self, desc: str | None, total: int):
        import sys

        self.desc, self.total, self.done, self.shown = desc, total, 0, -1
        self.bar = self.last = None
        if desc is None:
            return
        self.start = self.last = time.monotonic()
        if sys.stderr.isatty():
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="step", leave=False, dynamic_ncols=True)

    def step(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.last is not None and time.monotonic() - self.last >= PROGRESS_LINE_SECONDS:
            self._line()

    def _line(self) -> None:
        import sys

        self.last, self.shown = time.monotonic(), self.done
        print(f"{self.desc}: step {self.done}/{self.total}, {self.last - self.start:.0f} s", file=sys.stderr,
              flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.last is not None and self.shown != self.done:
            self._line()


def _batch_features(batch: dict[str, Any], device: str) -> tuple[list[dict[str, Any]], Any]:
    """The collator's batch as the loss takes it: one feature dict per sentence column, and the labels."""
    features = []
    for column in ("sentence1", "sentence2"):
        prefix = column + "_"
        features.append({k[len(prefix):]: (v.to(device) if hasattr(v, "to") else v)
                         for k, v in batch.items() if k.startswith(prefix)})
    return features, batch["label"].to(device)


def train(model: Any, a: Sequence[str], b: Sequence[str], y: Sequence[float], recipe: Recipe, device: str, *,
          held_out: tuple[Sequence[str], Sequence[str], Sequence[float]] | None = None, prompt: str = "",
          progress: str | None = None, bf16: bool | None = None) -> dict[str, Any]:
    """Fine-tune ``model`` (a SentenceTransformer, in place) on pairs ``(a, b)`` with ratings ``y`` in 0–1.

    Returns steps, seconds, training losses and (``recipe.evaluate`` with ``held_out``) the held-out Spearman
    per epoch; writes nothing. The loop replays ``SentenceTransformerTrainer`` step by step (fused AdamW, weight
    decay 0, linear schedule with ceil(warm-up share × steps) warm-up steps, clip 1.0, bf16 autocast where
    ``bf16``) and seeds as it does: ``transformers.set_seed``, each epoch's order ``randperm`` seeded with data
    seed + epoch (Accelerate's seedable sampler), the ``DataLoader`` base seed from the global generator."""
    import math

    import torch
    from sentence_transformers.sentence_transformer.data_collator import SentenceTransformerDataCollator
    from sentence_transformers.sentence_transformer.evaluation import EmbeddingSimilarityEvaluator
    from sentence_transformers.sentence_transformer.losses import CosineSimilarityLoss
    from torch.utils.data import BatchSampler, DataLoader
    from transformers import get_linear_schedule_with_warmup

    use_bf16 = bf16_supported(device) if bf16 is None else bf16
    n = len(a)
    steps_per_epoch = -(-n // recipe.batch_size)
    total = recipe.epochs * steps_per_epoch
    warmup_steps = math.ceil(total * recipe.warmup)
    log_every = max(1, min(50, steps_per_epoch))
    evaluator = None
    if recipe.evaluate and held_out is not None and len(held_out[0]) > 1:
        evaluator = EmbeddingSimilarityEvaluator(list(held_out[0]), list(held_out[1]), [float(v) for v in held_out[2]],
                                                 batch_size=max(recipe.batch_size, 32), name="held_out",
                                                 similarity_fn_names=["cosine"], write_csv=False,
                                                 show_progress_bar=False)
    rows = [{"sentence1": s1, "sentence2": s2, "score": float(v)} for s1, s2, v in zip(a, b, y)]
    collate = SentenceTransformerDataCollator(preprocess_fn=model.preprocess, prompts=prompt or None)
    data_seed = seeds.derive(recipe.seed, "fine-tune", "data-order")
    cuda = str(device).startswith("cuda")
    losses: list[float] = []
    curve: list[float] = []
    bar = _Progress(progress, total)
    # the global generators seeded as the Trainer seeds them (dropout), restored after
    with seeds.trainer_scope(recipe.seed, "fine-tune", "trainer"):
        model.to(device)
        loss_fn = CosineSimilarityLoss(model)
        params = [p for p in model.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(params, lr=recipe.learning_rate, betas=(0.9, 0.999), eps=1e-8,
                                      weight_decay=0.0, fused=True)
        schedule = get_linear_schedule_with_warmup(optimizer, warmup_steps, total)
        start = time.perf_counter()
        try:
            for epoch in range(recipe.epochs):
                batches = BatchSampler(seeds.trainer_epoch_order(data_seed, epoch, n), recipe.batch_size,
                                       drop_last=False)
                for batch in DataLoader(rows, batch_sampler=batches, collate_fn=collate, num_workers=0):
                    model.train()
                    features, labels = _batch_features(batch, device)
                    with torch.autocast("cuda" if cuda else "cpu", dtype=torch.bfloat16, enabled=use_bf16):
                        loss = loss_fn(features, labels)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(params, 1.0)
                    optimizer.step()
                    schedule.step()
                    optimizer.zero_grad(set_to_none=True)
                    losses.append(float(loss.detach()))
                    bar.step()
                if evaluator is not None:
                    curve.append(float(evaluator(model)["held_out_spearman_cosine"]))
                    # the Trainer's evaluation iterates an empty DataLoader, whose iterator draws its base
                    # seed from the global generator: the next epoch's dropout starts one draw later
                    torch.empty((), dtype=torch.int64).random_()
        finally:
            bar.close()
        if cuda:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
    model.eval()
    return {"steps": len(losses), "seconds": seconds, "train_loss": float(np.mean(losses)) if losses else float("nan"),
            "loss_log": [float(np.mean(losses[i:i + log_every])) for i in range(0, len(losses), log_every)],
            "held_out_spearman_by_epoch": curve, "bf16": use_bf16}


def cosines(model: Any, a: Sequence[str], b: Sequence[str], *, prompt: str = "", batch_size: int = 64) -> np.ndarray:
    """Cosine of each pair under ``model`` (a SentenceTransformer), each unique text encoded once."""
    from ...vectors import cosine_rows

    unique = list(dict.fromkeys([*a, *b]))
    row = {t: i for i, t in enumerate(unique)}
    vecs = model.encode(unique, batch_size=batch_size, prompt=prompt or None, convert_to_numpy=True,
                        show_progress_bar=False)
    vecs = np.asarray(vecs, dtype=np.float64)
    return cosine_rows(vecs[[row[t] for t in a]], vecs[[row[t] for t in b]])


def time_one_epoch(model: Any, pairs: Sequence[tuple[str, str, float]], device: str, *, batch_size: int = 16,
                   learning_rate: float = 2e-5, warmup: float = 0.1, seed: int = 0, bf16: bool | None = None) -> float:
    """Seconds for one epoch of the fine-tuning recipe (see the module docstring); ``model`` is trained."""
    a, b, y = zip(*pairs)
    recipe = Recipe(epochs=1, batch_size=batch_size, learning_rate=learning_rate, warmup=warmup, seed=seed,
                    evaluate=False)
    return float(train(model, a, b, y, recipe, device, bf16=bf16)["seconds"])


def save_model(model: Any, folder: Path) -> Path:
    """Write ``model`` to ``folder`` atomically (saved beside it, then renamed into place)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    model.save(str(tmp))
    if folder.exists():
        import shutil

        shutil.rmtree(folder)
    os.replace(tmp, folder)
    return folder


def fit_role_weights(sims: np.ndarray, y: np.ndarray, train: np.ndarray) -> np.ndarray:
    """The role model's 8 weights fitted on the training pairs: non-negative least squares (with an
    intercept, which no correlation sees) on the per-role similarities, unmatched role = 0."""
    from sklearn.linear_model import LinearRegression

    x = np.nan_to_num(np.asarray(sims, dtype=np.float64), nan=0.0)
    return LinearRegression(positive=True).fit(x[train], y[train]).coef_


def role_scores(sims: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ w·sim over matched roles / Σ w (the role model's ``basic`` form); all-zero weights give 0."""
    x = np.nan_to_num(np.asarray(sims, dtype=np.float64), nan=0.0)
    total = float(np.sum(weights))
    return x @ weights / total if total > 0 else np.zeros(len(x))


FIGURE7 = "Fodor, De Deyne & Suzuki (2024), Computational Linguistics, Figure 7 (read from the figure)"
_FIG7 = {"SentBERT (all-mpnet-base-v2)": {"untrained": .17, "random": .825, "non_to_adv": .40},
         "VerbNet-CN": {"untrained": .65, "random": .825, "non_to_adv": .57}}
_FIG7_NOTE = {"random": "the figure shows 0.80-0.85; its midpoint", "untrained": "Spearman on the adversarial pairs",
              "non_to_adv": "trained on non, tested on adv"}
FIGURE7_PUBLISHED = tuple(PublishedScore(model=m, subset=k, metric="spearman", value=v, citation=FIGURE7,
                                         note=_FIG7_NOTE[k]) for m, row in _FIG7.items() for k, v in row.items())
SPLITS = ("random", "non_to_adv")
SUBSET_ROWS = {"untrained": "adv", "untrained:all": "all", "untrained:non": "non", "random": "all",
               "random:non": "non", "random:adv": "adv", "non_to_adv": "adv"}


def _clean(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def correlation_scores(subset: str, pred: np.ndarray, gold: np.ndarray, bootstrap: int, seed: int,
                       details: dict[str, Any]) -> list[Score]:
    """Spearman and Pearson of ``pred`` against ``gold`` with 95% percentile-bootstrap intervals over pairs."""
    out = []
    idx = resample_indices(len(gold), bootstrap, seed) if len(gold) > 2 else None
    for metric, point, resampled in (("spearman", spearman_rows, lambda: spearman_resampled(pred, gold, idx)),
                                     ("pearson", pearson_rows, lambda: pearson_rows(pred[idx], gold[idx]))):
        value = float(point(pred, gold)) if len(gold) > 2 else float("nan")
        lo, hi = percentile_interval(resampled()) if idx is not None else (float("nan"), float("nan"))
        out.append(Score(subset=subset, metric=metric, value=_clean(value), ci_low=_clean(lo), ci_high=_clean(hi),
                         n=len(gold), details=details))
    return out


@register_task
class STS3kFinetuneFull(Task):
    default_run = False  # trains a transformer per fold (hours on a CPU): name the task to run it
    conformance_options = "n_pairs=60,folds=2,epochs=1,bootstrap=50"
    trains_model = True
    metadata = TaskMetadata(
        name="sts3k-finetune-full", suite="structure", data_sources=("sts3k",), main_metric="spearman",
        main_subset="non_to_adv",
        description="Full fine-tuning of a sentence-transformer (CosineSimilarityLoss, 4 epochs): untrained, 10-fold "
                    "random, non→adv; the role model fits its 8 weights on the same splits",
        subsets=tuple(SUBSET_ROWS), reference=FODOR, published=FIGURE7_PUBLISHED,
    )

    class Options(ComparisonOptions):
        # norm (first field, from ComparisonOptions) applies to the untrained baseline's cosines, as Table 9
        # reports the untrained models with norm=center; fine-tuned cosines are the trained model's own.
        split: Literal["all", "random", "non_to_adv", "none"] = "all"  # none: the untrained baseline only
        folds: int = Field(10, ge=2, le=100)  # k of the random split's k-fold cross-validation
        # training epochs per fold
        epochs: int = Field(4, ge=1, le=100)
        # pairs per training batch
        batch_size: int = Field(16, ge=1, le=4096)
        # the trainer's peak learning rate (after the warm-up)
        learning_rate: float = Field(2e-5, gt=0, lt=1)
        warmup: float = Field(0.1, ge=0, lt=1)  # share of the steps with a linear warm-up
        seed: int | None = Field(None, ge=0)  # folds, shuffling, dropout; None: the run's --seed
        evaluate: bool = True  # held-out Spearman after each epoch, recorded (never selects the model)
        n_pairs: int | None = Field(None, ge=4, le=2800)  # a fixed subset of STS3k (tests, quick checks)
        save_models: bool = False  # write each fold's fine-tuned model under the output folder
        # resamples behind each 95% bootstrap interval
        bootstrap: int = resamples()

    def load(self, data: DataContext) -> None:
        sts = STS3k()
        sts.load(data)
        pairs = sts.pairs.reset_index(drop=True)
        n = len(pairs)
        part = np.full(n, "negative", dtype=object)
        part[sts.subsets["non"]], part[sts.subsets["adv"]] = "non", "adv"
        rows = np.arange(n)
        if self.options.n_pairs is not None and self.options.n_pairs < n:  # the same subset on every run
            rows = np.sort(seeds.rng(0, "sts3k-finetune-full", "n_pairs").choice(n, self.options.n_pairs, replace=False))
        self.pairs = pairs.iloc[rows].reset_index(drop=True).assign(item=rows, part=part[rows])
        gold = self.pairs["gold"].to_numpy(float)
        if gold.min() < 0 or gold.max() > 1:
            raise DataError(f"STS3k ratings must lie in 0..1 for CosineSimilarityLoss; found {gold.min()}..{gold.max()}")

    def texts(self) -> list[str]:
        return self.pairs["sentence_1"].tolist() + self.pairs["sentence_2"].tolist()

    def _rows(self, part: str) -> np.ndarray:
        return np.arange(len(self.pairs)) if part == "all" else np.flatnonzero(self.pairs["part"].to_numpy() == part)

    def folds(self, seed: int) -> list[Fold]:
        """The training runs the ``split`` option asks for, in order (row numbers of ``self.pairs``)."""
        out: list[Fold] = []
        split = self.options.split
        if split in ("all", "random"):
            if len(self.pairs) < self.options.folds:
                raise SpecError(f"sts3k-finetune-full: folds={self.options.folds} needs at least that many pairs "
                                f"(n_pairs={len(self.pairs)})")
            out += k_folds(len(self.pairs), self.options.folds, seed)
        if split in ("all", "non_to_adv"):
            non, adv = self._rows("non"), self._rows("adv")
            if len(non) < 2 or len(adv) < 3:
                raise SpecError(f"sts3k-finetune-full: the non→adv split needs pairs of both kinds; this subset has "
                                f"{len(non)} non and {len(adv)} adv (raise n_pairs)")
            out.append(Fold("non_to_adv", 0, non, adv))
        return out

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        o = self.options
        seed = seed if o.seed is None else o.seed
        a, b = self.pairs["sentence_1"].tolist(), self.pairs["sentence_2"].tolist()
        gold = self.pairs["gold"].to_numpy(float)
        folds = self.folds(seed) if o.split != "none" else []
        roles = role_scorer(model) if folds else None
        source = sentence_transformer_source(model) if folds and roles is None else None
        if folds and roles is None and source is None:
            raise ModelCapabilityError(
                f"sts3k-finetune-full fine-tunes a sentence-transformer (sbert:, a Hub sentence-transformers repo, or "
                f"hf: through its pooling) or fits a role model's weights; {model.config.display} is neither "
                "(split=none scores it untrained)")
        raw = as_written(compare(model, a, b, o.norm))  # the cosines as stored: verify recomputes exactly
        recipe = Recipe(epochs=o.epochs, batch_size=o.batch_size, learning_rate=o.learning_rate, warmup=o.warmup,
                        seed=seed, evaluate=o.evaluate)
        if o.save_models and source is not None and self.context.output_dir is None:
            raise SpecError("sts3k-finetune-full: save_models=true needs the run's output folder")
        device = getattr(source, "device", None) or self.context.torch_device()
        sims = np.asarray(roles.role_similarity_matrix(a, b), dtype=float) if roles is not None else None
        predicted = {split: np.full(len(gold), np.nan) for split in SPLITS}
        fold_of = {split: np.full(len(gold), -1) for split in SPLITS}
        logs = []
        for f in folds:
            if roles is not None:
                w = fit_role_weights(sims, gold, f.train)
                pred, log = role_scores(sims[f.test], w), {"weights": [float(v) for v in w]}
            else:
                pred, log = self._fine_tune(model, source, f, a, b, gold, recipe, device)
            pred = as_written(pred)
            if np.any(fold_of[f.split][f.test] >= 0):
                raise AssertionError(f"{f.split}: a pair was predicted twice")  # the partition is k-fold's
            predicted[f.split][f.test], fold_of[f.split][f.test] = pred, f.index
            logs.append({"split": f.split, "fold": f.index, "train_pairs": len(f.train), "test_pairs": len(f.test),
                         "spearman": _clean(float(spearman_rows(pred, gold[f.test]))) if len(f.test) > 2 else None,
                         **log})
        trained = {f.split for f in folds}
        scores = self._scores(raw, {k: v for k, v in predicted.items() if k in trained}, fold_of, seed,
                              "role weights fitted" if roles is not None else "full fine-tuning")
        preds = [self.pairs[["item", "sentence_1", "sentence_2", "gold", "part"]].assign(split="untrained", fold=-1,
                                                                                       score=raw)]
        for split in SPLITS:
            done = fold_of[split] >= 0
            if done.any():
                preds.append(self.pairs.loc[done, ["item", "sentence_1", "sentence_2", "gold", "part"]].assign(
                    split=split, fold=fold_of[split][done], score=predicted[split][done]))
        return TaskOutput(scores=scores, n_items=len(gold), predictions=pd.concat(preds, ignore_index=True),
                          counts={"pairs": len(gold), "n_pairs": o.n_pairs, "missing_scores": int(np.isnan(raw).sum()),
                                  "missing_policy": "zero",
                                  "training": ("role weights (non-negative least squares, 8 roles)" if roles is not None
                                               else "full fine-tuning" if source is not None else "none"),
                                  "recipe": recipe.record() if source is not None else None,
                                  "device": device if source is not None else None,
                                  "precision": ("bfloat16" if bf16_supported(device) else "float32")
                                  if source is not None else None,
                                  "partition_seed": seed, "folds": logs, "bootstrap_resamples": o.bootstrap,
                                  **{f"pairs_{p}": int((self.pairs["part"] == p).sum())
                                     for p in ("non", "adv", "negative")}})

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """Recomputed from the per-pair ``score``; the models are not trained again, so details omit training."""
        seed = seed if self.options.seed is None else self.options.seed
        for column in ("split", "fold", "item"):
            if column not in predictions:
                raise DataError(f"{self.slug}: the predictions have no {column} column")
        split_of = predictions["split"].astype(str)
        raw = checked_column(self.slug, predictions[split_of == "untrained"].reset_index(drop=True), self.pairs,
                             ("item", "sentence_1", "sentence_2"), "score")
        position = pd.Series(np.arange(len(self.pairs)), index=self.pairs["item"].to_numpy())
        predicted, fold_of = {}, {}
        for split in SPLITS:
            rows = predictions[split_of == split]
            if rows.empty:
                continue
            items = rows["item"].astype(int)
            if not items.isin(position.index).all() or items.duplicated().any():
                raise DataError(f"{self.slug}: the predictions' {split} rows are not pairs of this subset, each once")
            at = position[items].to_numpy()
            predicted[split], fold_of[split] = np.full(len(self.pairs), np.nan), np.full(len(self.pairs), -1)
            predicted[split][at] = as_written(pd.to_numeric(rows["score"], errors="coerce").to_numpy(dtype=np.float64))
            fold_of[split][at] = rows["fold"].astype(int).to_numpy()
        return self._scores(raw, predicted, fold_of, seed, None)

    def _scores(self, raw: np.ndarray, predicted: dict[str, np.ndarray], fold_of: dict[str, np.ndarray], seed: int,
                training: str | None) -> list[Score]:
        """Spearman and Pearson per subset of ``SUBSET_ROWS``: the untrained cosines (missing ones zero, the
        STS3k authors' policy), and each trained split's held-out predictions (``predicted``, by ``fold_of``),
        with bootstrap intervals seeded by the partition ``seed``."""
        gold = self.pairs["gold"].to_numpy(float)
        untrained = np.nan_to_num(raw, nan=0.0)
        scores: list[Score] = []
        for subset, part in SUBSET_ROWS.items():
            split = subset.split(":")[0]
            if split != "untrained" and split not in predicted:
                continue
            rows = self._rows(part)
            values = untrained if split == "untrained" else predicted[split]
            details: dict[str, Any] = {"test_part": part, "split": split}
            if split != "untrained":
                if training:
                    details["training"] = training
                details["per_fold_spearman"] = [
                    _clean(float(spearman_rows(predicted[split][test], gold[test]))) if len(test) > 2 else None
                    for test in (np.flatnonzero(fold_of[split] == k) for k in np.unique(fold_of[split][fold_of[split] >= 0]))]
            scores += correlation_scores(subset, values[rows], gold[rows], self.options.bootstrap,
                                         seeds.derive(seed, "sts3k-finetune-full", "bootstrap", subset), details)
        return scores

    def _fine_tune(self, model: Any, source: Any, fold: Fold, a: list[str], b: list[str], gold: np.ndarray,
                   recipe: Recipe, device: str) -> tuple[np.ndarray, dict[str, Any]]:
        """One fold: a fresh copy of the model trained on ``fold.train``, its cosines on ``fold.test``."""
        import gc

        st = source.sentence_transformer(device)
        prompt = source.prompt or ""
        pick = lambda rows: ([a[i] for i in rows], [b[i] for i in rows], gold[rows])  # noqa: E731
        label = (f"{model.config.display} {fold.split} fold {fold.index + 1}/{self.options.folds}"
                 if fold.split == "random" else f"{model.config.display} non→adv")
        log = train(st, *pick(fold.train), recipe, device, held_out=pick(fold.test), prompt=prompt,
                    progress=label if self.context.progress else None)
        ta, tb, _ = pick(fold.test)
        pred = cosines(st, ta, tb, prompt=prompt, batch_size=max(recipe.batch_size, 32))
        if self.options.save_models:
            where = Path(self.context.output_dir) / "finetuned" / model.config.slug / self.slug / \
                f"{fold.split}-fold{fold.index}"
            log["saved_to"] = str(save_model(st, where))
        del st
        gc.collect()
        return pred, log
