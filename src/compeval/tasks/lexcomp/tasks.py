"""The six lexcomp tasks (Shwartz & Dagan 2019): majority baselines and the Embed-Encode-Predict grid.

Grid values are joined by ``+`` (``encoders=none+bilstm``) because ``,`` separates options in a task spec."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Literal

import numpy as np
from pydantic import Field, field_validator

from ...data.registry import DataContext
from ...errors import DataError, MissingDataError, SpecError, TrainingError
from ...metrics import DEFAULT_RESAMPLES, mean_ci, percentile_interval, resample_indices
from ...models.protocol import token_encoder
from ...results.schema import Score
from ...training.settings import EarlyStopping, trainer_record
from ... import seeds
from ..base import Task, TaskMetadata, TaskOutput
from ..options import TaskOptions, domain_check
from ..registry import register_task
from . import bio, majority, settings
from .data import SpanItem, load_splits
from .published import published
from .embed import TokenCache
from ...lazy import lazy_module

pd = lazy_module("pandas")

SUITE = "lexcomp"
REFERENCE = ("Shwartz & Dagan (2019), Still a Pain in the Neck: Evaluating Text Representations on "
             "Lexical Composition, TACL")
HUMAN = {"lexcomp-vpc": 93.8, "lexcomp-lvc": 83.8, "lexcomp-nc-literality": 91.0,
         "lexcomp-nc-relations": 77.8, "lexcomp-an-attributes": 86.4}
ABLATIONS = ("none", "phrase", "context", "context-phrase")
MASK = "[MASK]"
#: The paper's −Phrase placeholder (Shwartz & Dagan 2019): a real word for every kind of model.
SOMETHING = "something"
PLACEHOLDERS = ("something", "mask")


def _grid(raw: str, allowed: tuple[str, ...], what: str) -> list[str]:
    vals = [v for v in raw.replace("|", "+").split("+") if v]
    bad = [v for v in vals if v not in allowed]
    if bad or not vals:
        raise SpecError(f"{what}={raw!r}: choose from {', '.join(allowed)} joined by '+'")
    return vals


class LexcompOptions(TaskOptions):
    """The grid, the head's width and the trainer's ``EarlyStopping`` settings, named by their own names."""

    group_prefix: ClassVar[dict[str, str]] = {"training": ""}

    baseline_only: bool = False  # score the majority baselines only, train nothing
    encoders: str = "none+bilstm+attention"  # grid values joined by '+'
    # grid values joined by '+': top (the encoder's top layer) and mix (a learned mix of its layers)
    layers: str = "top+mix"
    training: EarlyStopping = EarlyStopping()
    # the head's hidden width
    hidden: int = Field(100, ge=1)

    @field_validator("encoders")
    @classmethod
    def known_encoders(cls, value: str) -> str:
        return domain_check(lambda v: _grid(v, settings.ENCODERS, "encoders"))(value)

    @field_validator("layers")
    @classmethod
    def known_layers(cls, value: str) -> str:
        return domain_check(lambda v: _grid(v, settings.LAYERS, "layers"))(value)


@dataclass
class _Head:
    """What the grid template needs from a task to train and test one head per grid setting."""

    inputs: dict[str, tuple]  # split → the head's input tensors; validation and test on the training device
    y_train: Any
    loss: Callable[[Any, Any], Any]
    val_score: Callable[[Any], tuple[float, float]]  # (validation metric, -validation loss)
    build: Callable[[str, str, int, int], Any]  # (layer, encoder, n_layers, dim) → an untrained head
    predict: Callable[[Any, str], Any]  # (trained head, split) → its predictions on the split's items
    column: Callable[[Any], Any]  # predictions → a predictions-file column


#: The predictions file's column of a grid setting's head predictions on the validation items.
def _val_column(setting: str) -> str:
    return f"val_{setting}"


class LexcompTask(Task):
    """Baselines, then one head per (layer, encoder) with early stopping; the best on validation is tested.
    Subclasses give ``_baselines`` (the majority scores, no model) and ``_head`` (inputs, targets, loss, scoring)."""
    conformance_options = "encoders=none,layers=top,max_epochs=2,patience=1,batch_size=64,hidden=8"

    default_run = False  # trains a grid of heads per model: name the task to run it
    folder: str
    kind: str  # literality | paraphrase | tagging | bnc
    chosen_on: str  # the validation metric in words
    Options = LexcompOptions
    options: LexcompOptions

    def __init__(self, **options: Any):
        super().__init__(**options)
        o = self.options
        self.encoders = _grid(o.encoders, settings.ENCODERS, "encoders")
        self.layers = _grid(o.layers, settings.LAYERS, "layers")
        self.splits: dict[str, list] | None = None

    @property
    def ablation(self) -> str:
        return "none"

    @property
    def placeholder(self) -> str:
        return "something"

    def _bnc_folder(self) -> str | None:
        """The run's BNC folder (``--bnc-dir``, else ``$COMPEVAL_BNC_DIR`` when the run started); None without."""
        return str(self.context.bnc_dir) if self.context.bnc_dir else None

    def load(self, data: DataContext) -> None:
        self.load_error: MissingDataError | None = None
        try:
            bnc_dir = self._bnc_folder()
            self.splits = load_splits(data, self.folder, self.kind, bnc_dir=bnc_dir, task=self.name,
                                      labels_only=self.kind == "bnc" and self.options.baseline_only and not bnc_dir)
        except MissingDataError as exc:
            if self.kind != "bnc":
                raise
            self.load_error = exc  # no BNC: fail this job only (in evaluate), not the whole suite run

    def _token_cache(self, model: Any) -> TokenCache:
        """Token vectors beside the run's embedding cache (memory only with ``--no-cache`` or outside a run)."""
        return TokenCache(token_encoder(model), self.context.cache_dir)

    def _require(self) -> dict[str, list]:
        if getattr(self, "load_error", None) is not None:
            raise self.load_error
        if self.splits is None:
            raise RuntimeError(f"{self.name}: call load() before evaluate()")
        return self.splits

    def _acc_score(self, subset, correct, seed, **details) -> Score:
        correct = np.asarray(correct, dtype=np.float64)
        lo, hi = mean_ci(correct, seed=seed)
        return Score(subset=subset, metric="accuracy", value=float(correct.mean()), ci_low=lo, ci_high=hi,
                     n=len(correct), details=details)

    def _human(self) -> list[Score]:
        if self.name not in HUMAN:
            return []
        return [Score(subset="human", metric="accuracy", value=HUMAN[self.name] / 100, n=100,
                      details={"source": "Shwartz & Dagan 2019, 100 re-annotated test items (spec lexcomp.md)"})]

    #: Hook: the predictions table's columns that name each item (checked against the data) and its gold one.
    _item_columns: ClassVar[tuple[str, ...]]
    _gold: ClassVar[str]

    def _baselines(self, sp: dict[str, list]) -> tuple[pd.DataFrame, dict[str, Any]]:
        """Hook: the predictions table without the heads' columns (test, then validation rows) and the counts."""
        raise NotImplementedError

    def _metric(self, gold: pd.Series, pred: pd.Series) -> float:
        """Hook: the validation metric (what chooses a baseline and a grid setting) of written predictions."""
        raise NotImplementedError

    def _baseline_scores(self, test: pd.DataFrame, val: pd.DataFrame, seed: int) -> list[Score]:
        """Hook: the scores that need no model, from the table's test and validation rows."""
        raise NotImplementedError

    def _head_scores(self, gold: pd.Series, pred: pd.Series, seed: int, **details: Any) -> list[Score]:
        """Hook: the chosen head's test scores from its written predictions."""
        raise NotImplementedError

    def _head(self, cache: TokenCache, sp: dict[str, list], device: str) -> _Head:
        """Hook: the grid's inputs, targets, loss and scoring for this task."""
        raise NotImplementedError

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        import torch  # torch only when training: task discovery must stay cheap

        from . import nets

        sp = self._require()
        n_test = len(sp["test"])
        preds, counts = self._baselines(sp)
        if self.options.baseline_only:
            return TaskOutput(scores=self._scores(preds, seed), n_items=n_test, predictions=preds, counts=counts)

        device = self.context.torch_device()
        cache = self._token_cache(model)
        try:
            head = self._head(cache, sp, device)
        finally:
            counts["token_cache"] = {"encoded": cache.encoded, "from_disk": cache.from_disk}
            cache.close()
        train = head.inputs["train"]
        n_layers, dim = train[0].shape[2:]
        runs = []
        mixes: dict[str, dict] = {}  # setting → its learned scalar mix (section 6 of the paper)
        details: dict[str, dict] = {}  # setting → what its training recorded (the val_ score's details)
        val_rows = (preds["split"] == "val").to_numpy()
        for layer, encoder in _settings(self.layers, self.encoders, n_layers):
            # the head's initialisation and its dropout draw from torch's global generators: forked, seeded
            # from this setting's stream, restored after
            with seeds.torch_scope(seed, self.name, layer, encoder, device=device):
                res = nets.train(head.build(layer, encoder, n_layers, dim), train, head.y_train, head.loss,
                                 head.val_score, self.options.training, seeds.derive(seed, self.name, layer, encoder),
                                 lengths=train[1].sum(1), device=device, name=f"{self.name} {layer}+{encoder}")
            runs.append((layer, encoder, res))
            mix = nets.layer_weights(res.model)  # the best epoch's weights: the ones scored
            if mix is not None:
                mixes[f"{layer}+{encoder}"] = mix
            # the best epoch's head on the validation items, written: its val_ score is recomputed from them
            with torch.no_grad():
                column = head.column(head.predict(res.model, "val"))
            preds[_val_column(f"{layer}+{encoder}")] = _on_rows(column, val_rows)
            details[f"{layer}+{encoder}"] = {"best_epoch": res.best_epoch, "epochs": res.epochs,
                                             "seconds": round(res.seconds, 1),
                                             **({"layer_weights": mix["weights"], "gamma": mix["gamma"]} if mix else {})}
        layer, encoder, res = max(runs, key=lambda r: r[2].best_val)  # first wins ties: grid order
        with torch.no_grad():
            pred = head.predict(res.model, "test")
        preds["model"] = _on_rows(head.column(pred), ~val_rows)
        scores = self._scores(preds, seed, details)
        if self._chosen(preds) != f"{layer}+{encoder}":
            raise TrainingError(f"{self.name}: the head chosen in training ({layer}+{encoder}) is not the best on "
                               f"its written validation predictions ({self._chosen(preds)})")
        chosen_mix = mixes.get(f"{layer}+{encoder}")
        if chosen_mix:
            next(s for s in scores if s.subset == "all").details["layer_weights"] = chosen_mix["weights"]
        counts["grid_seconds"] = round(sum(r[2].seconds for r in runs), 1)
        counts["trainer"] = trainer_record(device)
        counts["chosen"] = f"{layer}+{encoder}"
        if mixes:
            counts["layer_weights"] = mixes
        return TaskOutput(scores=scores, n_items=n_test, predictions=preds, counts=counts)


    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """Recomputed from the predicted labels against the loaded data's gold; the heads are not refitted."""
        sp = self._require()
        if "split" not in predictions:
            raise DataError(f"{self.slug}: the predictions have no split column (written before validation "
                            "predictions were)")
        expected, _ = self._baselines(sp)
        for column in self._item_columns:
            if column not in predictions or (predictions[column].astype(str).tolist()
                                             != expected[column].astype(str).tolist()):
                raise DataError(f"{self.slug}: the predictions' {column} are not the data's items")
        return self._scores(predictions, seed)

    def _chosen(self, preds: pd.DataFrame) -> str | None:
        """The grid setting with the best validation score on the written predictions; first wins ties."""
        val = preds["split"].astype(str).to_numpy() == "val"
        best = None
        for column in [c for c in preds.columns if c.startswith("val_")]:
            value = self._metric(preds.loc[val, self._gold], preds.loc[val, column])
            if best is None or value > best[1]:
                best = (column.removeprefix("val_"), value)
        return best and best[0]

    def _scores(self, preds: pd.DataFrame, seed: int, details: dict[str, dict] | None = None) -> list[Score]:
        """Every score from the predictions table (test and validation rows), for both ``evaluate`` and
        ``score_predictions``; ``details`` are what training recorded per setting."""
        metric = self.metadata.main_metric
        split = preds["split"].astype(str).to_numpy()
        test, val = preds[split == "test"], preds[split == "val"]
        scores = self._baseline_scores(test, val, seed)
        settings_ = [c.removeprefix("val_") for c in preds.columns if c.startswith("val_")]
        if "model" not in preds or not settings_:
            scores.append(Score(subset="all", metric=metric, value=None, n=len(test),
                                details={"reason": "baseline_only=true: no model trained"}))
            return scores
        val_value = {s: self._metric(val[self._gold], val[_val_column(s)]) for s in settings_}
        for s in settings_:
            scores.append(Score(subset=s, metric=f"val_{metric}", value=val_value[s], n=len(val),
                                details=dict((details or {}).get(s, {}))))
        chosen = self._chosen(preds)
        layer, encoder = chosen.split("+")
        scores += self._head_scores(test[self._gold], test["model"], seed, layer=layer, encoder=encoder,
                                    **{f"val_{metric}": val_value[chosen]}, chosen_on=self.chosen_on)
        return scores


