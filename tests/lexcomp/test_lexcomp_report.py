"""The section-6 tables of the lexcomp report: layer weights and phrase type's per-label scores."""
from types import SimpleNamespace

from compeval.results.schema import Score
from compeval.tasks.lexcomp import report


class _Entry:
    def __init__(self, task, counts, scores):
        self.result = SimpleNamespace(counts=counts, scores=scores, task=SimpleNamespace(main_metric="accuracy"))

    def value(self, metric, subset):
        return next((s.value for s in self.result.scores if s.metric == metric and s.subset == subset), None)


def _ctx(entries):
    return SimpleNamespace(index=SimpleNamespace(first=lambda m, t: entries.get((m, t))))


def test_layer_weights_table_shows_the_chosen_mix():
    mixes = {"mix+none": {"weights": [0.1, 0.2, 0.7], "gamma": 1.5},
             "mix+attention": {"weights": [0.5, 0.3, 0.2], "gamma": 0.9}}
    scores = [Score(subset="mix+none", metric="val_accuracy", value=0.8, n=10, details={"best_epoch": 3, "epochs": 9}),
              Score(subset="mix+attention", metric="val_accuracy", value=0.9, n=10, details={"best_epoch": 1, "epochs": 7})]
    entries = {("m", "lexcomp-nc-relations"): _Entry("t", {"layer_weights": mixes, "chosen": "top+none"}, scores),
               ("m", "lexcomp-an-attributes"): _Entry("t", {"layer_weights": mixes, "chosen": "mix+none"}, scores)}
    table = report._layer_weights_table(_ctx(entries), ["lexcomp-nc-relations", "lexcomp-an-attributes"], ["m"])
    rows = [[c.text for c in r] for r in table.rows]
    # chosen setting does not mix: the mixing setting best on validation; else the chosen one
    assert rows[0] == ["m", "nc-relations", "mix+attention", "0.50 0.30 0.20", "0", "0.900", "1 / 7"]
    assert rows[1] == ["m", "an-attributes", "mix+none (chosen)", "0.10 0.20 0.70", "2", "1.500", "3 / 9"]
    assert report._layer_weights_table(_ctx({}), ["lexcomp-nc-relations"], ["m"]) is None


def test_phrase_type_label_table():
    d = {"precision": 0.5, "recall": 0.25, "gold": 4, "predicted": 2, "correct": 1, "wrong_type": 2,
         "wrong_boundary": 0, "other_overlap": 0, "missed": 1, "spurious": 1, "confused_with": {"LVC": 2}}
    scores = [Score(subset="label=VPC", metric="span_f1", value=1 / 3, n=4, details=d),
              Score(subset="all", metric="span_f1", value=0.4, n=4)]
    table = report._phrase_type_labels_table(_ctx({("m", "lexcomp-phrase-type"): _Entry("t", {}, scores)}), ["m"])
    assert [c.text for c in table.rows[0]] == ["m", "VPC", "4", "0.500", "0.250", "0.333", "2 (LVC 2)", "0", "1", "1"]
