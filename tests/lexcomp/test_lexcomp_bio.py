"""BIO constraint, span extraction and span F1."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from compeval.tasks.lexcomp import bio

LABELS = ["B-N", "B-VPC", "I", "O"]


def _legal(tags):
    prev = "O"
    for t in tags:
        if t == "I" and prev == "O":
            return False
        prev = t
    return True


def test_viterbi_refuses_leading_and_orphan_i():
    # I is the argmax everywhere: an unconstrained argmax would start with I
    logp = np.log(np.array([[0.1, 0.1, 0.7, 0.1]] * 3))
    out = bio.viterbi(logp, LABELS)
    assert out[0] != "I" and _legal(out)
    # O then I: the I must become something that follows O legally, or the O must become a B
    logp = np.log(np.array([[0.05, 0.05, 0.1, 0.8], [0.1, 0.1, 0.7, 0.1]]))
    out = bio.viterbi(logp, LABELS)
    assert _legal(out)
    assert out == ["B-N", "I"] or out[1] != "I"


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(0, 10_000))
def test_viterbi_output_always_legal_and_optimal_when_argmax_legal(n, seed):
    rng = np.random.default_rng(seed)
    logp = np.log(rng.dirichlet(np.ones(len(LABELS)), size=n))
    out = bio.viterbi(logp, LABELS)
    assert len(out) == n and _legal(out)
    greedy = [LABELS[k] for k in logp.argmax(1)]
    if _legal(greedy):
        assert out == greedy


def test_spans_and_f1():
    gold = ["O", "B-VPC", "I", "O", "B-N", "I", "I"]
    assert bio.spans(gold) == {(1, 2, "VPC"), (4, 6, "N")}
    assert bio.spans(["I", "O"]) == set()  # an orphan I opens no span
    pred = ["O", "B-VPC", "I", "O", "B-N", "I", "O"]  # second span one word short
    assert bio.span_f1([gold], [pred]) == 0.5
    assert bio.span_f1([gold], [gold]) == 1.0
    assert bio.repair(["I", "B-N", "I", "O", "I"]) == ["O", "B-N", "I", "O", "O"]


def test_label_errors_by_hand():
    gold = [["B-N", "I", "O", "B-VPC", "I", "O", "B-N", "O", "B-ADJ"],
            ["B-N", "I", "I", "O"]]
    pred = [["B-N", "I", "O", "B-LVC", "I", "O", "O", "O", "O"],
            ["O", "B-N", "I", "B-V"]]
    e = bio.label_errors(gold, pred)
    # sentence 1: N(0,1) correct; VPC(3,4) predicted as LVC; N(6) missed; ADJ(8) missed.
    # sentence 2: N(0,2) overlapped by N(1,2): wrong boundary; V(3) spurious.
    assert e["N"] == {"gold": 3, "predicted": 2, "correct": 1, "wrong_type": 0, "wrong_boundary": 1,
                      "other_overlap": 0, "missed": 1, "spurious": 0, "confused_with": {}}
    assert e["VPC"]["wrong_type"] == 1 and e["VPC"]["confused_with"] == {"LVC": 1}
    assert e["LVC"]["predicted"] == 1 and e["LVC"]["spurious"] == 0 and e["LVC"]["gold"] == 0
    assert e["ADJ"]["missed"] == 1 and e["V"] == {**e["V"], "predicted": 1, "spurious": 1}
    for x, r in e.items():
        assert r["correct"] + r["wrong_type"] + r["wrong_boundary"] + r["other_overlap"] + r["missed"] == r["gold"]
