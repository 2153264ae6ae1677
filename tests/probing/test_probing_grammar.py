"""The sentence grammar: surface forms, annotation invariances, validation, reproducibility."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from compeval.tasks.probing.grammar import (
    Clause, Event, GrammarConfig, GrammarViolation, Slot, Structure, StructurePool, verb_group,
)
from compeval.tasks.probing.lexicon import NOUNS, VERB, VERBS

POOL = StructurePool(seed=0)


def professor_recommends_student(voice: str, relative_voice: str = "active") -> Structure:
    """'the professor … recommended the student', with 'the school … hired the student' as a relative."""
    return Structure(
        slots=(Slot("professor"), Slot("student", plural=True), Slot("school")),
        clauses=(
            Clause("recommend", agent=0, patient=1, voice=voice, tense="past", aspect="perfect"),
            Clause("hire", agent=2, patient=1, voice=relative_voice, tense="present", aspect="simple"
                   if relative_voice == "passive" else "progressive", head=1),
        ),
    )


def test_known_surface_forms():
    assert professor_recommends_student("active").text == (
        "the professor had recommended the students that the school is hiring")
    assert professor_recommends_student("passive", "passive").text == (
        "the students that are hired by the school had been recommended by the professor")


@pytest.mark.parametrize("voice, aspect, tense, plural, negated, expected", [
    ("active", "progressive", "past", False, True, "was not hiring"),
    ("active", "perfect", "present", True, False, "have hired"),
    ("active", "simple", "present", False, False, "hires"),
    ("active", "simple", "past", True, True, "did not hire"),
    ("passive", "simple", "present", True, True, "are not hired"),
    ("passive", "progressive", "past", False, False, "was being hired"),
    ("passive", "perfect", "present", False, True, "has not been hired"),
])
def test_verb_group(voice, aspect, tense, plural, negated, expected):
    clause = Clause("hire", 0, 1, voice=voice, tense=tense, aspect=aspect, negated=negated)
    assert " ".join(verb_group(VERB["hire"], clause, plural)) == expected


def test_irregular_forms_are_used():
    clause = Clause("see", 0, 1, voice="passive", tense="past", aspect="perfect")
    assert verb_group(VERB["see"], clause, False) == ["had", "been", "seen"]
    assert Structure((Slot("child", True), Slot("wolf", True)), (Clause("meet", 0, 1, aspect="perfect"),)).text \
        == "the children had met the wolves"


def test_annotation_of_a_known_sentence():
    s = professor_recommends_student("active").with_negation({1})
    assert s.text == "the professor had recommended the students that the school is not hiring"
    assert s.annotation.events == (
        Event("recommend", "professor", "student", False, "past", "perfect", "main"),
        Event("hire", "school", "student", True, "present", "progressive", "relative"),
    )
    assert s.annotation.performs("professor", "recommend")
    assert not s.annotation.performs("school", "hire") and s.annotation.is_agent_of("school", "hire")
    assert s.annotation.has_category("institution") and not s.annotation.has_category("animal")


def test_passive_and_active_versions_carry_the_same_annotation():
    active = professor_recommends_student("active")
    passive = active.with_clause(0, voice="passive")
    assert passive.text == "the students that the school is hiring had been recommended by the professor"
    assert passive.text != active.text
    assert passive.annotation == active.annotation
    # and the relative clause: object relative ("that the school is hiring") vs passive subject relative
    both = passive.with_clause(1, voice="passive", aspect="simple")
    assert "that are hired by the school" in both.text
    assert both.annotation == professor_recommends_student("passive", "passive").annotation


def _voice_variants(s: Structure):
    """Every structure obtained by flipping the voice of one clause whose aspect exists in both voices."""
    for i, c in enumerate(s.clauses):
        if c.patient is None or c.head == c.agent or c.aspect == "simple":
            continue
        yield s.with_clause(i, voice="passive" if c.voice == "active" else "active")


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_voice_never_changes_the_annotation(index):
    s = POOL[index]
    for v in _voice_variants(s):
        assert v.text != s.text
        assert v.annotation == s.annotation


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.data())
def test_moving_a_negation_changes_only_the_flag_of_the_event_it_scopes_over(index, data):
    s = POOL[index]
    clause = data.draw(st.integers(0, len(s.clauses) - 1))
    toggled = s.with_clause(clause, negated=not s.clauses[clause].negated)
    before, after = s.annotation.events, toggled.annotation.events
    for k, (b, a) in enumerate(zip(before, after)):
        if k == clause:
            assert a.negated != b.negated
            assert a.__class__(**{**a.__dict__, "negated": b.negated}) == b
        else:
            assert a == b
    assert toggled.annotation.entities == s.annotation.entities
    # moving the one negation between two clauses changes exactly those two flags
    if len(s.clauses) > 1:
        other = (clause + 1) % len(s.clauses)
        a1, a2 = s.with_negation({clause}).annotation.events, s.with_negation({other}).annotation.events
        assert [k for k in range(len(a1)) if a1[k] != a2[k]] == sorted({clause, other})


def test_moving_a_negation_keeps_the_words_under_default_forms():
    for index in range(200):
        s = POOL[index]
        if len(s.clauses) < 2:
            continue
        assert sorted(s.with_negation({0}).text.split()) == sorted(s.with_negation({1}).text.split())


def test_simple_active_forms_only_when_asked():
    default = {c.aspect for i in range(300) for c in POOL[i].clauses if c.voice == "active"}
    assert "simple" not in default
    simple = StructurePool(0, GrammarConfig(simple_active=True))
    assert "simple" in {c.aspect for i in range(300) for c in simple[i].clauses if c.voice == "active"}


def test_pool_is_reproducible_and_varied():
    again = StructurePool(seed=0)
    assert [POOL[i].text for i in range(50)] == [again[i].text for i in range(50)]
    assert [POOL[i].text for i in range(50)] != [StructurePool(seed=1)[i].text for i in range(50)]
    structures = [POOL[i] for i in range(2000)]
    clauses = [c for s in structures for c in s.clauses]
    assert {c.voice for c in clauses} == {"active", "passive"}
    assert {c.tense for c in clauses} == {"present", "past"}
    assert {c.negated for c in clauses} == {True, False}
    assert {sl.plural for s in structures for sl in s.slots} == {True, False}
    relatives = [c for c in clauses if c.head is not None]
    main_roles = {("subject" if c.head == s.clauses[0].agent else "object") for s in structures
                  for c in s.clauses[1:]}
    assert main_roles == {"subject", "object"}
    assert any(c.head == c.patient and c.voice == "active" for c in relatives)  # object relatives
    assert any(c.head == c.agent and c.patient is not None for c in relatives)  # subject relatives
    assert {n.category for n in NOUNS} == {"human", "institution", "animal"}
    assert {v.transitive for v in VERBS} == {True, False}


@pytest.mark.parametrize("slots, clauses, reason", [
    ((Slot("dog"), Slot("dog")), (Clause("chase", 0, 1),), "noun occurs in two slots"),
    ((Slot("dog"),), (Clause("chase", 0, None),), "transitivity"),
    ((Slot("dog"), Slot("cat")), (Clause("sleep", 0, 1),), "transitivity"),
    ((Slot("dog"),), (Clause("sleep", 0, None, voice="passive"),), "transitivity|passive"),
    ((Slot("dog"), Slot("cat"), Slot("fox")),
     (Clause("chase", 0, 1), Clause("see", 0, 2, voice="passive", head=0)), "agent-headed passive"),
    ((Slot("dog"), Slot("cat")), (Clause("chase", 0, 1), Clause("chase", 1, 0, head=1)), "verb occurs"),
    ((Slot("dog"), Slot("cat")), (Clause("sleep", 0),), "play no role"),
])
def test_invalid_structures_are_refused(slots, clauses, reason):
    with pytest.raises(GrammarViolation, match=reason):
        Structure(slots, clauses)
