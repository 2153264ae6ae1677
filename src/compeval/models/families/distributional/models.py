"""The four count-based models as encoders (the kinds and compeval's choices: docs/invariance.md): a text's
content lemmas → (contextualised) word vectors → one vector by ``add`` or ``mult``.

- ``ep`` (Erk & Padó 2008): ``R_b(r) = Σ_{c: f(c,r,b) > θ} f(c,r,b)·v_c``; several neighbours sum their
  unit-length expectations (compeval's choice: E&P define one).
- ``tfp`` (Thater et al. 2010): a word in context of w′ (via r) keeps the (r, r⁻¹, v) dimensions weighted by
  w′'s first-order ω(v, r, w′); several neighbours are summed.
- ``dl`` (Dinu & Lapata 2010): ``P(z | t, C) ∝ P(z | t) Π_{c∈C} P(c | z)`` over the text's other words.
Unknown words are skipped (no known word: a zero vector, a missing cosine); a contextualised vector that
comes out all zero falls back to the plain one."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal, Sequence

import numpy as np
from scipy import sparse

from ....errors import CompevalError
from ...options import KeepsConfig, ModelOptions, identity_field
from ...protocol import ModelConfig
from .parsing import Parsed, analyse_texts
from .training import FORMAT_VERSION, load_sparse

COMPOSE = ("add", "mult")


class DistOptions(ModelOptions):
    compose: Literal["add", "mult"] = identity_field("add", show="always", description="how word vectors combine")
    # recorded as the back-off model's identity (kind, how, weights), never by its path
    backoff: str = identity_field("", show="never", description="an ml model folder for words this model never "
                                                                "saw (GENIA back-off)")


def weights_hash(path: Path) -> str:
    h = hashlib.sha256()
    for name in ("meta.json", "arrays.npz"):
        with open(path / name, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def compose(vectors: list[np.ndarray], op: str, dim: int) -> np.ndarray:
    """Sum, or a product rescaled at each step (cosine ignores scale; this avoids underflow)."""
    if not vectors:
        return np.zeros(dim, dtype=np.float64)
    if op == "add":
        return np.sum(vectors, axis=0)
    out = np.array(vectors[0], dtype=np.float64)
    for v in vectors[1:]:
        out = out * v
        peak = np.abs(out).max()
        if peak > 0:
            out /= peak
    return out


class DistributionalModel(KeepsConfig):
    """Base: loads ``meta.json`` + ``arrays.npz`` from a trained model folder."""

    needs_arcs = False

    def __init__(self, path: Path, meta: dict, arrays, compose_op: str, options: DistOptions | None = None):
        if compose_op not in COMPOSE:
            raise CompevalError(f"compose={compose_op!r}; choose add or mult")
        self.path, self.meta, self.compose_op = path, meta, compose_op
        self.targets = {w: i for i, w in enumerate(meta["targets"])}
        self.contexts = {w: i for i, w in enumerate(meta["contexts"])}
        # made directly: the options its arguments amount to (a back-off joins by with_backoff)
        self.options = options or DistOptions.model_construct(compose=compose_op)
        #: what the trained folder says: its kind, weights, parser and training parameters
        self.facts = {"kind": meta["kind"], "weights_sha256": weights_hash(path)[:16], "parser": meta["parser"],
                      **meta["params"]}
        self._config = self.configure(backoff=None)

    def configure(self, backoff: dict | None) -> ModelConfig:
        """The configuration, with the back-off model's identity (``with_backoff``: its kind, how it backs off
        and its weights, never its path) or none."""
        return self.options.to_model_config(f"dist-{self.meta['kind']}", resolved={"backoff": backoff},
                                            facts=self.facts, location=str(self.path))

    @property
    def dim(self) -> int:
        raise NotImplementedError

    def word_vectors(self, sentence: Parsed, others: list[str]) -> list[np.ndarray]:
        raise NotImplementedError

    backoff = None  # a Backoff (set by with_backoff): what an unknown word becomes

    def known(self, lemma: str) -> bool:
        return lemma in self.targets or (self.backoff is not None and self.backoff.covers(lemma))

    def content_positions(self, sentence: Parsed) -> list[int]:
        return [i for i, (lem, stop) in enumerate(zip(sentence.lemmas, sentence.stop))
                if not stop and self.known(lem)]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for k, sentences in enumerate(analyse_texts(list(texts), self.needs_arcs)):
            words = [lem for s in sentences for lem, stop in zip(s.lemmas, s.stop) if not stop]
            vectors = [v for s in sentences for v in self.word_vectors(s, words) if np.any(v)]
            out[k] = self.compose_all(vectors)
        return out

    def compose_all(self, vectors: list[np.ndarray]) -> np.ndarray:
        return compose(vectors, self.compose_op, self.dim)


class MitchellLapata(DistributionalModel):
    def __init__(self, path, meta, arrays, compose_op, options=None):
        super().__init__(path, meta, arrays, compose_op, options)
        self.V = load_sparse(arrays, "V")

    @property
    def dim(self) -> int:
        return self.V.shape[1]

    def base(self, word_id: int) -> np.ndarray:
        return self.V[word_id].toarray().ravel().astype(np.float64)

    def word_vectors(self, sentence, others):
        out = []
        for i in self.content_positions(sentence):
            lemma = sentence.lemmas[i]
            out.append(self.base(self.targets[lemma]) if lemma in self.targets else self.backoff.vector(lemma))
        return out


class ErkPado(MitchellLapata):
    needs_arcs = True

    def __init__(self, path, meta, arrays, compose_op, options=None):
        super().__init__(path, meta, arrays, compose_op, options)
        theta = meta["params"]["theta"]
        labels = meta["info"].get("relations", [])
        self.relations = {r: i for i, r in enumerate(labels)}
        keep = arrays["T.count"] > theta
        rel, head, dep, cnt = (arrays[k][keep] for k in ("T.rel", "T.head", "T.dep", "T.count"))
        n = len(self.targets)
        self.F = {}  # relation id → (head × dependent counts, its transpose), only counts above θ
        for r in np.unique(rel):
            sel = rel == r
            m = sparse.csr_matrix((cnt[sel].astype(np.float64), (head[sel], dep[sel])), shape=(n, n))
            self.F[int(r)] = (m, m.T.tocsr())

    def expectation(self, weights: sparse.csr_matrix) -> np.ndarray:
        """Σ_c f·v_c over the words c in ``weights`` (a 1 × vocabulary row), unit length or zero."""
        if weights.nnz == 0:
            return np.zeros(self.dim)
        v = np.asarray((weights @ self.V).todense()).ravel()
        norm = np.linalg.norm(v)
        return v / norm if norm > 0 else v

    def word_vectors(self, sentence, others):
        out = []
        for i in self.content_positions(sentence):
            a = self.base(self.targets[sentence.lemmas[i]])
            expect = np.zeros(self.dim)
            for h, d, label in sentence.arcs:
                r = self.relations.get(label)
                if r not in self.F or (h != i and d != i):
                    continue
                other = sentence.lemmas[d if h == i else h]
                if other not in self.targets:
                    continue
                by_head, by_dep = self.F[r]
                b = self.targets[other]
                # a is the head: heads c that take b as their r-dependent; a is the dependent: b's r-dependents.
                expect += self.expectation(by_dep[b] if h == i else by_head[b])
            contextual = a * expect
            out.append(contextual if np.any(contextual) else a)
        return out


class ThaterFurstenauPinkal(DistributionalModel):
    needs_arcs = True

    def __init__(self, path, meta, arrays, compose_op, options=None):
        super().__init__(path, meta, arrays, compose_op, options)
        labels = meta["info"].get("relations", [])
        self.relations = {r: i for i, r in enumerate(labels)}
        n = len(self.targets)
        rel, head, dep, w = (arrays[k] for k in ("W.rel", "W.head", "W.dep", "W.weight"))
        self.dim_block, self.dim_word = arrays["D.block"], arrays["D.word"]
        self.W = {}
        for r in np.unique(rel):
            sel = rel == r
            m = sparse.csr_matrix((w[sel].astype(np.float64), (head[sel], dep[sel])), shape=(n, n))
            self.W[int(r)] = (m, m.T.tocsr())
        # Per block: output positions, and the matrix whose product with a first-order row gives the block.
        self.blocks = {}
        for b in np.unique(self.dim_block):
            pos = np.flatnonzero(self.dim_block == b)
            r, side = int(b) // 2, int(b) % 2
            first = self.W[r][side]  # rows = words on this side (heads for side 0), cols = their partners
            self.blocks[int(b)] = (pos, first, first[self.dim_word[pos]].T.tocsc())

    @property
    def dim(self) -> int:
        return len(self.dim_block)

    def second_order(self, word_id: int) -> np.ndarray:
        out = np.zeros(self.dim)
        for pos, first, partners in self.blocks.values():
            row = first[word_id]
            if row.nnz:
                out[pos] = np.asarray((row @ partners).todense()).ravel()
        return out

    def word_vectors(self, sentence, others):
        out = []
        for i in self.content_positions(sentence):
            w = self.targets[sentence.lemmas[i]]
            full = self.second_order(w)
            contextual = np.zeros(self.dim)
            for h, d, label in sentence.arcs:
                r = self.relations.get(label)
                if r not in self.W or (h != i and d != i):
                    continue
                other = sentence.lemmas[d if h == i else h]
                if other not in self.targets:
                    continue
                side = 0 if h == i else 1
                block = self.blocks.get(2 * r + side)
                if block is None:
                    continue
                pos = block[0]
                # w is the head: weight heads v by ω(v, r, w′); w is the dependent: dependents v by ω(w′, r, v).
                by_head, by_dep = self.W[r]
                lift = (by_dep if side == 0 else by_head)[self.targets[other]]
                weights = np.asarray(lift[:, self.dim_word[pos]].todense()).ravel()
                contextual[pos] += full[pos] * weights
            out.append(contextual if np.any(contextual) else full)
        return out


class DinuLapata(DistributionalModel):
    def __init__(self, path, meta, arrays, compose_op, options=None):
        super().__init__(path, meta, arrays, compose_op, options)
        self.row = {int(t): k for k, t in enumerate(arrays["L.targets"])}
        with np.errstate(divide="ignore"):
            self.log_p_z_t = np.log(arrays["L.p_z_given_t"].astype(np.float64))
        self.log_p_c_z = arrays["L.log_p_c_given_z"].astype(np.float64)

    @property
    def dim(self) -> int:
        return self.log_p_c_z.shape[0]

    def word_vectors(self, sentence, others):
        out = []
        for i in self.content_positions(sentence):
            lemma = sentence.lemmas[i]
            if lemma not in self.targets:  # back-off: the latent senses of its nearest known neighbour
                lemma = self.backoff.neighbour(lemma)
            k = self.row.get(self.targets[lemma])
            if k is None:
                continue
            context = [self.contexts[c] for c in others if c in self.contexts and c != sentence.lemmas[i]]
            log_p = self.log_p_z_t[k] + self.log_p_c_z[:, context].sum(axis=1)
            out.append(log_p)  # log P(z | t, C) up to a constant
        return out

    def compose_all(self, vectors):
        if not vectors:
            return np.zeros(self.dim)
        logs = np.sum(vectors, axis=0) if self.compose_op == "mult" else None
        if logs is not None:
            return _softmax(logs)
        return np.sum([_softmax(v) for v in vectors], axis=0)


def _softmax(log_p: np.ndarray) -> np.ndarray:
    finite = np.isfinite(log_p)
    if not finite.any():
        return np.zeros_like(log_p)
    p = np.exp(log_p - log_p[finite].max())
    return p / p.sum()


CLASSES = {"ml": MitchellLapata, "ep": ErkPado, "tfp": ThaterFurstenauPinkal, "dl": DinuLapata}


class Backoff:
    """What a model does with a word it never saw in training, from a second ``ml`` model (e.g. trained on a
    domain corpus): an ``ml`` main model takes the back-off vector, its context dimensions mapped by name
    (``vector``); a ``dl`` main model, whose latent senses are not comparable across models, takes the
    P(z | t) of the word's nearest neighbour both models know (``neighbour``). No library does this."""

    def __init__(self, main: DistributionalModel, other: "MitchellLapata"):
        if not isinstance(other, MitchellLapata) or isinstance(other, ErkPado):
            raise CompevalError(f"backoff={other.path}: the back-off model must be an ml model "
                                f"(its kind is {other.meta['kind']!r})")
        if main.meta["kind"] not in ("ml", "dl"):
            raise CompevalError(f"backoff= works for ml and dl models; {main.path} is {main.meta['kind']!r}")
        self.other, self.main = other, main
        self.kind = "vector" if main.meta["kind"] == "ml" else "neighbour"
        if self.kind == "vector":
            pairs = [(j, main.contexts[c]) for c, j in other.contexts.items() if c in main.contexts]
            src, dst = (np.array(x, dtype=np.int64) for x in zip(*pairs)) if pairs else (np.zeros(0, int),) * 2
            self.remap = sparse.csr_matrix((np.ones(len(src)), (src, dst)), shape=(len(other.contexts), main.dim))
        else:
            self.candidates = [w for w in main.targets if w in other.targets
                               and main.row.get(main.targets[w]) is not None]
            rows = other.V[[other.targets[w] for w in self.candidates]].astype(np.float64)
            norms = np.sqrt(np.asarray(rows.multiply(rows).sum(axis=1)).ravel())
            self.unit = sparse.diags(np.where(norms > 0, 1.0 / np.maximum(norms, 1e-300), 0.0)) @ rows
            self._neighbours: dict[str, str | None] = {}

    def covers(self, lemma: str) -> bool:
        if lemma not in self.other.targets:
            return False
        return self.kind == "vector" or self.neighbour(lemma) is not None

    def vector(self, lemma: str) -> np.ndarray:
        return np.asarray((self.other.V[self.other.targets[lemma]] @ self.remap).todense()).ravel()

    def neighbour(self, lemma: str) -> str | None:
        if lemma not in self._neighbours:
            v = self.other.V[self.other.targets[lemma]].astype(np.float64)
            sims = np.asarray((self.unit @ v.T).todense()).ravel() if self.candidates else np.zeros(0)
            self._neighbours[lemma] = (self.candidates[int(np.argmax(sims))]
                                       if sims.size and sims.max() > 0 else None)
        return self._neighbours[lemma]


