"""The six lexcomp tasks (Shwartz & Dagan 2019) as compeval Tasks.

Each task scores the majority baselines (always) and, unless ``baseline_only``, trains the
Embed-Encode-Predict grid (layer x encoder), picks the best setting on validation and only then
scores it on test. Options use ``+`` to list grid values (``encoders=none+bilstm``) because ``,``
separates options in a task spec.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Literal

import numpy as np
import pandas as pd
from pydantic import Field, field_validator

from ...data.registry import DataContext
from ...errors import MissingDataError, SpecError
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
    """The options every lexcomp task shares: the grid, the head's width and the trainer's settings
    (``EarlyStopping``, named by their own names: ``max_epochs``, ``patience``, ``batch_size``, ``lr``)."""

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
    predict: Callable[[Any], Any]  # trained head → test predictions
    score: Callable[..., Score]  # (predictions, seed, **details) → the test score
    column: Callable[[Any], Any]  # test predictions → the predictions file's ``model`` column
    extra: Callable[[Any, int], list[Score]] = lambda pred, seed: []  # further test scores (phrase type: per label)


class LexcompTask(Task):
    """Baselines, then the Embed-Encode-Predict grid: one head per (layer, encoder) trained with early
    stopping on validation, the best on validation scored on test. Subclasses give two hooks:
    ``_baselines`` (the majority scores, no model) and ``_head`` (inputs, targets, loss and scoring)."""
    conformance_options = "encoders=none,layers=top,max_epochs=2,patience=1,batch_size=64,hidden=8"
    not_recomputed = ("only checked (hashes, data, versions): its val_<metric> score per grid setting (layer+encoder) "
                      "is the validation metric of a head trained inside evaluate, and the predictions file holds the "
                      "test items only (no validation predictions per setting), so those scores cannot be recomputed "
                      "without refitting the heads")

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
        """Token vectors beside the run's embedding cache (``--cache-dir``; memory only with ``--no-cache``
        or outside a run)."""
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

    def _baselines(self, sp: dict[str, list], seed: int) -> tuple[list[Score], pd.DataFrame, dict[str, Any]]:
        """Hook: the scores that need no model, the test predictions table and the counts."""
        raise NotImplementedError

    def _head(self, cache: TokenCache, sp: dict[str, list], device: str) -> _Head:
        """Hook: the grid's inputs, targets, loss and scoring for this task."""
        raise NotImplementedError

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        import torch  # torch only when training: task discovery must stay cheap

        from . import nets

        sp = self._require()
        metric, n_val, n_test = self.metadata.main_metric, len(sp["val"]), len(sp["test"])
        scores, preds, counts = self._baselines(sp, seed)
        if self.options.baseline_only:
            scores.append(Score(subset="all", metric=metric, value=None, n=n_test,
                                details={"reason": "baseline_only=true: no model trained"}))
            return TaskOutput(scores=scores, n_items=n_test, predictions=preds, counts=counts)

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
            scores.append(Score(subset=f"{layer}+{encoder}", metric=f"val_{metric}", value=res.best_val, n=n_val,
                                details={"best_epoch": res.best_epoch, "epochs": res.epochs,
                                         "seconds": round(res.seconds, 1),
                                         **({"layer_weights": mix["weights"], "gamma": mix["gamma"]} if mix else {})}))
        layer, encoder, res = max(runs, key=lambda r: r[2].best_val)  # first wins ties: grid order
        with torch.no_grad():
            pred = head.predict(res.model)
        chosen_mix = mixes.get(f"{layer}+{encoder}")
        scores.append(head.score(pred, seed, layer=layer, encoder=encoder, **{f"val_{metric}": res.best_val},
                                 chosen_on=self.chosen_on,
                                 **({"layer_weights": chosen_mix["weights"]} if chosen_mix else {})))
        scores += head.extra(pred, seed)
        preds["model"] = head.column(pred)
        counts["grid_seconds"] = round(sum(r[2].seconds for r in runs), 1)
        counts["trainer"] = trainer_record(device)
        counts["chosen"] = f"{layer}+{encoder}"
        if mixes:
            counts["layer_weights"] = mixes
        return TaskOutput(scores=scores, n_items=n_test, predictions=preds, counts=counts)


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

    def _baselines(self, sp, seed):
        train, val, test = sp["train"], sp["val"], sp["test"]
        y = self._labels(sp)
        scores: list[Score] = []
        base = majority.fit_span(train)
        pv, pt = majority.predict_span(base, val), majority.predict_span(base, test)
        val_acc = {n: float((pv[n] == y["val"]).mean()) for n in majority.NAMES}
        for n in majority.NAMES:
            scores.append(self._acc_score(n, pt[n] == y["test"], seed, val_accuracy=val_acc[n]))
        best_base = max(majority.NAMES, key=lambda n: (val_acc[n], -majority.NAMES.index(n)))
        scores.append(self._acc_score("majority", pt[best_base] == y["test"], seed, chosen=best_base,
                                      chosen_on="validation accuracy",
                                      best_on_test=max(majority.NAMES, key=lambda n: (pt[n] == y["test"]).mean())))
        scores += self._human()
        preds = pd.DataFrame({"ident": [i.ident for i in test], "span": [" ".join(i.span_words) for i in test],
                              "label": y["test"], **{n: pt[n] for n in majority.NAMES}})
        counts: dict[str, Any] = {k: len(v) for k, v in sp.items()}
        counts["ablation"] = self.ablation
        if self.ablation == "phrase":
            counts["placeholder"] = SOMETHING if self.placeholder == "something" else MASK
        return scores, preds, counts

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
            predict=lambda m: m(*data["test"]).argmax(-1).cpu().numpy(),
            score=lambda pred, seed, **details: self._acc_score("all", pred == y["test"], seed, **details),
            column=lambda pred: pred)


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
        """Per span type: span F1 with precision, recall and what became of the gold and predicted spans
        (the paper's section 6 per-label analysis of phrase type)."""
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

    def _paper_majority_score(self, train, test, seed) -> Score:
        """The paper's Table 4 baseline: per-word majority tags scored as AllenNLP's span F1 reads BIO."""
        c = majority.allennlp_span_counts([list(i.tags) for i in test],
                                          majority.predict_word_tags(majority.fit_word_tags(train), test))
        lo = hi = None
        if len(c) > 1:
            lo, hi = percentile_interval(bio.f1_from_counts(c[resample_indices(len(c), DEFAULT_RESAMPLES, seed)], axis=1))
        return Score(subset="Majority_1", metric="span_f1_allennlp", value=float(bio.f1_from_counts(c)), ci_low=lo,
                     ci_high=hi, n=len(c), details={"published": 0.266, "tagger": "per-word majority, unrepaired",
                                                    "scorer": "AllenNLP SpanBasedF1Measure convention (untyped I "
                                                              "after B-X is a span of type '')"})

    def _baselines(self, sp, seed):
        train, val, test = sp["train"], sp["val"], sp["test"]
        gold = {k: [list(i.tags) for i in v] for k, v in sp.items()}
        scores: list[Score] = []
        base = majority.fit_tags(train)
        pv, pt = majority.predict_tags(base, val), majority.predict_tags(base, test)
        val_f1 = {n: bio.span_f1(gold["val"], pv[n]) for n in majority.NAMES}
        for n in majority.NAMES:
            scores.append(self._f1_score(n, gold["test"], pt[n], seed, val_span_f1=val_f1[n]))
        best_base = max(majority.NAMES, key=lambda n: (val_f1[n], -majority.NAMES.index(n)))
        scores.append(self._f1_score("majority", gold["test"], pt[best_base], seed, chosen=best_base,
                                     chosen_on="validation span F1"))
        scores.append(self._paper_majority_score(train, test, seed))
        preds = pd.DataFrame({"words": [" ".join(i.words) for i in test], "gold": [" ".join(t) for t in gold["test"]],
                              **{n: [" ".join(t) for t in pt[n]] for n in majority.NAMES}})
        counts: dict[str, Any] = {k: len(v) for k, v in sp.items()}
        return scores, preds, counts

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
            predict=lambda m: decode(m, "test"),
            score=lambda pred, seed, **details: self._f1_score("all", gold["test"], pred, seed, **details),
            column=lambda pred: [" ".join(t) for t in pred],
            extra=lambda pred, seed: self._label_scores(gold["test"], pred, seed))


def _meta(name, description, metric="accuracy"):
    # version 2: results carry the learned layer weights and phrase type's per-label scores; −Phrase uses "something"
    return TaskMetadata(name=name, version="2", suite=SUITE, description=description, data_sources=("lexcomp",),
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
