"""Skip-Thought from files in the released format, against the GRU equations written out here in numpy."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from compeval.errors import SpecError
from compeval.models.registry import ModelBuilder
from compeval.models.families.skipthought import SkipThoughtModel

pytest.importorskip("torch")
pytest.importorskip("nltk")

WORDS = ["UNK", "<eos>", "the", "school", "hired", "researcher", "was", "by", ".", "The"]
DIM, DIM_WORD = 5, 4


def _gru_params(rng, prefix):
    return {f"{prefix}_W": rng.normal(0, 0.5, (DIM_WORD, 2 * DIM)), f"{prefix}_b": rng.normal(0, 0.1, 2 * DIM),
            f"{prefix}_U": rng.normal(0, 0.5, (DIM, 2 * DIM)), f"{prefix}_Wx": rng.normal(0, 0.5, (DIM_WORD, DIM)),
            f"{prefix}_Ux": rng.normal(0, 0.5, (DIM, DIM)), f"{prefix}_bx": rng.normal(0, 0.1, DIM)}


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """A tiny model saved as ryankiros/skip-thoughts publishes its files (npz, Python-2-style pkl, npy, txt)."""
    folder = tmp_path_factory.mktemp("skipthoughts")
    rng = np.random.default_rng(0)
    params = {}
    for kind, prefixes in (("uni", ["encoder"]), ("bi", ["encoder", "encoder_r"])):
        p = {"Wemb": rng.normal(size=(3, DIM_WORD))}  # the training embedding: in the release, unused by encode
        for prefix in prefixes:
            p.update(_gru_params(rng, prefix))
        p = {k: v.astype(np.float32) for k, v in p.items()}
        np.savez(folder / f"{kind}_skip.npz", **p)
        options = {"dim": DIM, "dim_word": DIM_WORD, "encoder": "gru", "decoder": "gru", "n_words_src": 3,
                   "saveto": f"{kind}_skip.npz"}
        (folder / f"{kind}_skip.npz.pkl").write_bytes(pickle.dumps(options, protocol=2))
        table = rng.normal(size=(len(WORDS), DIM_WORD)).astype(np.float32)
        np.save(folder / f"{'u' if kind == 'uni' else 'b'}table.npy", table)
        params[kind] = (p, table)
    (folder / "dictionary.txt").write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    return folder, params


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def reference_gru(xs, p, prefix):
    """The release's gru_layer step by step (float64): r and u from slices 0 and 1, r applied to h·Ux."""
    h = np.zeros(DIM)
    W, b, U, Wx, Ux, bx = (p[f"{prefix}_{k}"].astype(np.float64) for k in ("W", "b", "U", "Wx", "Ux", "bx"))
    for x in xs:
        preact = h @ U + x @ W + b
        r, u = sigmoid(preact[:DIM]), sigmoid(preact[DIM:])
        h_tilde = np.tanh((h @ Ux) * r + x @ Wx + bx)
        h = u * h + (1 - u) * h_tilde
    return h


def reference_vector(words, params, eos=False):
    """combine-skip of one tokenised text: uni-skip and bi-skip (forward ++ backward), each unit-normed."""
    ids = [WORDS.index(w) if w in WORDS else 0 for w in words] + ([1] if eos else [])
    (pu, tu), (pb, tb) = params["uni"], params["bi"]
    uni = reference_gru(tu[ids], pu, "encoder")
    bi = np.concatenate([reference_gru(tb[ids], pb, "encoder"), reference_gru(tb[ids][::-1], pb, "encoder_r")])
    return np.concatenate([uni / np.linalg.norm(uni), bi / np.linalg.norm(bi)])


TEXTS = ["the school hired the researcher", "the researcher was hired by the school .",
         "The school hired a dog", "school", "the researcher hired the school"]


def test_combine_skip_equals_the_reference_gru(release):
    folder, params = release
    model = ModelBuilder()(f"skipthought:{folder},tok=line,batch=2")
    got = model.encode(TEXTS)
    assert got.shape == (5, 3 * DIM) and got.dtype == np.float32
    for text, vec in zip(TEXTS, got):
        ref = reference_vector(text.split(), params)  # these texts tokenise to their whitespace words
        np.testing.assert_allclose(vec, ref, rtol=1e-5, atol=1e-6)
    # word order matters (a GRU, not a bag): same words, different vectors
    assert not np.allclose(got[0], got[4])
    # uni and bi alone are the two halves of combine
    uni = SkipThoughtModel(folder, variant="uni", tok="line").encode(TEXTS)
    bi = SkipThoughtModel(folder, variant="bi", tok="line").encode(TEXTS)
    np.testing.assert_allclose(np.concatenate([uni, bi], axis=1), got, rtol=1e-6, atol=1e-7)


