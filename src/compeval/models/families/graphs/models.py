"""Graph-based pair scorers: AMR-CN (role paths + word vectors), SMATCH F1 and the WL kernel, over AMR
parses from a file or over spaCy dependency graphs (a syntax-only baseline for any text)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal, Mapping, Sequence

import numpy as np

from ....errors import SpecError
from pydantic import Field

from ...options import KeepsConfig, ModelOptions, TorchOptions, identity_field
from ...protocol import can_encode
from ...registry import register_model
from ..roles.model import TOK_CHOICES, _inner_spec
from .metrics import flatten_paths, smatch_f1, wl_features, wl_similarity
from ....linguistics.roles import parse_context
from .sources import DependencyGraphs, GraphTable, load_amr_file, load_released_amrs
from .wwlk import LabelledGraph, edge_weight, initial_vectors, label_keys, penman_graph, wasserstein_distance, \
    wl_embeddings


def _graph_source(kind: str, amr: str, data_dir: Path | None = None) -> GraphTable | DependencyGraphs:
    if kind == "dep":
        return DependencyGraphs()
    if kind != "amr":
        raise SpecError(f"graphs {kind!r}: choose amr (parses from a file) or dep (spaCy dependency graphs)")
    return load_released_amrs(parse_context(data_dir)) if amr == "released" else load_amr_file(Path(amr).expanduser())


def _source_identity(source: GraphTable | DependencyGraphs) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the graphs' source adds to the params, as ``(resolved, facts)``: ``amr`` as the parses read (None
    for dependency graphs); facts the kind of graphs and the parses' digest or the parser's version."""
    if isinstance(source, DependencyGraphs):
        return {"amr": None}, {"graphs": "dep", "parser": source.version_tag}
    return {"amr": source.name}, {"graphs": "amr", "amr_sha256": source.digest}


class _GraphScorer(KeepsConfig):
    """Shared plumbing: graphs for both sides, NaN (missing=nan) or an error for texts without one."""

    def __init__(self, source: GraphTable | DependencyGraphs, missing: str):
        import networkx  # noqa: F401  (compeval[graphs]: missing → the builder's "pip install" hint, at build)
        import penman  # noqa: F401

        self.source, self.missing = source, missing

    def _graphs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> tuple[list, list]:
        if len(texts_a) != len(texts_b):
            raise ValueError(f"got {len(texts_a)} and {len(texts_b)} texts")
        return self.source.lookup(list(texts_a), self.missing), self.source.lookup(list(texts_b), self.missing)


class AmrCnModel(_GraphScorer):
    """AMR-CN: for every role path present in both graphs, the word-vector cosine of the two fillers (1/0
    string match when a filler has no vector); score = 2·Σ sims / (paths of a + paths of b)."""

    def __init__(self, inner: Any, source: GraphTable | DependencyGraphs, missing: str = "error", *,
                 options: "AmrCnOptions | None" = None):
        super().__init__(source, missing)
        if not can_encode(inner):
            raise SpecError(f"amr-cn needs a word-vector encoder; {inner.config.display} cannot encode")
        self.inner = inner
        resolved, facts = _source_identity(source)
        graphs = facts.pop("graphs")  # an option of this family (the others take it as the spec's argument)
        if options is None:  # made directly: the options its arguments amount to
            options = AmrCnOptions(graphs=graphs, missing=missing)
        resolved.update(tok=None, dtype=None, max_length=None)  # the inner model's options (its config: the child)
        self._config = options.to_model_config(f"amr-cn:{inner.config.display}", resolved=resolved,
                                               facts={**facts, "oov": "string-match"}, children=(inner.config,))

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        ga, gb = self._graphs(texts_a, texts_b)
        flat: dict[str, dict[str, str]] = {}
        for g in ga + gb:
            if g is not None and g not in flat:
                flat[g] = flatten_paths(g)
        jobs = []  # (pair, filler_a, filler_b)
        for i, (a, b) in enumerate(zip(ga, gb)):
            if a is None or b is None:
                continue
            fa, fb = flat[a], flat[b]
            jobs += [(i, fa[p], fb[p]) for p in fa if p in fb]
        words = list(dict.fromkeys([j[1] for j in jobs] + [j[2] for j in jobs]))
        words_safe = [w if w.strip() else "_" for w in words]
        vecs = np.asarray(self.inner.encode(words_safe), dtype=np.float64) if words else np.zeros((0, 1))
        norms = np.linalg.norm(vecs, axis=1)
        row = {w: k for k, w in enumerate(words)}
        sums = np.zeros(len(ga))
        for i, x, y in jobs:
            ix, iy = row[x], row[y]
            if norms[ix] > 0 and norms[iy] > 0:
                sums[i] += float(vecs[ix] @ vecs[iy]) / (norms[ix] * norms[iy])
            else:
                sums[i] += float(x == y)
        out = np.full(len(ga), np.nan)
        for i, (a, b) in enumerate(zip(ga, gb)):
            if a is not None and b is not None:
                out[i] = 2.0 * sums[i] / (len(flat[a]) + len(flat[b]))
        return out


