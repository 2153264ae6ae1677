"""End-to-end task runs on hand-made splits with a tiny token encoder (no download, a few seconds)."""
import json

import numpy as np
import pytest

from compeval.data.registry import DataContext
from compeval.models.protocol import ModelConfig
from compeval.tasks.registry import get_tasks


class ToyTokens:
    """Two 'layers' of 4-d one-hot-ish word vectors: layer 0 is noise, the top layer carries the word."""

    config = ModelConfig(family="toy-tokens.v1", name="toy-tokens")
    WORDS = {"red": 0, "blue": 1, "green": 2}

    def encode_tokens(self, sentences):
        out = []
        for s in sentences:
            v = np.zeros((len(s), 2, 4), dtype=np.float32)
            for i, w in enumerate(s):
                v[i, 0] = np.random.default_rng(len(w)).normal(size=4)
                v[i, 1, self.WORDS.get(w, 3)] = 1.0
            out.append(v)
        return out


def _write(root, folder, split_rows):
    d = root / "lexcomp" / folder
    d.mkdir(parents=True)
    for split, rows in split_rows.items():
        (d / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture()
def ctx(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPEVAL_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)

    def lit(n):  # label = literal iff the target word is "red"; modifiers vary so Majority_1 cannot tell
        rows = []
        for k in range(n):
            w = ["red", "blue"][k % 2]
            rows.append({"sentence": f"a {w} thing{k % 5} here", "nc": f"{w}_thing{k % 5}", "target_index": 1,
                         "target_word": w, "label": "LITERAL" if w == "red" else "NON-LITERAL"})
        rng.shuffle(rows)
        return rows

    _write(tmp_path, "nc_literality", {"train": lit(40), "val": lit(10), "test": lit(12)})
    tags = [{"sentence_words": ["red", "blue", "x"], "sentence_tags": ["B-N", "I", "O"]},
            {"sentence_words": ["x", "red", "blue"], "sentence_tags": ["O", "B-N", "I"]}]
    _write(tmp_path, "mwe_type", {"train": tags * 10, "val": tags, "test": tags})
    return DataContext(data_dir=tmp_path, allow_modified=True)  # trimmed copies of the pinned files


def _score(out, subset):
    return next(s for s in out.scores if s.subset == subset)


def test_span_task_learns_and_chooses_on_validation(ctx):
    (task,) = get_tasks("lexcomp-nc-literality,encoders=none+attention,max_epochs=60,patience=10,batch_size=8")
    task.load(ctx)
    out = task.evaluate(ToyTokens(), seed=0)
    assert _score(out, "Majority_All").value == pytest.approx(0.5)
    best = _score(out, "all")
    assert best.details["layer"] in ("top", "mix") and best.details["encoder"] in ("none", "attention")
    assert best.value == 1.0  # the top layer names the target word
    assert len([s for s in out.scores if s.metric == "val_accuracy"]) == 4  # 2 layers x 2 encoders
    assert out.counts["token_cache"]["encoded"] > 0
    assert out.counts["trainer"] == {"name": "torch", "device": task.context.torch_device(), "dtype": "float32"}


def test_baseline_only_and_tagger(ctx):
    (task,) = get_tasks("lexcomp-phrase-type,baseline_only=true")
    task.load(ctx)
    out = task.evaluate(ToyTokens(), seed=0)
    assert _score(out, "all").value is None and _score(out, "Majority_1").metric == "span_f1"
    (task,) = get_tasks("lexcomp-phrase-type,encoders=bilstm,layers=top,max_epochs=40,patience=10,batch_size=4")
    task.load(ctx)
    out = task.evaluate(ToyTokens(), seed=0)
    assert _score(out, "all").value == 1.0
    for tags in out.predictions.loc[out.predictions["split"] == "test", "model"]:
        assert not tags.startswith("I") and " O I" not in tags  # decoding obeys B-before-I
    assert out.counts["trainer"]["device"] == task.context.torch_device()  # the run's device


def test_ablation_views():
    from compeval.tasks.lexcomp.data import SpanItem

    item = SpanItem(("a", "dark", "corner", "here"), 1, 2, 1, "dark", "corner",
                    paraphrase=("dark", "refers", "to", "the", "light", "of", "corner"))
    views = {}
    for ab in ("none", "phrase", "context", "context-phrase"):
        (task,) = get_tasks(f"lexcomp-an-attributes,ablation={ab}")
        views[ab] = task._views([item])
    assert views["none"][0] == [["a", "dark", "corner", "here"]] and views["none"][1:3] == ([1], [2])
    assert views["phrase"][0] == [["a", "something", "here"]] and views["phrase"][1:3] == ([1], [1])
    (task,) = get_tasks("lexcomp-an-attributes,ablation=phrase,placeholder=mask")
    assert task._views([item])[0] == [["a", "[MASK]", "[MASK]", "here"]]
    assert views["context"][0] == [["dark", "corner"]] and views["context"][1:3] == ([0], [1])
    assert views["context-phrase"][3] == [list(item.paraphrase)]
    with pytest.raises(Exception, match="ablation"):
        get_tasks("lexcomp-an-attributes,ablation=bogus")


def test_token_vectors_follow_the_runs_cache_folder(tmp_path):
    """--cache-dir and --no-cache apply to lexcomp's token vectors too, not only to sentence vectors: the
    task reads the folder from its RunContext."""
    from compeval.context import RunContext
    from compeval.models.families.static import StaticModel, WordVectors

    model = StaticModel(WordVectors(["dog"], np.ones((1, 2), np.float32), "toy", "x"))
    (task,) = get_tasks("lexcomp-nc-literality")
    task.context = RunContext(cache_dir=tmp_path / "c")
    cache = task._token_cache(model)
    cache.get([["dog"]])
    cache.close()
    assert (tmp_path / "c" / "lexcomp_tokens" / f"{model.config.id}.sqlite").is_file()
    task.context = RunContext(cache_dir=None)
    assert task._token_cache(model).conn is None

class ForeignTokens:
    """A user's plain Python object (no ModelConfig): ``encode`` plus ToyTokens' ``encode_tokens``."""

    def __init__(self, shift: float = 0.0):
        self.shift = shift

    def encode(self, texts):
        return np.array([[len(t), t.count(" "), 1.0] for t in texts], dtype=np.float32)

    def encode_tokens(self, sentences):
        return [v + self.shift for v in ToyTokens().encode_tokens(sentences)]


class DeclaredTokens(ToyTokens):
    """A protocol object (it declares a config) that encodes and gives token vectors."""

    def encode(self, texts):
        return np.ones((len(texts), 3), dtype=np.float32)


def test_python_objects_with_encode_tokens_run_lexcomp(ctx, tmp_path):
    import inspect

    from compeval.cache import EmbeddingCache
    from compeval.errors import ModelCapabilityError
    from compeval.models.protocol import TokenEncoder, as_model, token_encoder

    for obj in (ForeignTokens(), DeclaredTokens()):
        model = as_model(obj)
        # declared on the wrapper's class: runtime protocols look members up statically from Python 3.12
        assert callable(inspect.getattr_static(model, "encode_tokens"))
        assert isinstance(model, TokenEncoder)
    wrapped = EmbeddingCache(tmp_path / "cache").wrap(as_model(ForeignTokens()))
    assert isinstance(token_encoder(wrapped), TokenEncoder)
    (task,) = get_tasks("lexcomp-nc-literality,encoders=none,layers=top,max_epochs=60,patience=10,batch_size=8")
    task.load(ctx)
    assert _score(task.evaluate(wrapped, seed=0), "all").value == 1.0  # as ToyTokens itself scores
    # token vectors are part of the identity (the token cache is keyed by it); encode alone is not enough
    assert as_model(ForeignTokens(0.0)).config.id != as_model(ForeignTokens(1.0)).config.id
    plain = as_model(type("EncodeOnly", (), {"encode": ForeignTokens.encode})())
    assert not isinstance(plain, TokenEncoder)
    with pytest.raises(ModelCapabilityError, match="gives no token-level vectors"):
        token_encoder(plain)


@pytest.mark.parametrize("placeholder", ["something", "mask"])
def test_phrase_ablation_changes_only_the_span(placeholder):
    """−Phrase replaces the span and nothing else: the words before and after it, the paraphrase and the
    span's position are those of the intact sentence."""
    from compeval.tasks.lexcomp.data import SpanItem

    rng = np.random.default_rng(3)
    (task,) = get_tasks(f"lexcomp-nc-relations,ablation=phrase,placeholder={placeholder}")
    (intact,) = get_tasks("lexcomp-nc-relations")
    items = []
    for k in range(30):
        words = tuple(f"w{k}_{i}" for i in range(int(rng.integers(3, 9))))
        start = int(rng.integers(0, len(words) - 1))
        end = int(rng.integers(start, len(words)))
        items.append(SpanItem(words, start, end, 1, words[start], words[end], paraphrase=("p", f"q{k}")))
    sents, starts, ends, paras = task._views(items)
    base = intact._views(items)
    assert paras == base[3] and starts == base[1]
    for it, s, b, e in zip(items, sents, starts, ends):
        assert s[: it.start] == list(it.words[: it.start])  # before the span: untouched
        tail = len(it.words) - it.end - 1
        assert s[len(s) - tail :] == list(it.words[it.end + 1 :])  # after the span: untouched
        span = s[b : e + 1]
        assert span == (["something"] if placeholder == "something" else ["[MASK]"] * (it.end - it.start + 1))
        assert len(s) == it.start + len(span) + tail


def test_mix_layer_weights_and_per_label_scores_in_the_result(ctx):
    (task,) = get_tasks("lexcomp-nc-literality,encoders=none,layers=top+mix,max_epochs=20,patience=5,batch_size=8")
    task.load(ctx)
    out = task.evaluate(ToyTokens(), seed=0)
    mix = _score(out, "mix+none").details
    assert len(mix["layer_weights"]) == 2 and sum(mix["layer_weights"]) == pytest.approx(1.0, abs=1e-6)
    assert out.counts["layer_weights"] == {"mix+none": {"weights": mix["layer_weights"], "gamma": mix["gamma"]}}
    assert "layer_weights" not in _score(out, "top+none").details
    best = _score(out, "all").details
    assert ("layer_weights" in best) == (best["layer"] == "mix")

    (task,) = get_tasks("lexcomp-phrase-type,encoders=none,layers=mix,max_epochs=40,patience=10,batch_size=4")
    task.load(ctx)
    out = task.evaluate(ToyTokens(), seed=0)
    label = _score(out, "label=N")
    assert label.value == 1.0 and label.details["precision"] == label.details["recall"] == 1.0
    assert label.details["gold"] == label.details["correct"] == 2 and label.n == 2


def _written(predictions):
    import io

    import pandas as pd

    from compeval.results.store import predictions_jsonl
    return pd.read_json(io.StringIO(predictions_jsonl(predictions)), lines=True, dtype=False)


def _numbers(scores):
    return {(s.subset, s.metric): (s.value, s.ci_low, s.ci_high, s.n) for s in scores}


@pytest.mark.parametrize("spec", ["lexcomp-nc-literality,encoders=none+attention,layers=top,max_epochs=8,batch_size=8",
                                  "lexcomp-phrase-type,encoders=none,layers=top,max_epochs=4,batch_size=4",
                                  "lexcomp-nc-literality,baseline_only=true"])
def test_scores_are_recomputed_from_the_written_test_and_validation_predictions(ctx, spec):
    from compeval.errors import DataError

    (task,) = get_tasks(spec)
    task.load(ctx)
    out = task.evaluate(ToyTokens(), seed=5)
    pred = _written(out.predictions)
    (fresh,) = get_tasks(spec)  # a task that trained nothing: the heads are not refitted
    fresh.load(ctx)
    assert _numbers(fresh.score_predictions(pred, seed=5)) == _numbers(out.scores)
    with pytest.raises(DataError, match="not the data's items"):
        fresh.score_predictions(pred.iloc[::-1].reset_index(drop=True), seed=5)
    if "baseline_only" in spec or "phrase-type" in spec:
        return
    # a validation prediction turned around moves that setting's val_accuracy by 1/n_val
    val = pred.index[pred["split"] == "val"]
    edited = pred.copy()
    edited.loc[val[0], "val_top+none"] = 1 - edited.loc[val[0], "val_top+none"]
    before, after = _numbers(out.scores), _numbers(fresh.score_predictions(edited, seed=5))
    assert abs(after["top+none", "val_accuracy"][0] - before["top+none", "val_accuracy"][0]) == pytest.approx(1 / len(val))
