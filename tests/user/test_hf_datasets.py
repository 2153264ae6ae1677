"""A Hugging Face dataset as a user task: saved locally with ``save_to_disk`` and read offline."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from compeval.errors import CompevalError, SpecError
from compeval.models.protocol import as_model
from compeval.tasks.registry import get_tasks

from .helpers import BigramEncoder, cosines, pair_rows, write_csv

datasets = pytest.importorskip("datasets")


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def test_a_saved_dataset_is_read_offline_and_scored_as_the_same_csv(tmp_path):
    rows = pair_rows(30)
    for r in rows:
        r["gold"] = float(r["gold"])  # a dataset holds typed columns
    folder = tmp_path / "saved"
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))
    before = sorted((p.name, p.stat().st_mtime_ns) for p in folder.rglob("*"))
    (task,) = get_tasks(f"pairs:hf-dataset:{folder},a=s1,b=s2,score=gold,bootstrap=100,name=saved")
    task.load(None)
    enc = BigramEncoder()
    out = task.evaluate(as_model(enc), seed=0)
    sims = cosines(enc, [r["s1"] for r in rows], [r["s2"] for r in rows])
    rho = spearmanr(sims, [r["gold"] for r in rows]).statistic
    assert next(s for s in out.scores if s.subset == "all" and s.metric == "spearman").value == pytest.approx(rho, abs=1e-6)
    from compeval.tasks.user.tables import canonical_digest

    assert out.counts["hf_dataset"] == str(folder.resolve())
    assert out.counts["rows_sha256"] == canonical_digest(list(rows[0]), datasets.load_from_disk(str(folder)).to_list())
    assert sorted((p.name, p.stat().st_mtime_ns) for p in folder.rglob("*")) == before  # nothing written back


def test_a_dataset_dict_needs_its_split(tmp_path):
    rows = pair_rows(12)
    folder = tmp_path / "dd"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows[:6]),
                          "test": datasets.Dataset.from_list(rows)}).save_to_disk(str(folder))
    with pytest.raises(SpecError, match="give split= one of train, test"):
        get_tasks(f"pairs:hf-dataset:{folder},a=s1,b=s2,score=gold")
    (task,) = get_tasks(f"pairs:hf-dataset:{folder},a=s1,b=s2,score=gold,split=test")
    assert len(task.frame) == 12 and task.source_record["split"] == "test"


def test_a_bad_row_names_the_dataset_and_the_row(tmp_path):
    rows = pair_rows(12)
    rows[6]["s2"] = ""
    folder = tmp_path / "bad"
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))
    with pytest.raises(CompevalError) as exc:
        get_tasks(f"pairs:hf-dataset:{folder},a=s1,b=s2,score=gold")
    assert str(exc.value) == f"hf-dataset:{folder.resolve()}:7: column 's2': empty text"


def test_the_hub_form_pins_a_revision_and_fails_in_one_line_offline(tmp_path):
    with pytest.raises(SpecError, match="ORG/NAME@REVISION"):
        get_tasks("pairs:hf-dataset:someone/pairs,split=test")
    with pytest.raises(CompevalError) as exc:
        get_tasks("pairs:hf-dataset:someone/pairs@0123abc,split=test")
    message = str(exc.value)
    assert message.startswith("hf-dataset:someone/pairs@0123abc split=test: could not load it") and "\n" not in message


def test_a_task_file_names_a_saved_dataset_relative_to_itself(tmp_path):
    rows = pair_rows(20)
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "ds"))
    (tmp_path / "t.toml").write_text('kind = "pairs"\nname = "saved"\nsource = "hf-dataset:ds"\n'
                                     '[columns]\na = "s1"\nb = "s2"\nscore = "gold"\n')
    (from_file,) = get_tasks(str(tmp_path / "t.toml"))
    (from_spec,) = get_tasks(f"pairs:hf-dataset:{tmp_path / 'ds'},a=s1,b=s2,score=gold,name=saved")
    assert from_file.slug == from_spec.slug
    # the same rows as a CSV file are other bytes: another digest, but the same numbers
    (csv_task,) = get_tasks(f"pairs:{write_csv(tmp_path / 'saved.csv', rows)},a=s1,b=s2,score=gold")
    for t in (from_file, csv_task):
        t.load(None)
    model = as_model(BigramEncoder())
    a = [s.value for s in from_file.evaluate(model, seed=0).scores]
    b = [s.value for s in csv_task.evaluate(model, seed=0).scores]
    assert np.allclose(a, b)


def test_a_dataset_repository_on_disk_goes_through_load_dataset(tmp_path):
    """A folder of data files, as a Hub dataset repository holds them, read by load_dataset offline."""
    rows = pair_rows(24)
    repo = tmp_path / "repo"
    repo.mkdir()
    write_csv(repo / "train.csv", rows[:8])
    write_csv(repo / "test.csv", rows)
    with pytest.raises(SpecError, match="give split="):
        get_tasks(f"pairs:hf-dataset:{repo},a=s1,b=s2,score=gold")
    (task,) = get_tasks(f"pairs:hf-dataset:{repo},a=s1,b=s2,score=gold,split=test,bootstrap=50")
    task.load(None)
    enc = BigramEncoder()
    out = task.evaluate(as_model(enc), seed=0)
    rho = spearmanr(cosines(enc, [r["s1"] for r in rows], [r["s2"] for r in rows]),
                    [float(r["gold"]) for r in rows]).statistic
    assert next(s for s in out.scores if s.subset == "all" and s.metric == "spearman").value == pytest.approx(rho, abs=1e-6)
    assert sorted(p.name for p in repo.iterdir()) == ["test.csv", "train.csv"]  # nothing written into the repository