def _on_rows(values: Any, rows: np.ndarray) -> list:
    """A column of the predictions table holding ``values`` on ``rows`` (in order) and None elsewhere."""
    out: list = [None] * len(rows)
    for k, v in zip(np.flatnonzero(rows), list(values)):
        out[k] = v
    return out


def _settings(layers: list[str], encoders: list[str], n_layers: int) -> list[tuple[str, str]]:
    ls = [l for l in layers if not (l == "mix" and n_layers == 1)] or ["top"]
    return [(l, e) for l in ls for e in encoders]


def _on(device: str, tensors: tuple) -> tuple:
    return tuple(t.to(device) if t is not None else None for t in tensors)


class SpanTask(LexcompTask):
    """Binary classification of a target span in its sentence (VPC, LVC, NC literality/relations, AN)."""

    has_paraphrase = False
    chosen_on = "validation accuracy"

    def _views(self, items: list[SpanItem]):
        """(sentences, starts, ends, paraphrases) after the ablation, which changes only the input."""
        ab = self.ablation
        sents, starts, ends = [], [], []
        for it in items:
            if ab == "phrase" and self.placeholder == "mask":
                w = list(it.words)
                w[it.start : it.end + 1] = [MASK] * (it.end - it.start + 1)
                sents.append(w), starts.append(it.start), ends.append(it.end)
            elif ab == "phrase":  # the paper's −Phrase: the whole phrase becomes the one word "something"
                w = [*it.words[: it.start], SOMETHING, *it.words[it.end + 1 :]]
                sents.append(w), starts.append(it.start), ends.append(it.start)
            elif ab == "context":
                sents.append(list(it.span_words)), starts.append(0), ends.append(it.end - it.start)
            else:
                sents.append(list(it.words)), starts.append(it.start), ends.append(it.end)
        paras = [list(it.paraphrase or ()) for it in items] if self.has_paraphrase else None
        return sents, starts, ends, paras

    def _tensors(self, cache: TokenCache, items: list[SpanItem]):
        import torch

        from . import nets

        sents, starts, ends, paras = self._views(items)
        x, m = nets.pad(cache.get(sents))
        px = pm = None
        if paras is not None:
            px, pm = nets.pad(cache.get(paras))
        return (x, m, torch.tensor(starts), torch.tensor(ends), px, pm)

    def _labels(self, sp: dict[str, list]) -> dict[str, np.ndarray]:
        return {k: np.array([i.label for i in v]) for k, v in sp.items()}

    _item_columns = ("split", "ident", "span", "label")
    _gold = "label"

    def _baselines(self, sp):
        """The predictions table's test rows, then its validation rows (``split``): items, gold labels
        (``label``, and ``gold`` for the scoring), the majority baselines' predictions; and the counts."""
        train = sp["train"]
        y = self._labels(sp)
        base = majority.fit_span(train)
        frames = []
        for split in ("test", "val"):
            p = majority.predict_span(base, sp[split])
            frames.append(pd.DataFrame({"split": split, "ident": [i.ident for i in sp[split]],
                                        "span": [" ".join(i.span_words) for i in sp[split]], "label": y[split],
                                        **{n: p[n] for n in majority.NAMES}}))
        preds = pd.concat(frames, ignore_index=True)
        counts: dict[str, Any] = {k: len(v) for k, v in sp.items()}
        counts["ablation"] = self.ablation
        if self.ablation == "phrase":
            counts["placeholder"] = SOMETHING if self.placeholder == "something" else MASK
        return preds, counts

    @staticmethod
    def _labels_of(column: pd.Series) -> np.ndarray:
        values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
        if np.isnan(values).any():
            raise DataError(f"the predictions' {column.name} has missing labels")
        return values.astype(np.int64)

    def _metric(self, gold: pd.Series, pred: pd.Series) -> float:
        return float((self._labels_of(pred) == self._labels_of(gold)).mean())

    def _baseline_scores(self, test: pd.DataFrame, val: pd.DataFrame, seed: int) -> list[Score]:
        y_test = self._labels_of(test["label"])
        pt = {n: self._labels_of(test[n]) for n in majority.NAMES}
        val_acc = {n: self._metric(val["label"], val[n]) for n in majority.NAMES}
        scores = [self._acc_score(n, pt[n] == y_test, seed, val_accuracy=val_acc[n]) for n in majority.NAMES]
        best_base = max(majority.NAMES, key=lambda n: (val_acc[n], -majority.NAMES.index(n)))
        scores.append(self._acc_score("majority", pt[best_base] == y_test, seed, chosen=best_base,
                                      chosen_on="validation accuracy",
                                      best_on_test=max(majority.NAMES, key=lambda n: (pt[n] == y_test).mean())))
        return scores + self._human()

    def _head_scores(self, gold: pd.Series, pred: pd.Series, seed: int, **details) -> list[Score]:
        return [self._acc_score("all", self._labels_of(pred) == self._labels_of(gold), seed, **details)]

    def _head(self, cache, sp, device):
        import torch
        from torch import nn

        from . import nets

        data = {k: self._tensors(cache, v) for k, v in sp.items()}
        data = {k: v if k == "train" else _on(device, v) for k, v in data.items()}
        y = self._labels(sp)
        yt = {k: torch.from_numpy(v).long().to(device) for k, v in y.items()}
        use_span = self.ablation != "context-phrase"

        def val_score(m):
            logits = m(*data["val"])
            acc = float((logits.argmax(-1) == yt["val"]).float().mean())
            return acc, -float(nn.functional.cross_entropy(logits, yt["val"]))

        return _Head(
            inputs=data, y_train=yt["train"], loss=nn.functional.cross_entropy, val_score=val_score,
            build=lambda layer, encoder, n_layers, dim: nets.SpanClassifier(
                layer, encoder, n_layers, dim, use_span=use_span, use_para=self.has_paraphrase,
                hidden=self.options.hidden, dropout=settings.DROPOUT),
            predict=lambda m, split: m(*data[split]).argmax(-1).cpu().numpy(),
            column=lambda pred: [int(v) for v in pred])


