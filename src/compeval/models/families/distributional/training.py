"""Training the count-based models from plain-text files (``models.md`` §6), streamed: parsed once (the
parse may be kept for reuse), then counted in chunks into sparse matrices, so memory grows with the
vocabulary, not the corpus. What decides the output is written to ``meta.json`` beside the arrays."""
from __future__ import annotations

import json
import resource
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
from scipy import sparse

from ....data.registry import sha256_file
from ....errors import CompevalError
from .parsing import Parsed, parse_corpus, parser_version, read_parsed

KINDS = ("ml", "ep", "tfp", "dl")
FORMAT_VERSION = 1


sha256_of = sha256_file  # one hashing helper for the whole package


def _chunks(items: Iterable[Parsed], size: int) -> Iterator[list[Parsed]]:
    chunk: list[Parsed] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def lemma_counts(parsed_file: Path) -> Counter:
    """Frequencies of content lemmas (stop words excluded: they are never composed)."""
    counts: Counter = Counter()
    for p in read_parsed(parsed_file):
        counts.update(lem for lem, stop in zip(p.lemmas, p.stop) if not stop)
    return counts


def window_counts(parsed_file: Path, targets: dict[str, int], contexts: dict[str, int], window: int,
                  chunk_size: int = 20000) -> sparse.csr_matrix:
    """Target × context co-occurrence counts within ``window`` alphabetic tokens on either side."""
    total = sparse.csr_matrix((len(targets), len(contexts)), dtype=np.float64)
    for chunk in _chunks(read_parsed(parsed_file), chunk_size):
        t_ids = np.fromiter((targets.get(lem, -1) for p in chunk for lem in p.lemmas), dtype=np.int64)
        c_ids = np.fromiter((contexts.get(lem, -1) if not s else -1 for p in chunk
                             for lem, s in zip(p.lemmas, p.stop)), dtype=np.int64)
        sent = np.repeat(np.arange(len(chunk)), [len(p.lemmas) for p in chunk])
        rows, cols = [], []
        for k in range(1, window + 1):
            same = sent[:-k] == sent[k:]
            for t, c in ((t_ids[:-k], c_ids[k:]), (t_ids[k:], c_ids[:-k])):
                keep = same & (t >= 0) & (c >= 0)
                rows.append(t[keep])
                cols.append(c[keep])
        r, c = np.concatenate(rows), np.concatenate(cols)
        total = total + sparse.csr_matrix((np.ones(len(r)), (r, c)), shape=total.shape)
    return total


def ppmi(counts: sparse.csr_matrix, weighting: str = "ppmi") -> sparse.csr_matrix:
    """PMI weighting of a count matrix from its own marginals; ``ppmi`` clips at 0, ``ratio`` = exp(PMI)."""
    counts = counts.tocoo()
    n = counts.sum()
    rows = np.asarray(counts.sum(axis=1)).ravel()
    cols = np.asarray(counts.sum(axis=0)).ravel()
    ratio = counts.data * n / (rows[counts.row] * cols[counts.col])
    values = np.maximum(np.log(ratio), 0.0) if weighting == "ppmi" else ratio
    out = sparse.csr_matrix((values, (counts.row, counts.col)), shape=counts.shape)
    out.eliminate_zeros()
    return out


