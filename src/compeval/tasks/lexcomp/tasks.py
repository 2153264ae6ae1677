"""The six lexcomp tasks (Shwartz & Dagan 2019) as compeval Tasks.

Each task scores the majority baselines (always) and, unless ``baseline_only``, trains the
Embed-Encode-Predict grid (layer x encoder), picks the best setting on validation and only then
scores it on test. Options use ``+`` to list grid values (``encoders=none+bilstm``) because ``,``
separates options in a task spec.
"""
from __future__ import annotations

import os
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field, field_validator

from ...data.registry import DataContext
from ...errors import MissingDataError, SpecError
from ...metrics import DEFAULT_RESAMPLES, mean_ci, percentile_interval, resample_indices
from ...models.protocol import token_encoder
from ...results.schema import Score
from ...training.settings import trainer_record
from ..base import Task, TaskMetadata, TaskOutput
from ..options import TaskOptions, domain_check, path_text
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


def _grid(raw: str, allowed: tuple[str, ...], what: str) -> list[str]:
    vals = [v for v in raw.replace("|", "+").split("+") if v]
    bad = [v for v in vals if v not in allowed]
    if bad or not vals:
        raise SpecError(f"{what}={raw!r}: choose from {', '.join(allowed)} joined by '+'")
    return vals


class LexcompOptions(TaskOptions):
    """The options every lexcomp task shares: the grid and the training settings."""

    baseline_only: bool = False  # score the majority baselines only, train nothing
    encoders: str = "none+bilstm+attention"  # grid values joined by '+'
    layers: str = "top+mix"
    max_epochs: int = Field(500, ge=1)
    patience: int = Field(20, ge=1)  # epochs without a better validation score before stopping
    batch_size: int = Field(32, ge=1)
    lr: float = Field(1e-3, gt=0)  # Adam's learning rate
    hidden: int = Field(100, ge=1)

    @field_validator("encoders")
    @classmethod
    def known_encoders(cls, value: str) -> str:
        return domain_check(lambda v: _grid(v, settings.ENCODERS, "encoders"))(value)

    @field_validator("layers")
    @classmethod
    def known_layers(cls, value: str) -> str:
        return domain_check(lambda v: _grid(v, settings.LAYERS, "layers"))(value)


class LexcompTask(Task):
    default_run = False  # trains a grid of heads per model: name the task to run it
    folder: str
    kind: str  # literality | paraphrase | tagging | bnc
    Options = LexcompOptions
    options: LexcompOptions

    def __init__(self, **options: Any):
        super().__init__(**options)
        o = self.options
        self.encoders = _grid(o.encoders, settings.ENCODERS, "encoders")
        self.layers = _grid(o.layers, settings.LAYERS, "layers")
        self.train_cfg = settings.TrainConfig(max_epochs=o.max_epochs, patience=o.patience, batch_size=o.batch_size,
                                              lr=o.lr, hidden=o.hidden)
        self.splits: dict[str, list] | None = None

    @property
    def ablation(self) -> str:
        return "none"

    @property
    def bnc_dir(self) -> str | None:
        return None

    def _bnc_folder(self) -> str | None:
        """The BNC folder from the task option, the run (--bnc-dir) or $COMPEVAL_BNC_DIR; None without one."""
        found = self.bnc_dir or self.context.bnc_dir or os.environ.get("COMPEVAL_BNC_DIR")
        return str(found) if found else None

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


def _settings(layers: list[str], encoders: list[str], n_layers: int) -> list[tuple[str, str]]:
    ls = [l for l in layers if not (l == "mix" and n_layers == 1)] or ["top"]
    return [(l, e) for l in ls for e in encoders]