class TaggingTask(LexcompTask):
    """Phrase type: BIO tags per word, decoded under the B-before-I constraint; span-level F1."""

    chosen_on = "validation span F1"

    def _f1_score(self, subset, gold, pred, seed, **details) -> Score:
        c = bio.span_counts(gold, pred)
        # bootstrap over sentences: resample rows of the (n, 3) count table, recompute micro F1
        lo = hi = None
        if len(c) > 1:
            dist = bio.f1_from_counts(c[resample_indices(len(c), DEFAULT_RESAMPLES, seed)], axis=1)
            lo, hi = percentile_interval(dist)
        return Score(subset=subset, metric="span_f1", value=float(bio.f1_from_counts(c)), ci_low=lo, ci_high=hi,
                     n=len(c), details=details)

    def _label_scores(self, gold, pred, seed) -> list[Score]:
        """Per span type: F1, precision, recall and the span errors (the paper's section 6 analysis)."""
        errors = bio.label_errors(gold, pred)
        out = []
        for x, e in errors.items():
            c = bio.span_counts(gold, pred, read=lambda tags, x=x: {sp for sp in bio.spans(tags) if sp[2] == x})
            lo = hi = None
            if len(c) > 1 and e["gold"] + e["predicted"] > 0:
                lo, hi = percentile_interval(bio.f1_from_counts(c[resample_indices(len(c), DEFAULT_RESAMPLES, seed)],
                                                                axis=1))
            precision = e["correct"] / e["predicted"] if e["predicted"] else None
            recall = e["correct"] / e["gold"] if e["gold"] else None
            out.append(Score(subset=f"label={x}", metric="span_f1", value=float(bio.f1_from_counts(c)), ci_low=lo,
                             ci_high=hi, n=e["gold"], details={"precision": precision, "recall": recall, **e}))
        return out

    def _paper_majority_score(self, gold, word_tags, seed) -> Score:
        """The paper's Table 4 baseline: per-word majority tags scored as AllenNLP's span F1 reads BIO."""
        c = majority.allennlp_span_counts(gold, word_tags)
        lo = hi = None
        if len(c) > 1:
            lo, hi = percentile_interval(bio.f1_from_counts(c[resample_indices(len(c), DEFAULT_RESAMPLES, seed)], axis=1))
        return Score(subset="Majority_1", metric="span_f1_allennlp", value=float(bio.f1_from_counts(c)), ci_low=lo,
                     ci_high=hi, n=len(c), details={"published": 0.266, "tagger": "per-word majority, unrepaired",
                                                    "scorer": "AllenNLP SpanBasedF1Measure convention (untyped I "
                                                              "after B-X is a span of type '')"})

    _item_columns = ("split", "words", "gold")
    _gold = "gold"

    def _baselines(self, sp):
        """The predictions table's test rows, then its validation rows (``split``): words, gold tags, the
        majority baselines' tags and (test rows) the per-word majority tags of the paper's Table 4 baseline."""
        train = sp["train"]
        base, words = majority.fit_tags(train), majority.fit_word_tags(train)
        frames = []
        for split in ("test", "val"):
            items = sp[split]
            p = majority.predict_tags(base, items)
            frame = pd.DataFrame({"split": split, "words": [" ".join(i.words) for i in items],
                                  "gold": [" ".join(i.tags) for i in items],
                                  **{n: [" ".join(t) for t in p[n]] for n in majority.NAMES}})
            if split == "test":
                frame["word_majority"] = [" ".join(t) for t in majority.predict_word_tags(words, items)]
            frames.append(frame)
        counts: dict[str, Any] = {k: len(v) for k, v in sp.items()}
        return pd.concat(frames, ignore_index=True), counts

    @staticmethod
    def _tags_of(column: pd.Series) -> list[list[str]]:
        if column.isna().any():
            raise DataError(f"the predictions' {column.name} has missing tags")
        return [str(v).split(" ") if str(v) else [] for v in column]

    def _metric(self, gold: pd.Series, pred: pd.Series) -> float:
        return bio.span_f1(self._tags_of(gold), self._tags_of(pred))

    def _baseline_scores(self, test: pd.DataFrame, val: pd.DataFrame, seed: int) -> list[Score]:
        gold = self._tags_of(test["gold"])
        pt = {n: self._tags_of(test[n]) for n in majority.NAMES}
        val_f1 = {n: self._metric(val["gold"], val[n]) for n in majority.NAMES}
        scores = [self._f1_score(n, gold, pt[n], seed, val_span_f1=val_f1[n]) for n in majority.NAMES]
        best_base = max(majority.NAMES, key=lambda n: (val_f1[n], -majority.NAMES.index(n)))
        scores.append(self._f1_score("majority", gold, pt[best_base], seed, chosen=best_base,
                                     chosen_on="validation span F1"))
        scores.append(self._paper_majority_score(gold, self._tags_of(test["word_majority"]), seed))
        return scores

    def _head_scores(self, gold: pd.Series, pred: pd.Series, seed: int, **details) -> list[Score]:
        gold_tags, pred_tags = self._tags_of(gold), self._tags_of(pred)
        return ([self._f1_score("all", gold_tags, pred_tags, seed, **details)]
                + self._label_scores(gold_tags, pred_tags, seed))

    def _head(self, cache, sp, device):
        import torch
        from torch import nn

        from . import nets

        train, val = sp["train"], sp["val"]
        labels = sorted({t for i in train for t in i.tags} | {"O", "I"})
        tag_id = {t: k for k, t in enumerate(labels)}
        K = len(labels)
        data = {k: nets.pad(cache.get([list(i.words) for i in v])) for k, v in sp.items()}
        data = {k: v if k == "train" else _on(device, v) for k, v in data.items()}
        T = data["train"][0].shape[1]
        ytr = torch.full((len(train), T), -100, dtype=torch.long)
        for r, it in enumerate(train):
            ytr[r, : len(it.tags)] = torch.tensor([tag_id[t] for t in it.tags])

        def decode(m, split):
            x, mask = data[split]
            logp = torch.log_softmax(m(x, mask), -1).cpu().numpy()
            return [bio.viterbi(logp[r, : len(it.words)], labels) for r, it in enumerate(sp[split])]

        def loss_fn(logits, y):  # logits cover the batch's longest sentence only (nets.trim)
            y = y[:, : logits.shape[1]]
            return nn.functional.cross_entropy(logits.reshape(-1, K), y.reshape(-1), ignore_index=-100)

        xv, mv = data["val"]
        yv = torch.full(mv.shape, -100, dtype=torch.long, device=device)
        for r, it in enumerate(val):
            yv[r, : len(it.tags)] = torch.tensor([tag_id.get(t, tag_id["O"]) for t in it.tags])
        gold = {k: [list(i.tags) for i in sp[k]] for k in ("val", "test")}

        def val_score(m):
            logits = m(xv, mv)
            logp = torch.log_softmax(logits, -1).cpu().numpy()
            pred = [bio.viterbi(logp[r, : len(it.words)], labels) for r, it in enumerate(val)]
            return bio.span_f1(gold["val"], pred), -float(loss_fn(logits, yv))

        return _Head(
            inputs=data, y_train=ytr, loss=loss_fn, val_score=val_score,
            build=lambda layer, encoder, n_layers, dim: nets.Tagger(layer, encoder, n_layers, dim, K,
                                                                    hidden=self.options.hidden,
                                                                    dropout=settings.DROPOUT),
            predict=decode,
            column=lambda pred: [" ".join(t) for t in pred])


