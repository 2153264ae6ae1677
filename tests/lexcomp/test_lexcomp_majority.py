"""Majority baselines on a hand-made split, and the paper's Table 4 figures from the released splits."""
import numpy as np
import pytest

from compeval.tasks.lexcomp import bio, majority
from compeval.tasks.lexcomp.data import SpanItem, TagItem


def _item(first, last, label):
    return SpanItem(("x", first, last), 1, 2, label, first, last)


def test_span_majorities():
    train = [_item("take", "on", 1), _item("take", "off", 1), _item("take", "in", 0),
             _item("give", "up", 0), _item("give", "on", 0), _item("make", "on", 0)]
    m = majority.fit_span(train)
    assert m["all"] == 0  # 4 of 6 are 0
    test = [_item("take", "up", 1), _item("give", "off", 1), _item("new", "on", 0)]
    p = majority.predict_span(m, test)
    assert list(p["Majority_All"]) == [0, 0, 0]
    assert list(p["Majority_1"]) == [1, 0, 0]  # take -> 1, give -> 0, unseen -> All
    assert list(p["Majority_2"]) == [0, 1, 0]  # up -> 0, off -> 1, on -> 0 (2 of 3)


def test_tag_majorities_are_legal_bio():
    train = [TagItem(("pick", "up", "the", "ball"), ("B-VPC", "I", "O", "O")),
             TagItem(("hot", "dog", "stand"), ("B-N", "I", "O")),
             TagItem(("the", "dog"), ("O", "O"))]
    m = majority.fit_tags(train)
    assert m["all"] == "O"
    test = [TagItem(("dog", "pick", "up"), ("O", "B-VPC", "I"))]
    p = majority.predict_tags(m, test)
    assert p["Majority_All"] == [["O", "O", "O"]]
    # "dog" alone is I once and O once -> tie broken by value ("I" < "O"), then repaired to O
    assert p["Majority_1"] == [["O", "B-VPC", "I"]]
    # bigram ("<s>", "dog") unseen -> O; ("dog","pick") unseen -> O; ("pick","up") -> I
    assert p["Majority_2"] == [["O", "O", "O"]]
    assert bio.span_f1([list(test[0].tags)], p["Majority_1"][:1]) == 1.0


def test_allennlp_span_reading_splits_untyped_inside_tags():
    # AllenNLP reads "I" as type "": after B-N it opens its own span; consecutive I's extend it
    assert majority.allennlp_spans(["B-N", "I", "I", "O"]) == {("N", 0, 0), ("", 1, 2)}
    assert majority.allennlp_spans(["I", "O", "B-VPC"]) == {("", 0, 0), ("VPC", 2, 2)}
    assert majority.allennlp_spans(["O", "O"]) == set()
    # compeval's own reading keeps the typed multi-word span
    assert bio.spans(["B-N", "I", "I", "O"]) == {(0, 2, "N")}
    counts = majority.allennlp_span_counts([["B-N", "I", "O"]], [["B-N", "O", "O"]])
    assert counts.tolist() == [[1.0, 1.0, 2.0]]


def test_word_majority_keeps_case_and_stray_inside_tags():
    train = [TagItem(("Up", "up", "up"), ("B-P", "I", "I"))]
    m = majority.fit_word_tags(train)
    assert m["word"] == {"Up": "B-P", "up": "I"} and m["all"] == "I"
    assert majority.predict_word_tags(m, [TagItem(("up", "new"), ("O", "O"))]) == [["I", "I"]]


@pytest.mark.integration
def test_majority_baselines_reproduce_table_4(data_dir):
    """Shwartz & Dagan (2019) Table 4 majority baselines from the released splits (no BNC needed)."""
    from compeval.data.registry import DataContext
    from compeval.tasks.lexcomp.data import load_splits

    data = DataContext(data_dir)

    def span_scores(folder, kind, **kw):
        sp = load_splits(data, folder, kind, **kw)
        m = majority.fit_span(sp["train"])
        p = majority.predict_span(m, sp["test"])
        y = np.array([i.label for i in sp["test"]])
        return {n: 100 * float((p[n] == y).mean()) for n in majority.NAMES}

    assert span_scores("vpc_classification", "bnc", labels_only=True)["Majority_All"] == pytest.approx(23.6, abs=0.05)
    assert span_scores("nc_relations", "paraphrase")["Majority_All"] == pytest.approx(50.0, abs=0.05)
    assert span_scores("an_attribute_selection", "paraphrase")["Majority_All"] == pytest.approx(50.0, abs=0.05)
    assert span_scores("nc_literality", "literality")["Majority_1"] == pytest.approx(72.5, abs=1.0)
    sp = load_splits(data, "mwe_type", "tagging")
    pred = majority.predict_word_tags(majority.fit_word_tags(sp["train"]), sp["test"])
    f1 = 100 * float(bio.f1_from_counts(majority.allennlp_span_counts([list(i.tags) for i in sp["test"]], pred)))
    assert f1 == pytest.approx(26.6, abs=0.5)