def with_backoff(model: DistributionalModel, backoff_path: str | Path) -> DistributionalModel:
    """``model`` with unknown words backed off to the ``ml`` model at ``backoff_path`` (``Backoff``);
    the back-off model's identity joins the configuration id."""
    other = load_distributional(backoff_path)
    model.backoff = Backoff(model, other)
    model._config = model.configure({"kind": other.meta["kind"], "how": model.backoff.kind,
                                     "weights_sha256": weights_hash(other.path)[:16]})
    return model


def load_distributional(path: str | Path, compose: str = "add",
                        options: DistOptions | None = None) -> DistributionalModel:
    """A trained model folder (``meta.json`` + ``arrays.npz``) → an encoder (``options``: the spec's)."""
    path = Path(path).expanduser()
    if not (path / "meta.json").is_file() or not (path / "arrays.npz").is_file():
        raise CompevalError(f"{path} is not a trained distributional model (needs meta.json and arrays.npz; "
                            "train one with benchmarks/train_distributional.py)")
    meta = json.loads((path / "meta.json").read_text())
    if meta.get("format") != FORMAT_VERSION or meta.get("kind") not in CLASSES:
        raise CompevalError(f"{path}: unsupported model format {meta.get('format')!r} / kind {meta.get('kind')!r}")
    with np.load(path / "arrays.npz") as arrays:
        return CLASSES[meta["kind"]](path, meta, dict(arrays), compose, options)
