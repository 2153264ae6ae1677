"""``mteb:NAME`` (issue 18 item 6): a fake ``mteb`` module checks what compeval hands MTEB and what it keeps in
the identity; the installed mteb's hash-based random baseline runs end to end (no weights, no network)."""
from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field

import numpy as np
import pytest

from compeval.errors import SpecError
from compeval.models.registry import load_model


@dataclass
class FakeMeta:
    name: str
    revision: str
    loader_kwargs: dict = field(default_factory=dict)
    similarity_fn_name: str = "cosine"
    loader: object = None


@dataclass
class FakeTaskMeta:
    name: str
    type: str


class FakeEncoder:
    """Prefixes each text with the prompt its metadata selects for the task, as mteb's wrappers do."""

    def __init__(self, meta: FakeMeta, calls: list):
        self.meta, self.calls = meta, calls

    def encode(self, inputs, *, task_metadata, hf_split, hf_subset, prompt_type=None, **kwargs):
        prompts = self.meta.loader_kwargs.get("model_prompts", {})
        prompt = prompts.get(task_metadata.type, prompts.get(getattr(prompt_type, "value", ""), ""))
        rows = []
        for batch in inputs:
            self.calls.append((task_metadata.name, prompt_type, len(batch["text"])))
            rows += [[len(prompt + t), (prompt + t).count("e") + 1.0] for t in batch["text"]]
        return np.array(rows)


@pytest.fixture()
def fake_mteb(monkeypatch):
    real = pytest.importorskip("mteb")  # the fake replaces it; PromptType and datasets stay real
    metas = {("org/model", None): FakeMeta("org/model", "abc123", {"model_prompts": {"STS": "sts: "}}),
             ("org/model", "old"): FakeMeta("org/model", "old", {"model_prompts": {"STS": "similar: "}}),
             ("org/plain", None): FakeMeta("org/plain", "def456"),
             ("org/remote", None): FakeMeta("org/remote", "c" * 40, {"trust_remote_code": True})}
    calls: list = []
    fake = types.ModuleType("mteb")

    def get_model_meta(name, revision=None):
        default = metas.get((name, None))
        if default is not None and revision == default.revision:
            return default
        if (name, revision) not in metas:
            raise KeyError(f"Model {name} not found")
        return metas[(name, revision)]

    fake.get_model_meta = get_model_meta
    fake.get_model = lambda name, revision=None: FakeEncoder(get_model_meta(name, revision), calls)
    fake.get_task = lambda name: types.SimpleNamespace(metadata=FakeTaskMeta(name, "STS" if name.startswith("STS")
                                                                             else "Retrieval"))
    fake.types = real.types
    monkeypatch.setitem(sys.modules, "mteb", fake)
    monkeypatch.setattr("importlib.metadata.version", lambda dist: "9.9.9" if dist == "mteb" else "0")
    return calls


def test_prompts_and_revision_are_part_of_the_identity(fake_mteb):
    a, b, c = load_model("mteb:org/model"), load_model("mteb:org/model,revision=old"), load_model("mteb:org/plain")
    assert a.config.family == "mteb.v1" and a.config.name == "org/model"
    assert a.config.params["revision"] == "abc123" and '"STS": "sts: "' in a.config.params["loader_kwargs"]
    assert a.config.params["task"] == "STSBenchmark (STS)" and a.config.params["mteb"] == "9.9.9"
    assert len({a.config.id, b.config.id, c.config.id}) == 3
    q = load_model("mteb:org/model,prompt_type=query")
    assert q.config.id != a.config.id and q.config.display == "org/model,prompt_type=query"