class SmatchModel(_GraphScorer):
    """SMATCH F1 between the two sentences' graphs (seeded hill climbing, ``restarts`` random starts)."""

    def __init__(self, source: GraphTable | DependencyGraphs, restarts: int = 5, seed: int = 0,
                 missing: str = "error", *, options: "SmatchOptions | None" = None):
        super().__init__(source, missing)
        self.restarts, self.seed = restarts, seed
        options = options or SmatchOptions(restarts=restarts, seed=seed, missing=missing)  # made directly
        resolved, facts = _source_identity(source)
        self._config = options.to_model_config(f"smatch:{facts['graphs']}", resolved=resolved,
                                               facts={**facts, "score": "f1"})

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        ga, gb = self._graphs(texts_a, texts_b)
        return np.array([smatch_f1(a, b, self.restarts, self.seed) if a is not None and b is not None
                         else np.nan for a, b in zip(ga, gb)])


class WLModel(_GraphScorer):
    """Normalised Weisfeiler-Leman subtree kernel between the two sentences' graphs."""

    def __init__(self, source: GraphTable | DependencyGraphs, iterations: int = 2, strip_senses: bool = True,
                 missing: str = "error", *, options: "WLOptions | None" = None):
        super().__init__(source, missing)
        self.iterations, self.strip_senses = iterations, strip_senses
        if options is None:  # made directly: the options its arguments amount to
            options = WLOptions(iterations=iterations, senses="strip" if strip_senses else "keep", missing=missing)
        resolved, facts = _source_identity(source)
        self._config = options.to_model_config(f"wl:{facts['graphs']}", facts=facts,
                                               resolved={**resolved, "strip_senses": strip_senses})
        self._features: dict[str, Any] = {}

    def _feats(self, g: str):
        if g not in self._features:
            self._features[g] = wl_features(g, self.iterations, self.strip_senses)
        return self._features[g]

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        ga, gb = self._graphs(texts_a, texts_b)
        return np.array([wl_similarity(self._feats(a), self._feats(b)) if a is not None and b is not None
                         else np.nan for a, b in zip(ga, gb)])


class GraphOptions(ModelOptions):
    """Options of the graph families: where the parses come from, and what a missing graph gives. The
    display shows each family's own options before ``missing`` (``shown_order``), as ids written before."""

    amr: str = identity_field("released", show="never", description="released|PATH: where the AMR parses come from")
    missing: Literal["error", "nan"] = Field("error", description="a text without a graph: fail or NaN")