class SpanTask(LexcompTask):
    """Binary classification of a target span in its sentence (VPC, LVC, NC literality/relations, AN)."""

    has_paraphrase = False

    def _views(self, items: list[SpanItem]):
        """(sentences, starts, ends, paraphrases) after the ablation, which changes only the input."""
        ab = self.ablation
        sents, starts, ends = [], [], []
        for it in items:
            if ab == "phrase":
                w = list(it.words)
                w[it.start : it.end + 1] = [MASK] * (it.end - it.start + 1)
                sents.append(w), starts.append(it.start), ends.append(it.end)
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

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        import torch  # torch only when training: task discovery must stay cheap
        from torch import nn

        from . import nets

        sp = self._require()
        train, val, test = sp["train"], sp["val"], sp["test"]
        y = {k: np.array([i.label for i in v]) for k, v in sp.items()}
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
        if self.options.baseline_only:
            scores.append(Score(subset="all", metric="accuracy", value=None, n=len(test),
                                details={"reason": "baseline_only=true: no model trained"}))
            return TaskOutput(scores=scores, n_items=len(test), predictions=preds, counts=counts)

        cache = self._token_cache(model)
        try:
            data = {k: self._tensors(cache, v) for k, v in sp.items()}
        finally:
            counts["token_cache"] = {"encoded": cache.encoded, "from_disk": cache.from_disk}
            cache.close()
        n_layers, dim = data["train"][0].shape[2:]
        device = self.context.torch_device()  # validation and test data live on the training device
        data = {k: v if k == "train" else tuple(t.to(device) if t is not None else None for t in v)
                for k, v in data.items()}
        yt = {k: torch.from_numpy(v).long().to(device) for k, v in y.items()}
        use_span = self.ablation != "context-phrase"
        runs = []
        for layer, encoder in _settings(self.layers, self.encoders, n_layers):
            torch.manual_seed(seed)
            net = nets.SpanClassifier(layer, encoder, n_layers, dim, use_span=use_span,
                                      use_para=self.has_paraphrase, hidden=self.train_cfg.hidden,
                                      dropout=self.train_cfg.dropout)

            def val_score(m, _d=data["val"]):
                logits = m(*_d)
                acc = float((logits.argmax(-1) == yt["val"]).float().mean())
                return acc, -float(nn.functional.cross_entropy(logits, yt["val"]))

            res = nets.train(net, data["train"], yt["train"], nn.functional.cross_entropy, val_score,
                             self.train_cfg, seed, lengths=data["train"][1].sum(1), device=str(device),
                             name=f"{self.name} {layer}+{encoder}")
            runs.append((layer, encoder, res))
            scores.append(Score(subset=f"{layer}+{encoder}", metric="val_accuracy", value=res.best_val,
                                n=len(val), details={"best_epoch": res.best_epoch, "epochs": res.epochs,
                                                     "seconds": round(res.seconds, 1)}))
        layer, encoder, res = max(runs, key=lambda r: r[2].best_val)  # first wins ties: grid order
        with torch.no_grad():
            pred = res.model(*data["test"]).argmax(-1).cpu().numpy()
        scores.append(self._acc_score("all", pred == y["test"], seed, layer=layer, encoder=encoder,
                                      val_accuracy=res.best_val, chosen_on="validation accuracy"))
        preds["model"] = pred
        counts["grid_seconds"] = round(sum(r[2].seconds for r in runs), 1)
        counts["trainer"] = trainer_record(device)
        counts["chosen"] = f"{layer}+{encoder}"
        return TaskOutput(scores=scores, n_items=len(test), predictions=preds, counts=counts)