def test_encode_hands_mteb_a_dataloader_and_the_task_metadata(fake_mteb):
    m = load_model("mteb:org/model,batch_size=2")
    out = m.encode(["one", "three", "eleven"])
    # The STS prompt "sts: " (5 characters) is what the model itself chose for an STS task.
    np.testing.assert_array_equal(out, [[8, 2], [10, 3], [11, 4]])  # "sts: eleven": 3 e
    assert out.dtype == np.float32
    assert fake_mteb == [("STSBenchmark", None, 2), ("STSBenchmark", None, 1)]
    load_model("mteb:org/plain,prompt_type=document,task=SciFact").encode(["x"])
    assert fake_mteb[-1][0] == "SciFact" and fake_mteb[-1][1].value == "document"


def test_unknown_model_or_revision_is_one_line(fake_mteb):
    with pytest.raises(SpecError, match="mteb:org/nothing: MTEB does not know this model"):
        load_model("mteb:org/nothing")
    with pytest.raises(SpecError, match="MTEB does not know this model or revision"):
        load_model("mteb:org/model,revision=nope")
    with pytest.raises(SpecError, match="prompt_type"):
        load_model("mteb:org/model,prompt_type=passage")


def test_real_mteb_random_baseline_scores_a_task(data_dir, tmp_path):
    mteb = pytest.importorskip("mteb")
    from compeval.runner import run
    from compeval.results import results_frame

    spec = "mteb:mteb/baseline-random-encoder"
    model = load_model(spec)
    meta = mteb.get_model_meta("mteb/baseline-random-encoder")
    assert model.config.params["revision"] == meta.revision
    assert model.config.params["mteb"] == __import__("importlib.metadata").metadata.version("mteb")
    v = model.encode(["a cat", "a dog", "a cat"])
    np.testing.assert_array_equal(v[0], v[2]) and not np.allclose(v[0], v[1])
    summary = run([spec], ["ks2013,bootstrap=40"], tmp_path, data_dir=data_dir, cache_dir=tmp_path / "c")
    assert [o.status for o in summary.outcomes] == ["done"]
    assert (results_frame(tmp_path)["n"] == 108).all()


def test_loader_settings_are_written_without_memory_addresses():
    from functools import partial

    from compeval.models.families.mteb_models import stable

    class Obj:
        pass

    out = stable({"b": partial(np.mean, axis=0), "a": {2, 1}, "o": Obj(), "f": np.float32})
    assert out == {"a": [1, 2], "b": "numpy.mean", "f": "numpy.float32", "o": out["o"]}
    assert " at 0x" not in out["o"] and out["o"].endswith("Obj object>")


def test_an_mteb_encoder_object_runs_as_a_python_object(fake_mteb):
    from compeval.models.protocol import IdentifiedModel, as_model

    enc = sys.modules["mteb"].get_model("org/model")
    enc.mteb_model_meta = enc.meta
    model = as_model(enc)
    assert isinstance(model, IdentifiedModel) and model.config.family == "mteb.v1"
    assert model.config.params["revision"] == "abc123" and "vectors" in model.config.params
    np.testing.assert_array_equal(model.encode(["one"]), [[8, 2]])  # through a DataLoader, with its STS prompt


def test_without_mteb_installed_the_hint_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "mteb", None)  # import mteb → ImportError
    with pytest.raises(SpecError, match=r"pip install 'compeval\[mteb\]'"):
        load_model("mteb:org/model")


def test_remote_code_needs_the_opt_in_and_a_missing_pinned_commit_is_one_line(fake_mteb, tmp_path, monkeypatch):
    from compeval.models import hub

    with pytest.raises(SpecError, match=r"mteb:org/remote: .*trust_remote_code=true") as err:
        load_model("mteb:org/remote")
    assert "\n" not in str(err.value)
    model = load_model("mteb:org/remote,trust_remote_code=true")
    assert model.config.params["trust_remote_code"] is True
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub._snapshot.cache_clear()
    with pytest.raises(SpecError, match=f"org/remote at revision '{'c' * 40}' is not in the Hugging Face cache.*"
                                        f"hf download org/remote --revision {'c' * 40}") as err:
        model.encode(["x"])
    assert "\n" not in str(err.value)
    hub._snapshot.cache_clear()
