"""The grammar's settings as task options, and the 2016 school-as-agent preset."""
from __future__ import annotations

import pytest

from compeval.data.registry import DataContext
from compeval.errors import SpecError
from compeval.models.families.toy import HashBagEncoder
from compeval.tasks.probing.grammar import GrammarConfig, StructurePool
from compeval.tasks.registry import get_tasks


def _loaded(spec: str):
    (task,) = get_tasks(spec)
    task.load(DataContext(data_dir=None))
    return task


def _items(task):
    return [i for d in task.datasets for i in d.train + d.test]


def test_defaults_generate_the_same_sentences_as_the_grammars_own_defaults():
    task = _loaded("probe-x-as-agent,n_train=60,n_test=30")
    assert task.pool.config == GrammarConfig()
    assert [task.pool[i].text for i in range(200)] == [StructurePool(0)[i].text for i in range(200)]


def test_school_as_agent_preset_generates_only_active_and_passive_sentences():
    task = _loaded("probe-x-as-agent,preset=school-as-agent,n_train=400,n_test=200")
    items = _items(task)
    assert len(items) == 600 and {i.choice for i in items} == {"school"}
    voices = set()
    for item in items:
        s = item.structure
        (clause,) = s.clauses  # one transitive main clause: no relative clause
        assert clause.patient is not None and not clause.negated and clause.aspect == "simple"
        assert s.annotation.has_noun("school") and len(s.slots) == 2
        words = item.text.split()
        assert "that" not in words and "not" not in words
        if clause.voice == "passive":  # "the Y was hired by the X": a be-form, the participle, "by"
            assert "by" in words and words[2] in ("is", "are", "was", "were")
        else:
            assert "by" not in words and len(words) == 5  # "the X hired the Y"
        voices.add(clause.voice)
        assert item.label == s.annotation.is_agent("school")
    assert voices == {"active", "passive"}
    # the two members of a pair have the same words: a bag of words cannot tell them apart
    by_pair = {}
    for item in items:
        by_pair.setdefault((item.split, item.pair), []).append(sorted(item.text.split()))
    assert all(a == b for a, b in by_pair.values())


def test_preset_is_recorded_and_conflicting_options_are_refused():
    (task,) = get_tasks("probe-x-as-agent,preset=school-as-agent")
    assert {k: task.params[k] for k in ("words", "p_relative", "p_negation", "p_passive", "aspects", "preset")} == {
        "words": "school", "p_relative": 0.0, "p_negation": 0.0, "p_passive": 0.5, "aspects": "simple",
        "preset": "school-as-agent"}
    assert get_tasks("probe-x-as-agent,preset=school-as-agent,p_negation=0")[0].params == task.params
    with pytest.raises(SpecError, match="preset=school-as-agent sets words=school") as err:
        get_tasks("probe-x-as-agent,preset=school-as-agent,words=dog")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("spec, check", [
    ("p_passive=0", lambda s: all(c.voice == "active" for c in s.clauses)),
    ("p_passive=1", lambda s: all(c.voice == "passive" for c in s.clauses
                                  if c.patient is not None and not (c.head is not None and c.head == c.agent))),
    ("p_relative=0", lambda s: len(s.clauses) == 1),
    ("p_negation=0", lambda s: not any(c.negated for c in s.clauses)),
    ("aspects=simple", lambda s: all(c.aspect == "simple" for c in s.clauses)),
])
def test_each_grammar_option_reaches_the_generated_structures(spec, check):
    task = _loaded(f"probe-has-x,words=dog,n_train=60,n_test=30,{spec}")
    assert all(check(task.pool[i]) for i in range(300))
    assert all(check(i.structure) for i in _items(task))


def test_aspects_any_allows_simple_active_forms_and_the_default_does_not():
    default = StructurePool(0)
    anyp = StructurePool(0, GrammarConfig(aspects="any"))
    active = lambda pool: {c.aspect for i in range(300) for c in pool[i].clauses if c.voice == "active"}  # noqa: E731
    assert "simple" not in active(default) and "simple" in active(anyp)


def test_school_as_agent_runs_end_to_end_and_a_bag_of_words_is_at_chance():
    task = _loaded("probe-x-as-agent,preset=school-as-agent,n_train=200,n_test=100,classifiers=logreg")
    out = task.evaluate(HashBagEncoder(dim=16), seed=0)
    main = next(s for s in out.scores if s.subset == "logreg")
    assert main.value == pytest.approx(0.5)  # identical vectors for the two members of every pair
    assert out.counts["generator"]["grammar"]["passive_aspects"] == ["simple"]
