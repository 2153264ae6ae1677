"""ELMo (``elmo:``) on a tiny random-weight biLM written in the official bilm-tf HDF5 layout.

Reference: a numpy forward pass written here from bilm-tf's definitions (TensorFlow gate order i, j, f, o,
forget bias 1, the highway's carry gate on the transform, VALID convolutions, each direction its own
stack over the reversed sentence, ``ResidualWrapper`` from the second layer), one sentence at a time, in
float64. compeval's torch module runs mixed-length batches. When ``COMPEVAL_ALLENNLP_PATH`` names an
unpacked ``allennlp==2.10.1`` wheel, AllenNLP's own ``_ElmoBiLm`` is a second reference (its unrelated
dependencies stubbed)."""
from __future__ import annotations

import hashlib
import http.server
import json
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
h5py = pytest.importorskip("h5py")

from compeval.errors import SpecError  # noqa: E402
from compeval.models.families import elmo  # noqa: E402
from compeval.models.registry import load_model  # noqa: E402

TINY = {"lstm": {"use_skip_connections": True, "projection_dim": 6, "cell_clip": 3, "proj_clip": 3, "dim": 10,
                 "n_layers": 2},
        "char_cnn": {"activation": "relu", "filters": [[1, 4], [2, 6], [3, 8]], "n_highway": 2,
                     "embedding": {"dim": 4}, "n_characters": 262, "max_characters_per_token": 12}}
SENTENCES = [["The", "dog", "carried", "on", "."], ["naïve"], ["a", "supercalifragilistic", "word", "x", "y", "z", "!"],
             ["Olive", "oil", "is", "made", "of", "olives"], []]


