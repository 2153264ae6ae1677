"""The generator's constructions and hard negatives on fixed seeds."""
import re

import pytest

from compeval.tasks.invariance.generator import (
    CONSTRUCTIONS, NEGATIVE_TYPES, RELATIONS, generate_qa_items, generate_relation_groups, render, render_negated,
)
import random

ACQUIRE = next(r for r in RELATIONS if r.name == "acquire")
SELL = next(r for r in RELATIONS if r.name == "sell")


def test_constructions_of_a_transitive_relation():
    rng = random.Random(0)
    assert render(ACQUIRE, "active", "Acme", "Globex", "", rng) == "Acme acquired Globex."
    assert render(ACQUIRE, "passive", "Acme", "Globex", "", rng) == "Globex was acquired by Acme."
    nominal = render(ACQUIRE, "nominalisation", "Acme", "Globex", "", rng)
    assert re.match(r"(Acme's acquisition of Globex|The acquisition of Globex by Acme) \w", nominal)
    assert render(ACQUIRE, "synonym", "Acme", "Globex", "", rng) in {"Acme bought Globex.", "Acme purchased Globex."}
    adjunct = render(ACQUIRE, "adjunct", "Acme", "Globex", "", rng)
    assert re.match(r"[A-Z][\w ]+, Acme \w+ acquired Globex [\w ]+\.$", adjunct)
    with pytest.raises(ValueError, match="no dative shift"):
        render(ACQUIRE, "dative_shift", "Acme", "Globex", "", rng)


def test_dative_shift_and_negation():
    rng = random.Random(0)
    assert render(SELL, "active", "Acme", "Globex", "the factory", rng) == "Acme sold the factory to Globex."
    assert render(SELL, "dative_shift", "Acme", "Globex", "the factory", rng) == "Acme sold Globex the factory."
    assert render(SELL, "passive", "Acme", "Globex", "the factory", rng) == "The factory was sold to Globex by Acme."
    assert [render_negated(ACQUIRE, v, "Acme", "Globex", "") for v in range(3)] == [
        "Acme did not acquire Globex.", "Globex was not acquired by Acme.", "Acme never acquired Globex."]


def test_groups_are_deterministic_and_seed_dependent():
    a = generate_relation_groups(pairs_per_relation=2, seed=7)
    b = generate_relation_groups(pairs_per_relation=2, seed=7)
    c = generate_relation_groups(pairs_per_relation=2, seed=8)
    assert [(g.key, g.sentences) for g in a] == [(g.key, g.sentences) for g in b]
    assert [(g.key, g.sentences) for g in a] != [(g.key, g.sentences) for g in c]


def test_every_group_has_every_construction_and_negative_type():
    groups = generate_relation_groups(pairs_per_relation=3, per_construction=1, negatives_per_type=4, seed=0)
    assert len(groups) == 3 * len(RELATIONS)
    for g in groups:
        rel = next(r for r in RELATIONS if r.name == g.relation)
        tags_e = [s.tag for s in g.sentences if s.label == "E"]
        tags_ne = {s.tag for s in g.sentences if s.label == "NE"}
        assert set(tags_e) == set(rel.constructions())
        assert ("dative_shift" in tags_e) == rel.dative
        assert tags_ne == set(NEGATIVE_TYPES)
        texts = [s.text for s in g.sentences]
        assert len(texts) == len(set(texts)), "duplicate sentence in a group"
        x, y = g.entities
        for s in g.sentences:  # hard negatives keep the same entities
            assert x in s.text and y in s.text, s


def test_reversed_negatives_swap_roles():
    checked = {"positive": 0, "reversed_active": 0, "reversed_passive": 0}
    for g in generate_relation_groups(pairs_per_relation=2, seed=3):
        x, y = g.entities
        rel = next(r for r in RELATIONS if r.name == g.relation)
        verb = rel.main
        for s in g.sentences:
            # A plain active clause "<agent> <verb-past> ..." names the agent first.
            m = re.match(rf"^(\w+) (?:{'|'.join(v.past for v in rel.verbs)}) ", s.text)
            if m and s.tag in ("active", "synonym"):
                assert m.group(1) == x
                checked["positive"] += 1
            if m and s.tag == "reversed":
                assert m.group(1) == y
                checked["reversed_active"] += 1
            if s.tag == "reversed" and f" was {verb.participle} " in s.text and " by " in s.text:
                assert s.text.rstrip(".").split(" by ")[-1].split(",")[0] == y
                checked["reversed_passive"] += 1
    assert min(checked.values()) > 0, checked


def test_qa_items_have_exactly_one_answer_and_all_distractor_types():
    items = generate_qa_items(pairs_per_relation=2, distractors_per_type=2, seed=0)
    assert len(items) == 2 * 2 * len(RELATIONS)
    for item in items:
        assert item.tags[item.answer] in CONSTRUCTIONS
        distractors = [t for i, t in enumerate(item.tags) if i != item.answer]
        assert set(distractors) == {"reversed", "other_relation", "negated", "other_entities"}
        assert len(set(item.document)) == len(item.document)
        assert item.question.endswith("?")
    assert [i.document for i in items] == [i.document for i in generate_qa_items(2, 2, seed=0)]
