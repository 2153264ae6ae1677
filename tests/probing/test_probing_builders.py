"""Probe data sets: labels follow from the annotation, balance, held-out nouns, lexical control,
reproducibility, no duplicates."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression

from compeval.errors import SpecError
from compeval.tasks.probing import builders
from compeval.tasks.probing.grammar import StructurePool
from compeval.tasks.probing.lexicon import NOUN, nouns_of

POOL = StructurePool(seed=0)
N_TRAIN, N_TEST = 300, 200
HELDOUT = builders.heldout_nouns("human", 4, seed=0)


def _independent_label(kind: str, probes: tuple[str, ...], annotation) -> bool:
    """Each task's definition, written again directly over the events (not through Annotation's helpers)."""
    events = annotation.events
    if kind == "has-x":
        return any(e.noun == probes[0] for e in annotation.entities)
    if kind == "has-category":
        return any(NOUN[e.noun].category == probes[0] for e in annotation.entities)
    if kind == "x-as-agent":
        return any(ev.agent == probes[0] for ev in events)
    noun, verb = probes
    if kind == "agent-of-verb":
        return any(ev.agent == noun and ev.verb == verb for ev in events)
    if kind == "negation-scope":
        return any(ev.agent == noun and ev.verb == verb and not ev.negated for ev in events)
    raise AssertionError(kind)


SPECS = {
    "has-x": builders.has_x("school"),
    "has-category": builders.has_category("human", HELDOUT),
    "x-as-agent": builders.x_as_agent("school"),
    "agent-of-verb": builders.agent_of_verb("professor", "recommend"),
    "negation-scope": builders.negation_scope("professor", "recommend"),
    "negation-scope+roles": builders.negation_scope("dog", "follow", role_negatives=0.5),
}
ROLE_AND_SCOPE = ("x-as-agent", "agent-of-verb", "negation-scope", "negation-scope+roles")


@pytest.fixture(scope="module")
def datasets():
    return {name: builders.build_dataset(spec, POOL, N_TRAIN, N_TEST) for name, spec in SPECS.items()}


@pytest.mark.parametrize("name", list(SPECS))
def test_labels_follow_from_the_annotation(datasets, name):
    data = datasets[name]
    kind = SPECS[name].kind
    for item in data.train + data.test:
        assert item.text == item.structure.text
        assert item.label == _independent_label(kind, item.probes, item.structure.annotation), item.text


@pytest.mark.parametrize("name", list(SPECS))
def test_balanced_sizes_and_no_duplicates(datasets, name):
    data = datasets[name]
    assert len(data.train) == N_TRAIN and len(data.test) == N_TEST
    for split in (data.train, data.test):
        assert sum(i.label for i in split) * 2 == len(split)
    texts = [i.text for i in data.train + data.test]
    assert len(set(texts)) == len(texts)
    # each minimal pair sits in one split, one TRUE and one FALSE member
    pairs = Counter((i.split, i.pair, i.label) for i in data.train + data.test)
    assert set(pairs.values()) == {1}
    assert {i.pair % 3 == 0 for i in data.test} == {True} and {i.pair % 3 == 0 for i in data.train} == {False}


@pytest.mark.parametrize("name", ["x-as-agent", "agent-of-verb", "negation-scope"])
def test_every_sentence_holds_the_probe_words(datasets, name):
    for item in datasets[name].train + datasets[name].test:
        annotation = item.structure.annotation
        assert annotation.has_noun(item.probes[0])
        if len(item.probes) == 2:
            assert any(e.verb == item.probes[1] for e in annotation.events)


def test_negation_scope_items_differ_only_in_scope(datasets):
    for item in datasets["negation-scope"].test:
        events = item.structure.annotation.events
        assert sum(e.negated for e in events) == 1
        assert any(e.agent == "professor" and e.verb == "recommend" for e in events)


def test_role_negatives_mix_the_two_kinds_of_negative(datasets):
    negatives = [i.structure.annotation for i in datasets["negation-scope+roles"].train if not i.label]
    role = sum(not a.is_agent_of("dog", "follow") for a in negatives)
    assert 0.3 < role / len(negatives) < 0.7


def test_agent_of_verb_negatives_cover_both_distractor_relations(datasets):
    kinds = Counter()
    for item in datasets["agent-of-verb"].train:
        if not item.label:
            a = item.structure.annotation
            kinds["patient of verb" if any(e.verb == "recommend" and e.patient == "professor" for e in a.events)
                  else "elsewhere"] += 1
    assert kinds["patient of verb"] > 20 and kinds["elsewhere"] > 20


def test_has_category_test_nouns_never_occur_in_training(datasets):
    data = datasets["has-category"]
    heldout_forms = {f for n in HELDOUT for f in (n, NOUN[n].plural)}
    train_words = {w for i in data.train for w in i.text.split()}
    assert not heldout_forms & train_words
    assert not set(HELDOUT) & {n for i in data.train for n in i.structure.annotation.nouns}
    humans_in_test = {n for i in data.test for n in i.structure.annotation.nouns if NOUN[n].category == "human"}
    assert humans_in_test == set(HELDOUT)
    assert {n for i in data.train for n in i.structure.annotation.nouns if NOUN[n].category == "human"} \
        == set(nouns_of("human")) - set(HELDOUT)


def test_same_seed_same_data_other_seed_other_data():
    spec = builders.agent_of_verb("school", "hire")
    a = builders.build_dataset(spec, StructurePool(3), 40, 20)
    b = builders.build_dataset(spec, StructurePool(3), 40, 20)
    c = builders.build_dataset(spec, StructurePool(4), 40, 20)
    assert [(i.text, i.label) for i in a.train + a.test] == [(i.text, i.label) for i in b.train + b.test]
    assert [i.text for i in a.test] != [i.text for i in c.test]


def test_test_split_does_not_depend_on_training_size():
    spec = builders.x_as_agent("dog")
    small = builders.build_dataset(spec, POOL, 20, 30)
    large = builders.build_dataset(spec, POOL, 200, 30)
    assert [i.text for i in small.test] == [i.text for i in large.test]


@pytest.mark.parametrize("name", ROLE_AND_SCOPE)
def test_minimal_pairs_have_identical_bags_of_words(datasets, name):
    by_pair: dict = {}
    for item in datasets[name].train + datasets[name].test:
        by_pair.setdefault((item.split, item.pair), []).append(Counter(item.text.split()))
    assert all(len(b) == 2 and b[0] == b[1] for b in by_pair.values())


def _bag_of_words_accuracy(data) -> float:
    vectorizer = CountVectorizer(token_pattern=r"\S+")
    x_train = vectorizer.fit_transform([i.text for i in data.train])
    clf = LogisticRegression(max_iter=2000).fit(x_train, [i.label for i in data.train])
    pred = clf.predict(vectorizer.transform([i.text for i in data.test]))
    return float(np.mean(pred == np.array([i.label for i in data.test])))


@pytest.mark.parametrize("name", ROLE_AND_SCOPE)
def test_lexical_control_bag_of_words_is_at_chance_on_role_and_scope(datasets, name):
    assert _bag_of_words_accuracy(datasets[name]) == pytest.approx(0.5, abs=1e-9)


def test_the_same_bag_of_words_classifier_solves_the_lexical_task(datasets):
    """The control above could fail: the very same classifier does solve has-X."""
    assert _bag_of_words_accuracy(datasets["has-x"]) > 0.95


def test_simple_active_forms_would_leak_negation_position():
    """Why auxiliaries are the default: with 'recommended' vs 'did not recommend', the words differ."""
    from compeval.tasks.probing.grammar import GrammarConfig

    pool = StructurePool(0, GrammarConfig(simple_active=True))
    data = builders.build_dataset(builders.negation_scope("professor", "recommend"), pool, 600, 600)
    assert _bag_of_words_accuracy(data) > 0.56  # 600 test items: chance would stay below 0.54


@pytest.mark.parametrize("call, message", [
    (lambda: builders.parse_words("school+unicorn"), "not a noun"),
    (lambda: builders.parse_pairs("professor-recommend"), "NOUN:VERB"),
    (lambda: builders.parse_pairs("professor:fly"), "not a verb"),
    (lambda: builders.heldout_nouns("human", 0, 0), "n_heldout"),
    (lambda: builders.has_category("plant", ()), "unknown category"),
    (lambda: builders.negation_scope("dog", "chase", role_negatives=2.0), "role_negatives"),
])
def test_bad_options_are_spec_errors(call, message):
    with pytest.raises(SpecError, match=message):
        call()


def test_parse_options():
    assert builders.parse_words(" school + dog ") == ["school", "dog"]
    assert builders.parse_pairs("professor:recommend+dog:sleep") == [("professor", "recommend"), ("dog", "sleep")]