def write_tiny(folder: Path, options: dict = TINY, seed: int = 0, scale: float = 1.0) -> Path:
    """``options.json`` and ``weights.hdf5`` with the key names and shapes of the published files."""
    rng = np.random.default_rng(seed)
    cnn, lstm = options["char_cnn"], options["lstm"]
    dim, proj, cell = cnn["embedding"]["dim"], lstm["projection_dim"], lstm["dim"]
    n_filters = sum(n for _, n in cnn["filters"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny_options.json").write_text(json.dumps(options))
    r = lambda *shape: (scale * rng.normal(size=shape)).astype(np.float32)  # noqa: E731
    with h5py.File(folder / "tiny_weights.hdf5", "w") as f:
        f["char_embed"] = r(261, dim)
        for i, (width, num) in enumerate(cnn["filters"]):
            f[f"CNN/W_cnn_{i}"] = r(1, width, dim, num) * 0.5
            f[f"CNN/b_cnn_{i}"] = r(num) * 0.1
        for k in range(cnn["n_highway"]):
            for p in ("transform", "carry"):
                f[f"CNN_high_{k}/W_{p}"] = r(n_filters, n_filters) * 0.3
                f[f"CNN_high_{k}/b_{p}"] = r(n_filters) * 0.1
        f["CNN_proj/W_proj"] = r(n_filters, proj) * 0.3
        f["CNN_proj/b_proj"] = r(proj) * 0.1
        for d in (0, 1):
            for k in range(lstm["n_layers"]):
                key = f"RNN_{d}/RNN/MultiRNNCell/Cell{k}/LSTMCell"
                f[f"{key}/W_0"] = r(2 * proj, 4 * cell)
                f[f"{key}/B"] = r(4 * cell) * 0.5
                f[f"{key}/W_P_0"] = r(cell, proj)
    return folder


# ---------------------------------------------------------------------------------------------------------
# The independent reference (numpy, float64, one sentence at a time)

def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


class Reference:
    def __init__(self, folder: Path):
        self.o = json.loads((folder / "tiny_options.json").read_text())
        with h5py.File(folder / "tiny_weights.hdf5", "r") as f:
            self.w = {}
            f.visititems(lambda name, obj: self.w.__setitem__(name, np.asarray(obj[...], np.float64))
                         if isinstance(obj, h5py.Dataset) else None)
        self.clipped = {"cell": 0, "proj": 0}

    def char_ids(self, word: str | None, marker: int | None = None) -> list[int]:
        n = self.o["char_cnn"]["max_characters_per_token"]
        code = [260] * n  # UnicodeCharsVocabulary: pad 260, bow 258, eow 259, bos 256, eos 257
        code[0] = 258
        if word is None:
            code[1], code[2] = marker, 259
        else:
            b = word.encode("utf-8", "ignore")[: n - 2]
            for k, c in enumerate(b, start=1):
                code[k] = c
            code[len(b) + 1] = 259
        return [c + 1 for c in code]  # Batcher: ids + 1, 0 left for padding

    def token(self, ids: list[int]) -> np.ndarray:
        cnn = self.o["char_cnn"]
        table = np.vstack([np.zeros((1, cnn["embedding"]["dim"])), self.w["char_embed"]])
        emb = table[ids]  # (chars, dim)
        act = (lambda x: np.maximum(x, 0)) if cnn["activation"] == "relu" else np.tanh
        feats = []
        for i, (width, num) in enumerate(cnn["filters"]):
            W, b = self.w[f"CNN/W_cnn_{i}"][0], self.w[f"CNN/b_cnn_{i}"]  # (width, dim, num)
            conv = np.array([sum(emb[p + k] @ W[k] for k in range(width)) + b for p in range(len(ids) - width + 1)])
            feats.append(act(conv.max(axis=0)))
        x = np.concatenate(feats)
        for k in range(cnn["n_highway"]):
            g = _sigmoid(x @ self.w[f"CNN_high_{k}/W_carry"] + self.w[f"CNN_high_{k}/b_carry"])
            t = np.maximum(x @ self.w[f"CNN_high_{k}/W_transform"] + self.w[f"CNN_high_{k}/b_transform"], 0)
            x = g * t + (1 - g) * x
        return x @ self.w["CNN_proj/W_proj"] + self.w["CNN_proj/b_proj"]

    def lstm(self, xs: np.ndarray, direction: int, layer: int) -> np.ndarray:
        lo = self.o["lstm"]
        key = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
        W, B, WP = self.w[f"{key}/W_0"], self.w[f"{key}/B"], self.w[f"{key}/W_P_0"]
        c, m, out = np.zeros(lo["dim"]), np.zeros(lo["projection_dim"]), []
        for x in xs:
            i, j, f, o = np.split(np.concatenate([x, m]) @ W + B, 4)
            c = _sigmoid(f + 1.0) * c + _sigmoid(i) * np.tanh(j)
            self.clipped["cell"] += int((np.abs(c) > lo["cell_clip"]).sum())
            c = np.clip(c, -lo["cell_clip"], lo["cell_clip"])
            m = (_sigmoid(o) * np.tanh(c)) @ WP
            self.clipped["proj"] += int((np.abs(m) > lo["proj_clip"]).sum())
            m = np.clip(m, -lo["proj_clip"], lo["proj_clip"])
            out.append(m)
        return np.array(out)

    def layers(self, words: list[str]) -> np.ndarray:
        """(n_words, n_layers + 1, 2 * proj)."""
        ids = [self.char_ids(None, 256)] + [self.char_ids(w) for w in words] + [self.char_ids(None, 257)]
        tokens = np.array([self.token(i) for i in ids])
        outs = [np.concatenate([tokens, tokens], axis=1)]
        fwd, bwd = tokens, tokens[::-1]
        for k in range(self.o["lstm"]["n_layers"]):
            f, b = self.lstm(fwd, 0, k), self.lstm(bwd, 1, k)
            if k > 0:  # ResidualWrapper
                f, b = f + fwd, b + bwd
            outs.append(np.concatenate([f, b[::-1]], axis=1))
            fwd, bwd = f, b
        return np.stack(outs, axis=1)[1:-1]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return write_tiny(tmp_path_factory.mktemp("elmo"))


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def test_token_layers_equal_the_bilm_tf_arithmetic_in_mixed_batches(tiny):
    model = load_model(f"elmo:{tiny},batch=3")
    got = model.encode_tokens(SENTENCES)
    ref = Reference(tiny)
    for words, vecs in zip(SENTENCES, got):
        assert vecs.shape == (len(words), 3, 12)
        if words:
            expected = ref.layers(words)
            np.testing.assert_allclose(vecs, expected, atol=2e-5, rtol=1e-4)
            assert _cos(vecs, expected).min() >= 0.9999
    assert ref.clipped["cell"] > 0 and ref.clipped["proj"] > 0  # both clippings were exercised
    # one sentence alone gives the same vectors as inside a batch (no state is carried between sentences)
    np.testing.assert_allclose(model.encode_tokens([SENTENCES[2]])[0], got[2], atol=1e-5)


def test_layers_mix_and_sentence_vectors(tiny):
    every = load_model(f"elmo:{tiny}").encode_tokens(SENTENCES[:1])[0]
    for k in range(3):
        one = load_model(f"elmo:{tiny},layer={k}")
        np.testing.assert_allclose(one.encode_tokens(SENTENCES[:1])[0][:, 0], every[:, k], atol=1e-6)
    mean = load_model(f"elmo:{tiny},layer=mix").encode_tokens(SENTENCES[:1])[0]
    np.testing.assert_allclose(mean[:, 0], every.mean(1), atol=1e-6)
    s = np.array([0.5, -1.0, 2.0])
    mixed = load_model(f"elmo:{tiny},layer=mix,mix=0.5/-1/2").encode_tokens(SENTENCES[:1])[0]
    np.testing.assert_allclose(mixed[:, 0], np.einsum("wld,l->wd", every, np.exp(s) / np.exp(s).sum()), atol=1e-6)
    # sentence tasks: the words of the text (punctuation split off), their mean
    top = load_model(f"elmo:{tiny},layer=2")
    assert elmo.tokenize("The dog carried on.") == SENTENCES[0]
    assert elmo.tokenize("They don't, it's 3.5 km") == ["They", "do", "n't", ",", "it", "'s", "3.5", "km"]
    vec = top.encode(["The dog carried on.", ""])
    np.testing.assert_allclose(vec[0], every[:, 2].mean(0), atol=1e-6)
    assert not vec[1].any()
    ids = {load_model(f"elmo:{tiny},{o}").config.id for o in ("layer=all", "layer=0", "layer=mix", "layer=mix,mix=1/2/3")}
    assert len(ids) == 4


def test_lexcomp_token_cache_takes_elmo_vectors(tiny, tmp_path):
    from compeval.tasks.lexcomp.embed import TokenCache

    model = load_model(f"elmo:{tiny}")
    cache = TokenCache(model, tmp_path)
    vecs = cache.get([s for s in SENTENCES if s])
    assert [v.shape for v in vecs] == [(len(s), 3, 12) for s in SENTENCES if s]
    cache.close()


def test_options_file_or_folder_and_identity(tiny, tmp_path):
    by_folder = load_model(f"elmo:{tiny}").config
    by_file = load_model(f"elmo:{tiny / 'tiny_options.json'}").config
    assert by_folder.id == by_file.id
    assert by_folder.params["weights"] == "sha256:" + hashlib.sha256((tiny / "tiny_weights.hdf5").read_bytes()).hexdigest()
    other = write_tiny(tmp_path / "other", seed=1)
    assert load_model(f"elmo:{other}").config.id != by_folder.id


def _one_line(spec: str, match: str) -> str:
    with pytest.raises(SpecError, match=match) as err:
        load_model(spec).encode_tokens([["a", "b"]])
    msg = str(err.value)
    assert msg.startswith(spec) and "\n" not in msg
    return msg


def test_bad_options_weights_and_layers_are_one_line(tiny, tmp_path):
    broken = json.loads(json.dumps(TINY))
    del broken["lstm"]["dim"]
    bad = write_tiny(tmp_path / "missing")
    (bad / "tiny_options.json").write_text(json.dumps(broken))
    _one_line(f"elmo:{bad}", "has no lstm.dim, so it is not an ELMo options file; give the options.json")
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "x_options.json").write_text("[1, 2]")
    _one_line(f"elmo:{tmp_path / 'json' / 'x_options.json'}", "not an ELMo options file")
    gelu = json.loads(json.dumps(TINY))
    gelu["char_cnn"]["activation"] = "gelu"
    _one_line(f"elmo:{write_tiny(tmp_path / 'gelu', gelu)}", "activation 'gelu' is not supported")
    wider = json.loads(json.dumps(TINY))
    write_tiny(tmp_path / "wider")
    wider["lstm"]["dim"] = 12
    (tmp_path / "wider" / "tiny_options.json").write_text(json.dumps(wider))
    _one_line(f"elmo:{tmp_path / 'wider'}", r"W_0 has shape \(12, 40\), the options need \(12, 48\)")
    _one_line(f"elmo:{tiny},layer=3", "layer='3' must be one of all, 0, 1, 2, mix")
    one = json.loads(json.dumps(TINY))
    one["lstm"]["n_layers"] = 1
    _one_line(f"elmo:{write_tiny(tmp_path / 'one', one)},layer=2", "this ELMo has layers 0..1")
    _one_line(f"elmo:{tiny},layer=mix,mix=1/2", "needs layer=mix and 3 weights")
    _one_line(f"elmo:{tiny},mix=1/2/3", "needs layer=mix")
    _one_line(f"elmo:{tmp_path / 'nowhere'}", "neither a published ELMo")


# ---------------------------------------------------------------------------------------------------------
# Download of the published files (a local HTTP server stands in for AllenNLP's storage)


@pytest.fixture()
def server(tiny):
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(tiny), **k)  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def test_published_weights_download_atomically_and_are_checked(tiny, server, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPEVAL_CACHE_DIR", str(tmp_path / "cache"))
    digest = hashlib.sha256((tiny / "tiny_weights.hdf5").read_bytes()).hexdigest()
    pub = elmo.Published(server + "tiny_options.json", server + "tiny_weights.hdf5", TINY, digest)
    monkeypatch.setitem(elmo.PUBLISHED, "original", pub)
    model = load_model("elmo")
    folder = tmp_path / "cache" / "models" / "elmo" / "original"
    assert sorted(p.name for p in folder.iterdir()) == ["tiny_options.json", "tiny_weights.hdf5"]
    assert model.config.params["weights"] == "sha256:" + digest and model.config.name == "elmo-original"
    np.testing.assert_allclose(model.encode_tokens(SENTENCES[:1])[0], Reference(tiny).layers(SENTENCES[0]), atol=2e-5)
    # a wrong pin: nothing is kept
    (folder / "tiny_weights.hdf5").unlink()
    monkeypatch.setitem(elmo.PUBLISHED, "original", elmo.Published(pub.options_url, pub.weights_url, TINY, "0" * 64))
    with pytest.raises(SpecError, match="not the pinned 0000") as err:
        load_model("elmo:original")
    assert "\n" not in str(err.value) and sorted(p.name for p in folder.iterdir()) == ["tiny_options.json"]
    # no pin known: the user's sha256= is required and checked
    monkeypatch.setitem(elmo.PUBLISHED, "original", elmo.Published(pub.options_url, pub.weights_url, TINY, None))
    with pytest.raises(SpecError, match=r"no SHA-256 pinned .* ,sha256=HEX"):
        load_model("elmo:original")
    assert load_model(f"elmo:original,sha256={digest}").config.params["weights"] == "sha256:" + digest
    # options that are not the published ones are refused
    monkeypatch.setitem(elmo.PUBLISHED, "original", elmo.Published(pub.options_url, pub.weights_url, elmo.ORIGINAL_OPTIONS,
                                                                   digest))
    with pytest.raises(SpecError, match="is not the published original options file"):
        load_model("elmo:original")


def test_download_failure_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(elmo.PUBLISHED, "original", elmo.Published("http://127.0.0.1:9/o.json",
                                                                   "http://127.0.0.1:9/w.hdf5", TINY, "0" * 64))
    with pytest.raises(SpecError, match="cannot download http://127.0.0.1:9/o.json .*use elmo:PATH") as err:
        load_model("elmo:original")
    assert "\n" not in str(err.value)
    assert not any((tmp_path / "cache" / "models" / "elmo" / "original").iterdir())


# ---------------------------------------------------------------------------------------------------------
# AllenNLP's own modules, when an unpacked allennlp 2.10.1 wheel is named (its other dependencies stubbed)


def _allennlp_elmo(path: str):
    import importlib.abc
    import importlib.machinery
    from unittest import mock

    stubs: set[str] = set()
    full = {"allennlp.common.push_to_hf", "allennlp.nn.parallel.fairscale_fsdp_accelerator"}

    class Stub(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path_, target=None):
            if name.split(".")[0] in stubs or name in full:
                return importlib.machinery.ModuleSpec(name, self, is_package=True)
            return None

        def create_module(self, spec):
            m = mock.MagicMock(name=spec.name)
            m.__path__, m.__spec__, m.__name__ = [], spec, spec.name
            return m

        def exec_module(self, module):
            pass

    sys.path.insert(0, path)
    sys.meta_path.insert(0, Stub())
    for _ in range(40):
        try:
            from allennlp.modules import elmo as allen
            from allennlp.modules import elmo_lstm

            allen.cached_path = elmo_lstm.cached_path = lambda p: p  # local files; cached_path is a stub
            return allen
        except ModuleNotFoundError as exc:
            stubs.add(exc.name.split(".")[0])
            for k in [k for k in sys.modules if k.startswith("allennlp")]:
                del sys.modules[k]
    pytest.skip(f"cannot import allennlp's ELMo modules from {path}")


@pytest.mark.skipif(not os.environ.get("COMPEVAL_ALLENNLP_PATH"), reason="COMPEVAL_ALLENNLP_PATH not set "
                    "(an unpacked allennlp==2.10.1 wheel)")
def test_equals_allennlp_elmo_bilm(tiny):
    allen = _allennlp_elmo(os.environ["COMPEVAL_ALLENNLP_PATH"])
    sentences = [s for s in SENTENCES if s]
    # AllenNLP's char ids have 50 characters per word
    options = json.loads(json.dumps(TINY))
    options["char_cnn"]["max_characters_per_token"] = 50
    folder = write_tiny(tiny.parent / "allen", options)
    bilm = allen._ElmoBiLm(str(folder / "tiny_options.json"), str(folder / "tiny_weights.hdf5"))
    with torch.no_grad():
        out = bilm(allen.batch_to_ids(sentences))
    theirs = torch.stack(out["activations"], 1).numpy()  # B, L, T + 2, D
    ours = load_model(f"elmo:{folder}").encode_tokens(sentences)
    for j, (words, vecs) in enumerate(zip(sentences, ours)):
        ref = theirs[j, :, 1 : len(words) + 1].transpose(1, 0, 2)
        np.testing.assert_allclose(vecs, ref, atol=2e-5, rtol=1e-4)
        assert _cos(vecs, ref).min() >= 0.9999