class TaggingTask(LexcompTask):
    """Phrase type: BIO tags per word, decoded under the B-before-I constraint; span-level F1."""

    def _f1_score(self, subset, gold, pred, seed, **details) -> Score:
        c = bio.span_counts(gold, pred)
        # bootstrap over sentences: resample rows of the (n, 3) count table, recompute micro F1
        lo = hi = None
        if len(c) > 1:
            dist = bio.f1_from_counts(c[resample_indices(len(c), DEFAULT_RESAMPLES, seed)], axis=1)
            lo, hi = percentile_interval(dist)
        return Score(subset=subset, metric="span_f1", value=float(bio.f1_from_counts(c)), ci_low=lo, ci_high=hi,
                     n=len(c), details=details)

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

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        import torch  # torch only when training: task discovery must stay cheap
        from torch import nn

        from . import nets

        sp = self._require()
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
        if self.options.baseline_only:
            scores.append(Score(subset="all", metric="span_f1", value=None, n=len(test),
                                details={"reason": "baseline_only=true: no model trained"}))
            return TaskOutput(scores=scores, n_items=len(test), predictions=preds, counts=counts)

        labels = sorted({t for i in train for t in i.tags} | {"O", "I"})
        tag_id = {t: k for k, t in enumerate(labels)}
        cache = self._token_cache(model)
        try:
            data = {k: nets.pad(cache.get([list(i.words) for i in v])) for k, v in sp.items()}
        finally:
            counts["token_cache"] = {"encoded": cache.encoded, "from_disk": cache.from_disk}
            cache.close()
        T = data["train"][0].shape[1]
        ytr = torch.full((len(train), T), -100, dtype=torch.long)
        for r, it in enumerate(train):
            ytr[r, : len(it.tags)] = torch.tensor([tag_id[t] for t in it.tags])
        n_layers, dim = data["train"][0].shape[2:]
        K = len(labels)
        device = self.context.torch_device()  # validation and test data live on the training device
        data = {k: v if k == "train" else tuple(t.to(device) for t in v) for k, v in data.items()}

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

        def val_score(m):
            logits = m(xv, mv)
            logp = torch.log_softmax(logits, -1).cpu().numpy()
            pred = [bio.viterbi(logp[r, : len(it.words)], labels) for r, it in enumerate(val)]
            return bio.span_f1(gold["val"], pred), -float(loss_fn(logits, yv))

        runs = []
        for layer, encoder in _settings(self.layers, self.encoders, n_layers):
            torch.manual_seed(seed)
            net = nets.Tagger(layer, encoder, n_layers, dim, K, hidden=self.train_cfg.hidden,
                              dropout=self.train_cfg.dropout)
            res = nets.train(net, data["train"], ytr, loss_fn, val_score, self.train_cfg, seed,
                             lengths=data["train"][1].sum(1), device=str(device), name=f"{self.name} {layer}+{encoder}")
            runs.append((layer, encoder, res))
            scores.append(Score(subset=f"{layer}+{encoder}", metric="val_span_f1", value=res.best_val, n=len(val),
                                details={"best_epoch": res.best_epoch, "epochs": res.epochs,
                                         "seconds": round(res.seconds, 1)}))
        layer, encoder, res = max(runs, key=lambda r: r[2].best_val)
        with torch.no_grad():
            pred = decode(res.model, "test")
        scores.append(self._f1_score("all", gold["test"], pred, seed, layer=layer, encoder=encoder,
                                     val_span_f1=res.best_val, chosen_on="validation span F1"))
        preds["model"] = [" ".join(t) for t in pred]
        counts["grid_seconds"] = round(sum(r[2].seconds for r in runs), 1)
        counts["trainer"] = trainer_record(device)
        counts["chosen"] = f"{layer}+{encoder}"
        return TaskOutput(scores=scores, n_items=len(test), predictions=preds, counts=counts)


def _meta(name, description, metric="accuracy"):
    return TaskMetadata(name=name, suite=SUITE, description=description, data_sources=("lexcomp",),
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

    @property
    def ablation(self) -> str:
        return self.options.ablation


@register_task
class NCRelationsTask(_ParaphraseTask):
    metadata = _meta("lexcomp-nc-relations", "Does the paraphrase explicate the noun compound? (SemEval-2013 Task 4)")
    folder = "nc_relations"


@register_task
class ANAttributesTask(_ParaphraseTask):
    metadata = _meta("lexcomp-an-attributes", "Is the attribute in '[A] refers to the [AT] of [N]' right? (HeiPLAS)")
    folder = "an_attribute_selection"


class _BNCTask(SpanTask):
    kind = "bnc"

    def missing_requirements(self) -> str | None:
        # the majority baselines need only labels and span words: without a BNC they still run
        if self._bnc_folder() or self.options.baseline_only:
            return None
        return "needs the British National Corpus (--bnc-dir or COMPEVAL_BNC_DIR)"

    class Options(LexcompOptions):
        bnc_dir: str = ""  # British National Corpus XML folder; else $COMPEVAL_BNC_DIR

        @field_validator("bnc_dir", mode="before")
        @classmethod
        def fspath(cls, value: Any) -> Any:
            return path_text(value)

    @property
    def bnc_dir(self) -> str | None:
        return self.options.bnc_dir or None


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