class WWLKModel(_GraphScorer):
    """Wasserstein Weisfeiler-Leman kernel (Opitz et al. 2021): −(earth mover's distance between the two
    graphs' WL-contextualised node embeddings), initial node vectors from a word-vector encoder."""

    def __init__(self, inner: Any, source: GraphTable | DependencyGraphs, iterations: int = 2, seed: int = 0,
                 missing: str = "error", *, options: "WWLKOptions | None" = None):
        super().__init__(source, missing)
        if not can_encode(inner):
            raise SpecError(f"wwlk needs a word-vector encoder; {inner.config.display} cannot encode")
        if iterations < 0:
            raise SpecError(f"wwlk: iterations must be 0 or more, got {iterations}")
        from importlib import metadata

        import ot  # noqa: F401  (POT; missing → the builder's "pip install 'compeval[graphs]'" hint)

        self.inner, self.iterations, self.seed = inner, iterations, seed
        options = options or WWLKOptions(iterations=iterations, seed=seed, missing=missing)  # made directly
        resolved, facts = _source_identity(source)
        facts.update({"edge_weights": "uniform(0.25,0.35) per relation", "oov": "uniform(0,1) per label",
                      "score": "-emd", "pot": metadata.version("pot")})
        self._config = options.to_model_config(
            f"wwlk:{facts['graphs']}", facts=facts, children=(inner.config,),
            resolved={**resolved, "vectors": inner.config.display})  # the vectors by the model they built
        self._graphs_memo: dict[str, LabelledGraph] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self._weights: dict[str, float] = {}

    def _graph(self, text: str) -> LabelledGraph:
        if text not in self._graphs_memo:
            self._graphs_memo[text] = penman_graph(text)
        return self._graphs_memo[text]

    def _weight(self, role: str) -> float:
        if role not in self._weights:
            self._weights[role] = edge_weight(role, self.seed)
        return self._weights[role]

    def _lookup(self, graphs: list[LabelledGraph]) -> None:
        """Encode every label key not seen yet in one call; a zero vector means the key has none."""
        keys = list(dict.fromkeys(k for g in graphs for label in g.labels for k in label_keys(label)
                                  if k not in self._vectors and k.strip()))
        if keys:
            vecs = np.asarray(self.inner.encode(keys), dtype=np.float64)
            for k, v in zip(keys, vecs):
                self._vectors[k] = v
        self._dim = next(iter(self._vectors.values())).shape[0] if self._vectors else \
            int(np.asarray(self.inner.encode(["the"])).shape[1])

    def score_pairs(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        ga, gb = self._graphs(texts_a, texts_b)
        parsed = {g: self._graph(g) for g in dict.fromkeys(ga + gb) if g is not None}
        self._lookup(list(parsed.values()))
        known = {k: v for k, v in self._vectors.items() if np.any(v)}
        emb: dict[str, np.ndarray] = {}
        for text, g in parsed.items():
            x0 = initial_vectors(g.labels, known, self._dim, self.seed)
            emb[text] = wl_embeddings(g, x0, self._weight, self.iterations)
        return np.array([-wasserstein_distance(emb[a], emb[b]) if a is not None and b is not None else np.nan
                         for a, b in zip(ga, gb)])


class AmrCnOptions(GraphOptions, TorchOptions):
    graphs: Literal["amr", "dep"] = "amr"
    tok: Literal[TOK_CHOICES] = Field("sts3k", description="tokenisation of static inner vectors")  # type: ignore[valid-type]

    shown_order: ClassVar[tuple[str, ...]] = ("graphs", "missing")


@register_model("amr-cn", 1, "AMR-CN: AMR role paths compared by word-vector cosine (Fodor et al. 2024)",
                ("amr-cn:WORDVECTORS",), extra="graphs", options=AmrCnOptions)
def _amr_cn(resolved: Any, builder: Any) -> AmrCnModel:
    opts = resolved.options
    inner = builder(_inner_spec(resolved.arg or "glove-6b-50d", opts.tok, opts, str(resolved.spec)))
    return AmrCnModel(inner, _graph_source(opts.graphs, opts.amr, builder.data_dir), opts.missing, options=opts)


class SmatchOptions(GraphOptions):
    restarts: int = Field(5, ge=1)
    seed: int = Field(0, ge=0)

    shown_order: ClassVar[tuple[str, ...]] = ("restarts", "seed", "missing")


@register_model("smatch", 1, "SMATCH F1 between AMR or dependency graphs (seeded hill climbing)",
                ("smatch:amr|dep",), extra="graphs",
                options=SmatchOptions)
def _smatch(resolved: Any, builder: Any) -> SmatchModel:
    opts = resolved.options
    return SmatchModel(_graph_source(resolved.arg or "amr", opts.amr, builder.data_dir), opts.restarts, opts.seed,
                       opts.missing, options=opts)


class WLOptions(GraphOptions):
    """``senses`` is recorded as the flag the kernel takes (``strip_senses``: true|false), as ids written
    before have it."""

    iterations: int = Field(2, ge=0)
    senses: Literal["strip", "keep"] = identity_field("strip", param="strip_senses")

    shown_order: ClassVar[tuple[str, ...]] = ("iterations", "strip_senses", "missing")


@register_model("wl", 1, "Weisfeiler-Leman subtree kernel between AMR or dependency graphs",
                ("wl:amr|dep",), extra="graphs",
                options=WLOptions)
def _wl(resolved: Any, builder: Any) -> WLModel:
    opts = resolved.options
    return WLModel(_graph_source(resolved.arg or "amr", opts.amr, builder.data_dir), opts.iterations,
                   opts.senses == "strip", opts.missing, options=opts)


class WWLKOptions(GraphOptions):
    vectors: str = Field("glove-6b-50d", description="spec of the word vectors for node labels")
    iterations: int = Field(2, ge=0)
    seed: int = Field(0, ge=0)

    shown_order: ClassVar[tuple[str, ...]] = ("iterations", "seed", "missing", "vectors")

    def shown(self, params: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str, ...]:
        """``vectors`` is recorded as the display name of the model it built, and shown when that is not the
        default's (``static:glove-6b-50d`` builds the default's ``glove-6b-50d``: not shown)."""
        out = tuple(k for k in names if k != "vectors")
        return out + (("vectors",) if params["vectors"] != type(self).model_fields["vectors"].default else ())


@register_model("wwlk", 1, "Wasserstein Weisfeiler-Leman kernel between AMR or dependency graphs (Opitz et al. "
                "2021; score = -distance)", ("wwlk:amr|dep",), extra="graphs",
                options=WWLKOptions)
def _wwlk(resolved: Any, builder: Any) -> WWLKModel:
    opts = resolved.options
    return WWLKModel(builder(opts.vectors), _graph_source(resolved.arg or "amr", opts.amr, builder.data_dir),
                     opts.iterations, opts.seed, opts.missing, options=opts)
