"""A small generative grammar for probing sentences, with the semantic annotation of each sentence.

A label computed from the annotation is true of the text by construction. Verb groups carry an auxiliary
by default so that moving a negation moves only "not" (docs/probing.md)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator

import numpy as np

from .lexicon import INTRANSITIVE, NOUN, NOUNS, TRANSITIVE, VERB, Verb
from ... import seeds

TENSES = ("present", "past")
ASPECTS = ("simple", "progressive", "perfect")
#: Which aspects the sampler draws: "auxiliary" (default) = every verb group has an auxiliary; "simple" = the
#: 2016 paper's sentences ("the school hired the researcher"); "any" = all three aspects (docs/probing.md).
ASPECT_SETS = ("auxiliary", "simple", "any")


@dataclass(frozen=True)
class Slot:
    """One noun phrase: ``the`` + noun, singular or plural."""

    noun: str
    plural: bool = False


@dataclass(frozen=True)
class Clause:
    """One event as it is said. ``head`` is the modified slot for a relative clause, None for the main clause."""

    verb: str
    agent: int
    patient: int | None = None
    voice: str = "active"
    tense: str = "past"
    aspect: str = "progressive"
    negated: bool = False
    head: int | None = None


@dataclass(frozen=True)
class Event:
    """What a clause means. Voice and clause type are absent on purpose: they do not change meaning."""

    verb: str
    agent: str
    patient: str | None
    negated: bool
    tense: str
    aspect: str
    clause: str  # "main" | "relative"


@dataclass(frozen=True)
class Entity:
    noun: str
    plural: bool
    category: str


@dataclass(frozen=True)
class Annotation:
    events: tuple[Event, ...]
    entities: frozenset[Entity]

    @property
    def nouns(self) -> frozenset[str]:
        return frozenset(e.noun for e in self.entities)

    def has_noun(self, noun: str) -> bool:
        return noun in self.nouns

    def has_category(self, category: str) -> bool:
        return any(e.category == category for e in self.entities)

    def is_agent(self, noun: str) -> bool:
        return any(e.agent == noun for e in self.events)

    def is_agent_of(self, noun: str, verb: str) -> bool:
        return any(e.agent == noun and e.verb == verb for e in self.events)

    def performs(self, noun: str, verb: str) -> bool:
        """The sentence asserts that ``noun`` does ``verb``: its agent, in an event that is not negated."""
        return any(e.agent == noun and e.verb == verb and not e.negated for e in self.events)


class GrammarViolation(ValueError):
    """A structure the grammar cannot express (a bug in a generator or a hand-built test case)."""


@dataclass(frozen=True)
class Structure:
    slots: tuple[Slot, ...]
    clauses: tuple[Clause, ...]  # clauses[0] is the main clause

    def __post_init__(self):
        _validate(self)

    @property
    def text(self) -> str:
        return realize(self)

    @property
    def annotation(self) -> Annotation:
        return annotate(self)

    def relative_on(self, slot: int) -> Clause | None:
        for c in self.clauses[1:]:
            if c.head == slot:
                return c
        return None

    def roles(self, slot: int) -> set[str]:
        """The roles ('agent', 'patient') slot ``slot`` plays across all clauses."""
        out = set()
        for c in self.clauses:
            if c.agent == slot:
                out.add("agent")
            if c.patient == slot:
                out.add("patient")
        return out

    def slot_of(self, noun: str) -> int | None:
        for i, s in enumerate(self.slots):
            if s.noun == noun:
                return i
        return None

    def clause_of(self, verb: str) -> int | None:
        for i, c in enumerate(self.clauses):
            if c.verb == verb:
                return i
        return None

    def with_noun(self, slot: int, noun: str) -> "Structure":
        """Put ``noun`` in ``slot``; if it already sits elsewhere, the two slots exchange nouns."""
        other = self.slot_of(noun)
        if other is not None and other != slot:
            return self.swap_nouns(slot, other)
        slots = list(self.slots)
        slots[slot] = replace(slots[slot], noun=noun)
        return replace(self, slots=tuple(slots))

    def swap_nouns(self, i: int, j: int) -> "Structure":
        """Exchange the nouns (not the number) of two slots."""
        slots = list(self.slots)
        slots[i], slots[j] = replace(slots[i], noun=slots[j].noun), replace(slots[j], noun=slots[i].noun)
        return replace(self, slots=tuple(slots))

    def with_plural(self, slot: int, plural: bool) -> "Structure":
        slots = list(self.slots)
        slots[slot] = replace(slots[slot], plural=plural)
        return replace(self, slots=tuple(slots))

    def with_clause(self, index: int, **changes) -> "Structure":
        clauses = list(self.clauses)
        clauses[index] = replace(clauses[index], **changes)
        return replace(self, clauses=tuple(clauses))

    def with_verb(self, index: int, verb: str) -> "Structure":
        """Put ``verb`` in clause ``index``; if another clause has it, the two exchange verbs."""
        other = self.clause_of(verb)
        clauses = list(self.clauses)
        if other is not None and other != index:
            clauses[other] = replace(clauses[other], verb=clauses[index].verb)
        clauses[index] = replace(clauses[index], verb=verb)
        return replace(self, clauses=tuple(clauses))

    def with_negation(self, negated_clauses: set[int] | frozenset[int]) -> "Structure":
        """Exactly the clauses in ``negated_clauses`` are negated."""
        clauses = tuple(replace(c, negated=i in negated_clauses) for i, c in enumerate(self.clauses))
        return replace(self, clauses=clauses)


def _validate(s: Structure) -> None:
    nouns = [slot.noun for slot in s.slots]
    if len(set(nouns)) != len(nouns):
        raise GrammarViolation(f"a noun occurs in two slots: {nouns}")
    for n in nouns:
        if n not in NOUN:
            raise GrammarViolation(f"unknown noun {n!r}")
    verbs = [c.verb for c in s.clauses]
    if len(set(verbs)) != len(verbs):
        raise GrammarViolation(f"a verb occurs in two clauses: {verbs}")
    if not s.clauses or s.clauses[0].head is not None:
        raise GrammarViolation("clauses[0] must be the main clause (head=None)")
    main = s.clauses[0]
    main_slots = {main.agent} | ({main.patient} if main.patient is not None else set())
    used = set(main_slots)
    heads = set()
    for i, c in enumerate(s.clauses):
        if c.verb not in VERB:
            raise GrammarViolation(f"unknown verb {c.verb!r}")
        if VERB[c.verb].transitive != (c.patient is not None):
            raise GrammarViolation(f"clause {i}: verb {c.verb!r} transitivity does not match its patient")
        if c.patient is None and c.voice == "passive":
            raise GrammarViolation(f"clause {i}: an intransitive clause cannot be passive")
        if c.voice not in ("active", "passive") or c.tense not in TENSES or c.aspect not in ASPECTS:
            raise GrammarViolation(f"clause {i}: bad voice/tense/aspect {c.voice}/{c.tense}/{c.aspect}")
        if c.agent == c.patient:
            raise GrammarViolation(f"clause {i}: agent and patient are the same slot")
        if i == 0:
            continue
        if c.head is None or c.head not in main_slots:
            raise GrammarViolation(f"relative clause {i} must modify a main-clause participant")
        if c.head in heads:
            raise GrammarViolation(f"slot {c.head} has two relative clauses")
        heads.add(c.head)
        if c.head not in (c.agent, c.patient):
            raise GrammarViolation(f"relative clause {i}: its head must be its agent or patient")
        if c.head == c.agent and c.voice == "passive":
            raise GrammarViolation(f"relative clause {i}: agent-headed passive relatives ('that X was V-ed by') "
                                   "are not generated")
        other = c.patient if c.head == c.agent else c.agent
        if other is not None:
            if other in used:
                raise GrammarViolation(f"relative clause {i}: its other participant reuses slot {other}")
            used.add(other)
    if used != set(range(len(s.slots))):
        raise GrammarViolation(f"slots {sorted(set(range(len(s.slots))) - used)} play no role")


def verb_group(verb: Verb, clause: Clause, subject_plural: bool) -> list[str]:
    """The verb with its auxiliaries, agreeing with the grammatical subject."""
    past = clause.tense == "past"
    neg = ["not"] if clause.negated else []
    be = ("were" if subject_plural else "was") if past else ("are" if subject_plural else "is")
    have = "had" if past else ("have" if subject_plural else "has")
    if clause.voice == "active":
        if clause.aspect == "simple":
            if clause.negated:
                return ["did" if past else ("do" if subject_plural else "does"), "not", verb.lemma]
            return [verb.past if past else (verb.lemma if subject_plural else verb.third)]
        if clause.aspect == "progressive":
            return [be, *neg, verb.gerund]
        return [have, *neg, verb.participle]
    if clause.aspect == "simple":
        return [be, *neg, verb.participle]
    if clause.aspect == "progressive":
        return [be, *neg, "being", verb.participle]
    return [have, *neg, "been", verb.participle]


def _noun_phrase(s: Structure, slot: int) -> list[str]:
    words = ["the", NOUN[s.slots[slot].noun].form(s.slots[slot].plural)]
    rel = s.relative_on(slot)
    if rel is not None:
        words += _relative(s, rel)
    return words


def _vg(s: Structure, c: Clause) -> list[str]:
    subject = c.agent if c.voice == "active" else c.patient
    return verb_group(VERB[c.verb], c, s.slots[subject].plural)


def _relative(s: Structure, c: Clause) -> list[str]:
    if c.patient is None or c.head == c.agent:  # subject relative, active: "that (has) recommended the Y"
        tail = _noun_phrase(s, c.patient) if c.patient is not None else []
        return ["that", *_vg(s, c), *tail]
    if c.voice == "passive":  # subject relative, passive: "that was recommended by the Y"
        return ["that", *_vg(s, c), "by", *_noun_phrase(s, c.agent)]
    return ["that", *_noun_phrase(s, c.agent), *_vg(s, c)]  # object relative: "that the Y recommended"


def realize(s: Structure) -> str:
    main = s.clauses[0]
    if main.patient is None:
        words = _noun_phrase(s, main.agent) + _vg(s, main)
    elif main.voice == "active":
        words = _noun_phrase(s, main.agent) + _vg(s, main) + _noun_phrase(s, main.patient)
    else:
        words = _noun_phrase(s, main.patient) + _vg(s, main) + ["by"] + _noun_phrase(s, main.agent)
    return " ".join(words)


def annotate(s: Structure) -> Annotation:
    events = tuple(
        Event(
            verb=c.verb,
            agent=s.slots[c.agent].noun,
            patient=s.slots[c.patient].noun if c.patient is not None else None,
            negated=c.negated,
            tense=c.tense,
            aspect=c.aspect,
            clause="main" if c.head is None else "relative",
        )
        for c in s.clauses
    )
    entities = frozenset(Entity(sl.noun, sl.plural, NOUN[sl.noun].category) for sl in s.slots)
    return Annotation(events, entities)


@dataclass(frozen=True)
class GrammarConfig:
    """Probabilities of the random structure sampler (all independent of any task's label)."""

    p_transitive_main: float = 0.8
    p_relative: float = 0.5  # per main-clause participant
    max_relatives: int = 2  # per sentence
    p_transitive_relative: float = 0.7
    p_passive: float = 0.5
    p_negation: float = 0.3  # per clause
    p_plural: float = 0.5  # per noun phrase
    tenses: tuple[str, ...] = TENSES
    simple_active: bool = False  # the same as aspects="any"
    nouns: tuple[str, ...] = field(default_factory=lambda: tuple(n.lemma for n in NOUNS))
    aspects: str = "auxiliary"  # one of ASPECT_SETS

    def __post_init__(self):
        if self.aspects not in ASPECT_SETS:
            raise ValueError(f"aspects={self.aspects!r}: one of {', '.join(ASPECT_SETS)}")

    @property
    def active_aspects(self) -> tuple[str, ...]:
        if self.aspects == "simple":
            return ("simple",)
        return ASPECTS if self.simple_active or self.aspects == "any" else ("progressive", "perfect")

    @property
    def passive_aspects(self) -> tuple[str, ...]:
        return ("simple",) if self.aspects == "simple" else ASPECTS


def sample_structure(rng: np.random.Generator, config: GrammarConfig = GrammarConfig()) -> Structure:
    """One random structure: main clause, optional relative clause on each main participant."""

    def flip(p: float) -> bool:
        return bool(rng.random() < p)

    def clause_form(transitive: bool, voice: str | None = None) -> dict:
        voice = voice or ("passive" if transitive and flip(config.p_passive) else "active")
        aspects = config.active_aspects if voice == "active" else config.passive_aspects
        return dict(voice=voice, tense=str(rng.choice(config.tenses)), aspect=str(rng.choice(aspects)),
                    negated=flip(config.p_negation))

    main_transitive = flip(config.p_transitive_main)
    n_slots = 2 if main_transitive else 1
    clauses = [dict(transitive=main_transitive, agent=0, patient=1 if main_transitive else None, head=None,
                    **clause_form(main_transitive))]
    heads = [h for h in range(n_slots) if flip(config.p_relative)]
    if len(heads) > config.max_relatives:
        heads = sorted(rng.choice(heads, size=config.max_relatives, replace=False).tolist())
    for head in heads:
        transitive = flip(config.p_transitive_relative)
        if not transitive:
            clauses.append(dict(transitive=False, agent=head, patient=None, head=head, **clause_form(False)))
            continue
        other = n_slots
        n_slots += 1
        if flip(0.5):  # the head is the agent: "the X that (has) hired the Y"
            clauses.append(dict(transitive=True, agent=head, patient=other, head=head,
                                **clause_form(True, voice="active")))
        else:  # the head is the patient: "the X that the Y hired" / "the X that was hired by the Y"
            clauses.append(dict(transitive=True, agent=other, patient=head, head=head, **clause_form(True)))
    nouns = rng.choice(len(config.nouns), size=n_slots, replace=False)
    slots = tuple(Slot(config.nouns[k], flip(config.p_plural)) for k in nouns)
    pools = {True: list(TRANSITIVE), False: list(INTRANSITIVE)}
    out = []
    for c in clauses:
        pool = pools[c.pop("transitive")]
        verb = pool.pop(int(rng.integers(len(pool))))
        out.append(Clause(verb=verb, **c))
    return Structure(slots, tuple(out))


@dataclass(frozen=True)
class StructurePool:
    """Seeded stream of random structures every generated task draws from.

    Item ``i`` depends only on (seed, i), so more items or another task see the same structures in order."""

    seed: int = 0
    config: GrammarConfig = GrammarConfig()

    def __getitem__(self, index: int) -> Structure:
        return sample_structure(seeds.rng(self.seed, "structure-pool", index), self.config)

    def stream(self, start: int = 0, step: int = 1) -> Iterator[tuple[int, Structure]]:
        i = start
        while True:
            yield i, self[i]
            i += step
