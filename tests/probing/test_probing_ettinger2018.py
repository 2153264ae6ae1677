"""The Ettinger et al. 2018 files: parsing, format errors, the registered data set, task runs."""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from compeval.cache.cached import EmbeddingCache
from compeval.data.registry import DataContext, get_source
from compeval.errors import MalformedDataError
from compeval.models.families.toy import HashBagEncoder
from compeval.tasks.probing.ettinger2018 import read_items, read_vocab
from compeval.tasks.registry import get_tasks

VOCAB = ["professor", "student", "help", "meet"]
DATA_DIR = os.environ.get("COMPEVAL_DATA_DIR")
needs_data = pytest.mark.skipif(not DATA_DIR, reason="COMPEVAL_DATA_DIR is not set (point it at the shared data)")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "train.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_a_well_formed_file(tmp_path):
    path = _write(tmp_path, "TRUE\tid1\tthe professor helped the student\tprofessor\thelp\n"
                            "FALSE\tid2\tthe student helped the professor\tprofessor\thelp\n\n")
    items = read_items(path, 2, VOCAB)
    assert [(i.label, i.sent_id, i.probes) for i in items] == [
        (True, "id1", ("professor", "help")), (False, "id2", ("professor", "help"))]


@pytest.mark.parametrize("line, reason", [
    ("TRUE\tid1\tthe professor helped the student\tprofessor", "expected 5 tab-separated fields"),
    ("YES\tid1\tthe professor helped the student\tprofessor\thelp", "neither TRUE nor FALSE"),
    ("TRUE\tid1\t \tprofessor\thelp", "empty sentence"),
    ("TRUE\tid1\tthe professor danced\tprofessor\tdance", "not in vocab.txt"),
])
def test_malformed_lines_name_file_and_line(tmp_path, line, reason):
    path = _write(tmp_path, "FALSE\tid0\tthe student met the professor\tstudent\tmeet\n" + line + "\n")
    with pytest.raises(MalformedDataError, match=reason) as info:
        read_items(path, 2, VOCAB)
    assert info.value.line_no == 2 and info.value.path == str(path)


def test_empty_vocabulary_is_malformed(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("\n")
    with pytest.raises(MalformedDataError, match="empty"):
        read_vocab(path)


def test_registered_source_is_pinned():
    src = get_source("ettinger2018_compeval")
    assert re.fullmatch(r"[0-9a-f]{40}", src.revision)
    for f in src.files:
        assert src.revision in f.url and re.fullmatch(r"[0-9a-f]{64}", f.sha256)
    assert {f.path for f in src.files} >= {f"{t}/{s}.txt" for t in ("sr", "neg", "cont1", "cont2", "order")
                                           for s in ("train", "test")} | {"vocab.txt"}


EXPECTED_SIZES = {"sr": (4002, 1000), "neg": (4000, 1000), "cont1": (4002, 1002), "cont2": (4004, 1000),
                  "order": (4000, 1000)}  # from the data set's SOURCE.md


@needs_data
@pytest.mark.parametrize("name", list(EXPECTED_SIZES))
def test_real_files_load_balanced_and_verified(name):
    data = DataContext(data_dir=Path(DATA_DIR))
    task = get_tasks(f"ettinger2018-{name}")[0]
    task.load(data)
    assert (len(task.train), len(task.test)) == EXPECTED_SIZES[name]
    assert len(task.vocab) == 14
    for split in (task.train, task.test):
        assert abs(np.mean([i.label for i in split]) - 0.5) < 0.01
    assert data.used["ettinger2018_compeval"].verified is True


@needs_data
def test_order_labels_agree_with_word_positions():
    """A known property of the data (SOURCE.md): TRUE iff the noun's first mention precedes the verb's."""
    task = get_tasks("ettinger2018-order")[0]
    task.load(DataContext(data_dir=Path(DATA_DIR)))
    from compeval.tasks.probing.lexicon import NOUN, VERB

    agree = []
    for item in task.train[:500]:
        words = item.text.split()
        noun, verb = NOUN[item.probes[0]], VERB[item.probes[1]]
        noun_forms = {noun.lemma, noun.plural}
        verb_forms = {verb.lemma, verb.third, verb.past, verb.participle, verb.gerund}
        n_pos = min(i for i, w in enumerate(words) if w in noun_forms)
        v_pos = min(i for i, w in enumerate(words) if w in verb_forms)
        agree.append((n_pos < v_pos) == item.label)
    assert np.mean(agree) > 0.95


@needs_data
def test_task_runs_with_probe_features_and_controls():
    task = get_tasks("ettinger2018-cont1,classifiers=mlp,mlp_max_iter=60")[0]
    task.load(DataContext(data_dir=Path(DATA_DIR)))
    cache = EmbeddingCache(None)
    model = cache.wrap(HashBagEncoder(dim=16))
    out = task.evaluate(model, seed=0)
    scores = {s.subset: s for s in out.scores}
    assert set(scores) == {"mlp", "control-gaussian", "control-random-probe"}
    assert scores["mlp"].n == 1002 and "sent_id" in out.predictions.columns
    # cont1 asks whether the sentence holds the probe verb: needs sentence AND probe; the random probe cannot
    assert scores["mlp"].value > scores["control-random-probe"].value + 0.2
    assert cache.stats_for(model.config.id).encoded == len(set(task.texts()))