def triple_counts(parsed_file: Path, targets: dict[str, int]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Counts of (relation, head, dependent) over target words: (labels, rel, head, dep, count)."""
    counts: Counter = Counter()
    for p in read_parsed(parsed_file):
        for h, d, r in p.arcs:
            th, td = targets.get(p.lemmas[h]), targets.get(p.lemmas[d])
            if th is not None and td is not None:
                counts[(r, th, td)] += 1
    labels = sorted({r for r, _, _ in counts})
    index = {r: i for i, r in enumerate(labels)}
    rel = np.fromiter((index[r] for r, _, _ in counts), dtype=np.int32, count=len(counts))
    head = np.fromiter((h for _, h, _ in counts), dtype=np.int32, count=len(counts))
    dep = np.fromiter((d for _, _, d in counts), dtype=np.int32, count=len(counts))
    cnt = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
    return labels, rel, head, dep, cnt


def triple_pmi(rel: np.ndarray, head: np.ndarray, dep: np.ndarray, cnt: np.ndarray) -> np.ndarray:
    """PMI of each (w, r, w′): log f(w,r,w′) f(*,r,*) / (f(w,r,*) f(*,r,w′)), marginals per relation."""
    def marginal(keys: np.ndarray) -> np.ndarray:
        _, inverse = np.unique(keys, return_inverse=True)
        return np.bincount(inverse, weights=cnt)[inverse]

    big = np.int64(1) << 32
    f_r = marginal(rel.astype(np.int64))
    f_wr = marginal(rel.astype(np.int64) * big + head)
    f_rw = marginal(rel.astype(np.int64) * big + dep)
    return np.log(cnt * f_r / (f_wr * f_rw))


def _sparse_arrays(prefix: str, m: sparse.csr_matrix) -> dict[str, np.ndarray]:
    m = m.tocsr()
    return {f"{prefix}.data": m.data.astype(np.float32), f"{prefix}.indices": m.indices.astype(np.int32),
            f"{prefix}.indptr": m.indptr.astype(np.int64), f"{prefix}.shape": np.array(m.shape, dtype=np.int64)}


def load_sparse(arrays: Any, prefix: str) -> sparse.csr_matrix:
    return sparse.csr_matrix((arrays[f"{prefix}.data"], arrays[f"{prefix}.indices"], arrays[f"{prefix}.indptr"]),
                             shape=tuple(arrays[f"{prefix}.shape"]))


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports KiB


def train_distributional(kind: str, corpus_paths: list[str | Path], out_path: str | Path, *,
                         parse_file: str | Path | None = None, n_targets: int = 30000, n_contexts: int = 3000,
                         window: int = 5, weighting: str = "ppmi", theta: int = 10, freq_threshold: int = 10,
                         pmi_threshold: float = 2.0, dims: int = 4096, n_topics: int = 1200,
                         lda_method: str = "gibbs", lda_iter: int | None = None, lda_alpha: float | None = None,
                         lda_eta: float | None = None, seed: int = 0) -> dict[str, Any]:
    """Train one model (``ml``, ``ep``, ``tfp`` or ``dl``) into the folder ``out_path``; returns (and saves)
    training time, peak memory and counts. Defaults follow ``models.md`` §6; ``dl``'s ``lda_method`` is
    ``"gibbs"`` (the paper's, 600 iterations unless ``lda_iter``) or ``"variational"`` (scikit-learn, 20), with
    the priors ``lda_alpha`` / ``lda_eta`` (``LDA_DEFAULTS``)."""
    if kind not in KINDS:
        raise CompevalError(f"unknown distributional model kind {kind!r}; choose one of {', '.join(KINDS)}")
    if lda_method not in LDA_DEFAULTS:
        raise CompevalError(f"lda_method={lda_method!r}; choose {' or '.join(LDA_DEFAULTS)}")
    lda_iter = LDA_DEFAULTS[lda_method]["iterations"] if lda_iter is None else lda_iter
    if lda_iter < 1 or n_topics < 1:
        raise CompevalError(f"lda_iter={lda_iter}, n_topics={n_topics}: both must be at least 1")
    lda_alpha = LDA_DEFAULTS[lda_method]["alpha"](n_topics) if lda_alpha is None else lda_alpha
    lda_eta = LDA_DEFAULTS[lda_method]["eta"](n_topics) if lda_eta is None else lda_eta
    if weighting not in ("ppmi", "ratio"):
        raise CompevalError(f"weighting={weighting!r}; choose ppmi or ratio")
    corpus = [Path(p) for p in corpus_paths]
    missing = [str(p) for p in corpus if not p.is_file()]
    if missing or not corpus:
        raise CompevalError(f"corpus file(s) not found: {', '.join(missing) or '(none given)'}")
    out = Path(out_path)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    corpus_hashes = {str(p): sha256_of(p) for p in corpus}
    with_arcs = kind in ("ep", "tfp")

    tmp_dir = None
    if parse_file is None:
        tmp_dir = tempfile.TemporaryDirectory(prefix="compeval-dist-")
        parsed = Path(tmp_dir.name) / "parsed.jsonl"
    else:
        parsed = Path(parse_file)
    sidecar = parsed.with_name(parsed.name + ".meta.json")
    parse_meta = {"corpus_sha256": corpus_hashes, "arcs": with_arcs, "parser": parser_version()}
    reuse = (parsed.is_file() and sidecar.is_file()
             and json.loads(sidecar.read_text()).get("corpus_sha256") == corpus_hashes
             and json.loads(sidecar.read_text()).get("arcs") == with_arcs)
    t_parse = time.perf_counter()
    if reuse:
        corpus_counts = json.loads(sidecar.read_text())["counts"]
    else:
        corpus_counts = parse_corpus(corpus, parsed, with_arcs)
        sidecar.write_text(json.dumps({**parse_meta, "counts": corpus_counts}))
    parse_seconds = time.perf_counter() - t_parse

    freq = lemma_counts(parsed)
    ranked = [w for w, _ in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))]
    target_words = ranked[:n_targets]
    context_words = ranked[:n_contexts]
    targets = {w: i for i, w in enumerate(target_words)}
    contexts = {w: i for i, w in enumerate(context_words)}
    arrays: dict[str, np.ndarray] = {}
    info: dict[str, Any] = {}

    if kind in ("ml", "ep", "dl"):
        counts = window_counts(parsed, targets, contexts, window)
        info["cooccurrence_nonzero"] = int(counts.nnz)
        if kind in ("ml", "ep"):
            arrays.update(_sparse_arrays("V", ppmi(counts, weighting)))
    if kind in ("ep", "tfp"):
        labels, rel, head, dep, cnt = triple_counts(parsed, targets)
        info["relations"] = labels
        info["triples"] = int(len(cnt))
        if kind == "ep":
            arrays.update({"T.rel": rel, "T.head": head, "T.dep": dep, "T.count": cnt.astype(np.float32)})
        else:
            pmi = triple_pmi(rel, head, dep, cnt) if len(cnt) else np.zeros(0)
            keep = (cnt >= freq_threshold) & (pmi > pmi_threshold)
            arrays.update({"W.rel": rel[keep], "W.head": head[keep], "W.dep": dep[keep],
                           "W.weight": pmi[keep].astype(np.float32)})
            arrays.update(_select_tfp_dims(len(labels), len(targets), rel[keep], head[keep], dep[keep],
                                           pmi[keep], dims))
            info["triples_kept"] = int(keep.sum())
            info["dims"] = int(len(arrays["D.block"]))
    if kind == "dl":
        has_context = np.asarray(counts.sum(axis=1)).ravel() > 0
        docs = counts[has_context]
        fit = fit_lda_gibbs if lda_method == "gibbs" else fit_lda_variational
        doc_topic, topic_word, info["lda"] = fit(docs, n_topics, lda_iter, lda_alpha, lda_eta, seed)
        arrays["L.targets"] = np.flatnonzero(has_context).astype(np.int32)
        arrays["L.p_z_given_t"] = doc_topic.astype(np.float32)
        arrays["L.log_p_c_given_z"] = np.log(topic_word).astype(np.float32)

    meta = {
        "format": FORMAT_VERSION, "kind": kind, "targets": target_words, "contexts": context_words,
        "params": {"n_targets": n_targets, "n_contexts": n_contexts, "window": window, "weighting": weighting,
                   "theta": theta, "freq_threshold": freq_threshold, "pmi_threshold": pmi_threshold,
                   "dims": dims, "n_topics": n_topics, "lda_iter": lda_iter, "seed": seed,
                   **({"lda_method": lda_method, "lda_alpha": lda_alpha, "lda_eta": lda_eta} if kind == "dl" else {})},
        "parser": parser_version(), "corpus_sha256": corpus_hashes, "corpus_counts": corpus_counts, "info": info,
    }
    np.savez(out / "arrays.npz", **arrays)
    stats = {"kind": kind, "train_seconds": round(time.perf_counter() - start, 2),
             "parse_seconds": round(parse_seconds, 2), "parse_reused": reuse, "peak_rss_mb": round(_peak_rss_mb(), 1),
             "n_targets": len(target_words), "n_contexts": len(context_words), **corpus_counts, **info}
    meta["training"] = stats
    (out / "meta.json").write_text(json.dumps(meta))
    stats["size_mb"] = round(sum(f.stat().st_size for f in out.iterdir()) / 1e6, 2)
    if tmp_dir is not None:
        tmp_dir.cleanup()
    return stats


#: Per LDA method: iterations, and the Dirichlet priors as functions of K. Gibbs: the paper's 600
#: iterations; Cheung & Penn do not give D&L's priors, so the Griffiths & Steyvers (2004) values that
#: GibbsLDA++ (the usual Gibbs LDA tool of 2010) uses by default: α = 50/K, β = 0.1. Variational: the
#: path compeval had before (20 iterations, scikit-learn's default priors 1/K).
LDA_DEFAULTS: dict[str, dict[str, Any]] = {
    "gibbs": {"iterations": 600, "alpha": lambda k: 50.0 / k, "eta": lambda k: 0.1},
    "variational": {"iterations": 20, "alpha": lambda k: 1.0 / k, "eta": lambda k: 1.0 / k},
}


def fit_lda_gibbs(docs: sparse.csr_matrix, n_topics: int, iterations: int, alpha: float, eta: float,
                  seed: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Collapsed Gibbs sampling with tomotopy (one worker, fixed priors: a seed gives the same senses); each
    target is a document of its context occurrences. Returns P(z | t) (smoothed by α), P(c | z) as the
    posterior mean (n_zc + β) / (n_z + Cβ) (a context never seen keeps the prior's mass) and what was run."""
    try:
        import tomotopy as tp
    except ImportError:
        raise CompevalError("lda_method=gibbs needs tomotopy: pip install 'compeval[lda]' "
                            "(or lda_method=variational for scikit-learn)") from None
    docs = sparse.csr_matrix(docs)
    n_docs, n_contexts = docs.shape
    model = tp.LDAModel(k=n_topics, alpha=alpha, eta=eta, seed=seed)
    model.optim_interval = 0  # keep α and β fixed (tomotopy re-estimates α every 10 iterations by default)
    names = [str(c) for c in range(n_contexts)]
    for r in range(n_docs):
        lo, hi = docs.indptr[r], docs.indptr[r + 1]
        words = [names[c] for c, n in zip(docs.indices[lo:hi], docs.data[lo:hi]) for _ in range(int(round(n)))]
        model.add_doc(words)
    model.train(iterations, workers=1, parallel=tp.ParallelScheme.NONE)
    doc_topic = np.array([d.get_topic_dist() for d in model.docs], dtype=np.float64)
    counts = np.zeros((n_topics, n_contexts))
    columns = np.array([int(w) for w in model.used_vocabs], dtype=np.int64)
    for z in range(n_topics):
        counts[z, columns] = np.asarray(model.get_topic_word_dist(z, normalize=False)) - eta  # n_zc
    topic_word = (counts + eta) / (counts.sum(axis=1, keepdims=True) + n_contexts * eta)
    doc_topic /= doc_topic.sum(axis=1, keepdims=True)
    info = {"implementation": f"tomotopy {tp.__version__} LDAModel (collapsed Gibbs sampling, 1 worker)",
            "method": "gibbs", "n_topics": n_topics, "iterations": iterations, "alpha": alpha, "eta": eta,
            "seed": seed, "tokens": int(sum(len(d.words) for d in model.docs)),
            "log_likelihood_per_word": float(model.ll_per_word)}
    return doc_topic, topic_word, info


def fit_lda_variational(docs: sparse.csr_matrix, n_topics: int, iterations: int, alpha: float, eta: float,
                        seed: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """scikit-learn's batch variational Bayes LDA; same outputs as ``fit_lda_gibbs``."""
    from sklearn.decomposition import LatentDirichletAllocation

    lda = LatentDirichletAllocation(n_components=n_topics, learning_method="batch", max_iter=iterations,
                                    doc_topic_prior=alpha, topic_word_prior=eta, random_state=seed, n_jobs=1)
    doc_topic = lda.fit_transform(docs)
    topic_word = lda.components_ / lda.components_.sum(axis=1, keepdims=True)
    info = {"implementation": "sklearn LatentDirichletAllocation (batch variational Bayes)", "method": "variational",
            "n_topics": n_topics, "max_iter": iterations, "alpha": alpha, "eta": eta, "seed": seed,
            "perplexity": float(lda.perplexity(docs))}
    return doc_topic / doc_topic.sum(axis=1, keepdims=True), topic_word, info


def _select_tfp_dims(n_rel: int, n_words: int, rel, head, dep, weight, dims: int) -> dict[str, np.ndarray]:
    """Keep the ``dims`` second-order dimensions (r, r⁻¹, v) with the most mass over the vocabulary: for
    (block, v) that mass is (W Wᵀ 1)[v], cheap to compute."""
    masses, blocks, words = [], [], []
    for r in range(n_rel):
        sel = rel == r
        w_r = sparse.csr_matrix((weight[sel], (head[sel], dep[sel])), shape=(n_words, n_words))
        ones = np.ones(n_words)
        for side, m in ((0, w_r), (1, w_r.T.tocsr())):
            mass = m @ (m.T @ ones)
            nz = np.flatnonzero(mass > 0)
            masses.append(mass[nz])
            blocks.append(np.full(len(nz), 2 * r + side, dtype=np.int32))
            words.append(nz.astype(np.int32))
    if not masses:
        return {"D.block": np.zeros(0, np.int32), "D.word": np.zeros(0, np.int32)}
    mass, block, word = np.concatenate(masses), np.concatenate(blocks), np.concatenate(words)
    top = np.argsort(-mass, kind="stable")[:dims]
    top = top[np.lexsort((word[top], block[top]))]
    return {"D.block": block[top], "D.word": word[top]}
