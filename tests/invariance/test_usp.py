"""GENIA questions in the USP release's layout: the answer file plus one file per abstract."""
import numpy as np
import pytest

from compeval.data.registry import DataContext
from compeval.errors import DataError, MalformedDataError
from compeval.models.families.toy import TableEncoder
from compeval.tasks.invariance.tasks import InvarianceQA
from compeval.tasks.invariance.usp import load_usp_answers
from compeval.tasks.registry import get_tasks

ANSWERS = """<question str="What does IL-2 activate?">
<answer>PI3K</answer>
<sentence id="9012345:2">Phosphatidyl inositol 3-kinase (PI3K) is activated by IL-2.</sentence>
</question>

<question str="What does IL-2 activate?">
<answer>PI3K</answer>
<sentence id="9012345:2">Phosphatidyl inositol 3-kinase (PI3K) is activated by IL-2.</sentence>
</question>

<question str="What inhibits NF-&amp;kappa;B?">
<answer>IkB</answer>
<sentence id="777:3">IkB   inhibits NF-&amp;kappa;B in resting cells.</sentence>
</question>
"""
ABSTRACT_1 = "IL-2 is a cytokine.\n\nPhosphatidyl inositol 3-kinase (PI3K) is activated by IL-2.\nT cells grow.\n"
ABSTRACT_2 = "NF-&kappa;B is a factor.\nIt binds DNA.\nIkB inhibits NF-&kappa;B in resting cells.\n"


@pytest.fixture
def release(tmp_path):
    (tmp_path / "answers.txt").write_text(ANSWERS)
    texts = tmp_path / "text"
    texts.mkdir()
    (texts / "9012345.txt").write_text(ABSTRACT_1)
    (texts / "777").write_text(ABSTRACT_2)
    return tmp_path / "answers.txt", texts


def test_reads_the_released_layout(release):
    items, digest = load_usp_answers(*release)
    assert len(items) == 2  # the repeated block is one pair
    q1, q2 = items
    assert q1.question == "What does IL-2 activate?" and q1.answer == 1  # blank line skipped: N counts sentences
    assert q1.document == ["IL-2 is a cytokine.", "Phosphatidyl inositol 3-kinase (PI3K) is activated by IL-2.",
                           "T cells grow."]
    assert q2.question == "What inhibits NF-&kappa;B?" and q2.answer == 2  # entities decoded once, spaces collapsed
    assert set(digest) == {"9012345", "777"} and all(len(h) == 64 for h in digest.values())


def test_errors_name_file_and_line(release, tmp_path):
    answers, texts = release
    (texts / "9012345.txt").write_text("Another first line.\nSomething else entirely.\n")
    with pytest.raises(MalformedDataError, match=r"answers.txt:1: sentence 9012345:2 reads"):
        load_usp_answers(answers, texts)
    bad = tmp_path / "bad.txt"
    bad.write_text('<question str="Q?">\n<sentence id="777">x</sentence>\n</question>\n')
    with pytest.raises(MalformedDataError, match="not ABSTRACT:N"):
        load_usp_answers(bad, texts)
    bad.write_text('<question str="Q?">\n<sentence id="999:1">x</sentence>\n</question>\n')
    with pytest.raises(DataError, match="no abstract '999'"):
        load_usp_answers(bad, texts)
    bad.write_text("nothing here\n")
    with pytest.raises(DataError, match="no <question"):
        load_usp_answers(bad, texts)


def test_qa_task_runs_on_the_usp_layout(release, tmp_path):
    answers, texts = release
    table = {"What does IL-2 activate?": [1, 0], "IL-2 is a cytokine.": [1, 1],
             "Phosphatidyl inositol 3-kinase (PI3K) is activated by IL-2.": [1, 0], "T cells grow.": [0, 1],
             "What inhibits NF-&kappa;B?": [0, 1], "NF-&kappa;B is a factor.": [0, 1], "It binds DNA.": [1, 0],
             "IkB inhibits NF-&kappa;B in resting cells.": [1, 1]}
    (task,) = get_tasks(f"invariance-qa,path={answers},format=usp,texts={texts},subset_model=,bootstrap=50")
    task.load(DataContext(data_dir=tmp_path))
    out = task.evaluate(TableEncoder(table), seed=0)
    # q1: the answer is most similar (rank 0 → 1.0); q2: the answer is second of three (rank 1 → 0.5)
    np.testing.assert_allclose(out.predictions["normalised_rank"], [1.0, 0.5])
    assert out.counts["format"] == "usp" and set(out.counts["abstracts_sha256"]) == {"9012345", "777"}
    with pytest.raises(Exception, match="format=usp needs"):
        InvarianceQA(path=str(answers), format="usp")
    with pytest.raises(Exception, match="texts= is read only"):
        InvarianceQA(texts=str(texts))