def _meta(name, description, metric="accuracy"):
    # version 3: layer weights, per-label scores, −Phrase as "something", val_ scores from validation predictions
    return TaskMetadata(name=name, version="3", suite=SUITE, description=description, data_sources=("lexcomp",),
                        main_metric=metric, main_subset="all", reference=REFERENCE, published=published(name),
                        subsets=("all", "majority", "Majority_All", "Majority_1", "Majority_2"))


@register_task
class NCLiteralityTask(SpanTask):
    metadata = _meta("lexcomp-nc-literality", "Is the noun-compound constituent used literally? (Reddy et al. 2011)")
    folder, kind = "nc_literality", "literality"


class _ParaphraseTask(SpanTask):
    has_paraphrase = True
    kind = "paraphrase"

    class Options(LexcompOptions):
        ablation: Literal[ABLATIONS] = "none"  # hide the phrase, the context, or both, from the input
        # −Phrase: the phrase becomes one word "something" (the paper), or each of its words "[MASK]" (mask)
        placeholder: Literal[PLACEHOLDERS] = "something"

    @property
    def ablation(self) -> str:
        return self.options.ablation

    @property
    def placeholder(self) -> str:
        return self.options.placeholder


@register_task
class NCRelationsTask(_ParaphraseTask):
    metadata = _meta("lexcomp-nc-relations", "Does the paraphrase explicate the noun compound? (SemEval-2013 Task 4)")
    folder = "nc_relations"