def test_conforms_and_runs_a_task_through_the_runner(release, tmp_path):
    from compeval.models.conformance import check_model
    from compeval.results import results_frame
    from compeval.runner import run

    folder, _ = release
    spec = f"skipthought:{folder},tok=line"
    check_model(ModelBuilder()(spec), rebuild=lambda: ModelBuilder()(spec))
    summary = run([spec], ["probe-x-as-agent,preset=school-as-agent,n_train=40,n_test=20,classifiers=logreg"],
                  tmp_path / "out", cache_dir=None)
    assert not summary.failed, summary.failed
    rows = results_frame(tmp_path / "out")
    assert set(rows["model"]) == {"combine-skip,tok=line"} and (rows["task"] == "probe-x-as-agent").all()


def test_options_change_the_computation_as_the_release_does(release):
    folder, params = release
    eos = SkipThoughtModel(folder, tok="line", eos=True).encode(TEXTS[:1])[0]
    np.testing.assert_allclose(eos, reference_vector(TEXTS[0].split(), params, eos=True), rtol=1e-5, atol=1e-6)
    raw = SkipThoughtModel(folder, tok="line", use_norm=False, variant="uni").encode(TEXTS[:1])[0]
    (pu, tu) = params["uni"]
    ids = [WORDS.index(w) for w in TEXTS[0].split()]
    np.testing.assert_allclose(raw, reference_gru(tu[ids], pu, "encoder"), rtol=1e-5, atol=1e-6)
    # NLTK's word tokenizer splits the period and the clitic; unknown words take the UNK row
    model = SkipThoughtModel(folder, tok="line")
    assert model.word_ids("the school's researcher.") == [2, 3, 0, 5, 8]
    assert model.encode([""])[0].tolist() == [0.0] * (3 * DIM)  # no words: the initial state


def test_identity_follows_the_files_and_options(release, tmp_path):
    folder, _ = release
    a, b = SkipThoughtModel(folder, tok="line"), SkipThoughtModel(folder, tok="line", variant="uni")
    assert a.config.family == "skipthought.v1" and a.config.name == "combine-skip"
    assert a.config.id != b.config.id
    assert a.config.params["weights"].startswith("sha256:")
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in folder.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    assert SkipThoughtModel(copy, tok="line").config.params["weights"] == a.config.params["weights"]
    table = np.load(copy / "utable.npy")
    table[3, 0] += 1
    np.save(copy / "utable.npy", table)
    assert SkipThoughtModel(copy, tok="line").config.params["weights"] != a.config.params["weights"]


def test_malformed_releases_are_one_line_errors(release, tmp_path):
    folder, _ = release

    def broken(edit):
        target = tmp_path / f"b{len(list(tmp_path.iterdir()))}"
        target.mkdir()
        for f in folder.iterdir():
            (target / f.name).write_bytes(f.read_bytes())
        edit(target)
        with pytest.raises(SpecError) as err:
            SkipThoughtModel(target, tok="line")
        assert "\n" not in str(err.value)
        return str(err.value)

    assert "bi_skip.npz is missing" in broken(lambda t: (t / "bi_skip.npz").unlink())
    assert "must be (" in broken(lambda t: (t / "dictionary.txt").write_text("UNK\nthe\n"))
    assert "no UNK line" in broken(lambda t: (t / "dictionary.txt").write_text("\n".join(["x"] + WORDS[1:])))

    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    assert "names builtins.print" in broken(lambda t: (t / "uni_skip.npz.pkl").write_bytes(pickle.dumps(Evil())))

    def wrong_shape(t):
        arrays = dict(np.load(t / "uni_skip.npz"))
        arrays["encoder_Ux"] = np.zeros((DIM, DIM + 1), np.float32)
        np.savez(t / "uni_skip.npz", **arrays)

    assert "encoder_Ux has shape" in broken(wrong_shape)


def test_punkt_tokenisation_needs_its_data(release):
    folder, _ = release
    import nltk

    try:
        nltk.sent_tokenize("A b. C d.")
    except LookupError:
        with pytest.raises(SpecError, match="punkt") as err:
            SkipThoughtModel(folder)
        assert "\n" not in str(err.value)
    else:  # the data is here: punkt splits sentences, then each is tokenised
        assert SkipThoughtModel(folder).word_ids("the school. the school.") == [2, 3, 8, 2, 3, 8]
