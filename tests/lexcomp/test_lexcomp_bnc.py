"""The BNC reader and the VPC loader on a tiny hand-made BNC-style XML file."""
import json

import pytest

from compeval.data.registry import DataContext
from compeval.errors import MissingDataError
from compeval.tasks.lexcomp import bnc
from compeval.tasks.lexcomp.data import load_splits

XML = """<?xml version="1.0"?>
<bncDoc xml:id="ZZZ"><wtext type="OTHERPUB"><div level="1"><p>
<s n="1"><w c5="PNP" hw="she" pos="PRON">She </w><w c5="VVD" hw="take" pos="VERB">took </w>
<w c5="AT0" hw="the" pos="ART">the </w><w c5="NN1" hw="job" pos="SUBST">job </w>
<w c5="AVP" hw="on" pos="ADV">on</w><c c5="PUN">.</c></s>
<s n="2"><mw c5="AV0"><w c5="AV0" hw="of" pos="PREP">Of </w><w c5="AV0" hw="course" pos="SUBST">course </w></mw>
<w c5="PNP" hw="he" pos="PRON">he </w><w c5="VVD" hw="give" pos="VERB">gave </w>
<w c5="AVP" hw="up" pos="ADV">up</w><c c5="PUN">!</c></s>
</p></div></wtext></bncDoc>
"""


@pytest.fixture()
def bnc_dir(tmp_path):
    d = tmp_path / "bnc" / "Texts" / "Z" / "ZZ"
    d.mkdir(parents=True)
    (d / "ZZZ.xml").write_text(XML)
    return tmp_path / "bnc"


def test_read_sentences_and_span(bnc_dir):
    s = bnc.read_sentences(bnc_dir, ["Z/ZZ/ZZZ.xml/1", "Z/ZZ/ZZZ.xml/2"])
    one, two = s["Z/ZZ/ZZZ.xml/1"], s["Z/ZZ/ZZZ.xml/2"]
    assert one.words == ("She", "took", "the", "job", "on", ".")
    assert two.words == ("Of", "course", "he", "gave", "up", "!")  # words inside <mw> kept
    assert bnc.locate_span(one, "take on") == (1, 4)  # by head word, particle separated
    assert bnc.locate_span(two, "give up") == (3, 4)
    with pytest.raises(MissingDataError):
        bnc.read_sentences(bnc_dir, ["Z/ZZ/ZZZ.xml/9"])


def test_vpc_loader_through_registry(bnc_dir, tmp_path, monkeypatch):
    data = tmp_path / "data" / "lexcomp" / "vpc_classification"
    data.mkdir(parents=True)
    rows = {"train": [("Z/ZZ/ZZZ.xml/1", "take on", "true")], "val": [("Z/ZZ/ZZZ.xml/2", "give up", "true")],
            "test": [("Z/ZZ/ZZZ.xml/1", "take on", "false")]}
    for split, rs in rows.items():
        (data / f"ids_{split}.jsonl").write_text(
            "".join(json.dumps({"bnc_id": i, "span_text": t, "label": l}) + "\n" for i, t, l in rs))
    ctx = DataContext(data_dir=tmp_path / "data", allow_modified=True)  # trimmed copies of the pinned files
    monkeypatch.setenv(bnc.ENV_VAR, str(bnc_dir))  # read by the run into its context, never by the loader
    with pytest.raises(MissingDataError, match="British National Corpus"):
        load_splits(ctx, "vpc_classification", "bnc", task="lexcomp-vpc")
    sp = load_splits(ctx, "vpc_classification", "bnc", bnc_dir=str(bnc_dir), task="lexcomp-vpc")
    item = sp["train"][0]
    assert (item.start, item.end, item.label, item.key1, item.key2) == (1, 4, 1, "take", "on")
    assert sp["test"][0].label == 0 and sp["val"][0].span_words == ("gave", "up")
    assert ctx.used["lexcomp"].verified is False  # hand-made files do not match the pinned hashes


def test_the_bnc_folder_comes_from_the_run_context_only(bnc_dir, tmp_path, monkeypatch):
    """The folder is a run setting: ``--bnc-dir``, else ``$COMPEVAL_BNC_DIR`` read when the run starts, into
    the run context. No task option carries it, so it never enters a task's params or slug."""
    from compeval.context import RunContext
    from compeval.errors import SpecError
    from compeval.tasks.registry import get_tasks

    monkeypatch.setenv(bnc.ENV_VAR, str(bnc_dir))
    (task,) = get_tasks("lexcomp-vpc")
    assert "British National Corpus" in task.missing_requirements()  # the task itself reads no environment
    task.context = RunContext.for_run(tmp_path / "out", cache_dir=None)
    assert task.context.bnc_dir == bnc_dir and task.missing_requirements() is None
    assert task.slug == "lexcomp-vpc" and str(bnc_dir) not in json.dumps(task.params)
    monkeypatch.delenv(bnc.ENV_VAR)
    assert RunContext.for_run(tmp_path / "out", cache_dir=None, bnc_dir=bnc_dir).bnc_dir == bnc_dir
    assert RunContext.for_run(tmp_path / "out", cache_dir=None).bnc_dir is None
    task.context = RunContext(bnc_dir=tmp_path / "elsewhere")
    assert task.missing_requirements() is None  # the task trusts the context; loading says the folder is absent
    with pytest.raises(SpecError, match="unknown option 'bnc_dir'"):
        get_tasks(f"lexcomp-vpc,bnc_dir={bnc_dir}")