@register_task
class ANAttributesTask(_ParaphraseTask):
    conformance_options = LexcompTask.conformance_options + ",ablation=context"
    metadata = _meta("lexcomp-an-attributes", "Is the attribute in '[A] refers to the [AT] of [N]' right? (HeiPLAS)")
    folder = "an_attribute_selection"


class _BNCTask(SpanTask):
    kind = "bnc"

    def missing_requirements(self) -> str | None:
        # the majority baselines need only labels and span words: without a BNC they still run
        if self._bnc_folder() or self.options.baseline_only:
            return None
        return "needs the British National Corpus (--bnc-dir or COMPEVAL_BNC_DIR)"


@register_task
class VPCTask(_BNCTask):
    metadata = _meta("lexcomp-vpc", "Is the verb + preposition a verb-particle construction? (Tu & Roth 2012; needs BNC)")
    folder = "vpc_classification"


@register_task
class LVCTask(_BNCTask):
    metadata = _meta("lexcomp-lvc", "Is the candidate a light-verb construction? (Tu & Roth 2011; needs BNC)")
    folder = "lvc_classification"


@register_task
class PhraseTypeTask(TaggingTask):
    metadata = _meta("lexcomp-phrase-type", "BIO tagging of multi-word expressions by type (STREUSLE)", "span_f1")
    folder, kind = "mwe_type", "tagging"
