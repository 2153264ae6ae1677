"""Majority baselines on a hand-made split."""
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
