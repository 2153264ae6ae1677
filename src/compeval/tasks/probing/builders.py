"""Probe data sets built from the shared structure pool, as balanced minimal pairs (docs/probing.md).

Labels come from each sentence's annotation, never from the construction; the builder checks each pair
came out as one TRUE and one FALSE."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...errors import DataError, SpecError
from .grammar import Annotation, Structure, StructurePool
from .lexicon import NOUN, NOUNS, VERB, nouns_of
from ... import seeds

PairMaker = Callable[[Structure, np.random.Generator, str], "tuple[Structure, Structure] | None"]


@dataclass(frozen=True)
class ProbeItem:
    text: str
    label: bool
    probes: tuple[str, ...]  # the words the question is about, e.g. ("professor", "recommend")
    choice: str  # which probe choice of the task, e.g. "professor:recommend"
    split: str  # "train" | "test"
    pair: int  # pool position; the two members of a minimal pair share it
    structure: Structure = field(compare=False, repr=False)


@dataclass
class ProbeDataset:
    choice: str
    train: list[ProbeItem]
    test: list[ProbeItem]
    counts: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ProbeSpec:
    """One probe question: how to build a pair from a structure and how to label any sentence."""

    kind: str
    choice: str
    probes: tuple[str, ...]
    label: Callable[[Annotation], bool]
    make_pair: PairMaker


def _rng(seed: int, kind: str, choice: str, index: int) -> np.random.Generator:
    return seeds.rng(seed, "probe-pair", kind, choice, index)


def build_dataset(spec: ProbeSpec, pool: StructurePool, n_train: int, n_test: int,
                  max_tries_per_item: int = 50) -> ProbeDataset:
    """Fill the test split (pool positions ≡ 0 mod 3), then the training split, with minimal pairs."""
    seen: set[str] = set()
    counts = {"skipped_structures": 0, "duplicate_pairs": 0}

    def fill(split: str, n_items: int, positions) -> list[ProbeItem]:
        items: list[ProbeItem] = []
        budget = max_tries_per_item * max(n_items, 1)
        for tried, index in enumerate(positions):
            if len(items) >= 2 * (n_items // 2):
                break
            if tried >= budget:
                raise DataError(f"{spec.kind} {spec.choice}: only {len(items)} of {n_items} {split} items "
                                f"after {tried} pool structures; the grammar cannot host this probe often enough")
            pair = spec.make_pair(pool[index], _rng(pool.seed, spec.kind, spec.choice, index), split)
            if pair is None:
                counts["skipped_structures"] += 1
                continue
            pos, neg = pair
            if pos.text in seen or neg.text in seen or pos.text == neg.text:
                counts["duplicate_pairs"] += 1
                continue
            labels = (spec.label(pos.annotation), spec.label(neg.annotation))
            if labels != (True, False):
                raise AssertionError(f"{spec.kind} {spec.choice}: pair labelled {labels} by the annotation: "
                                     f"{pos.text!r} / {neg.text!r}")
            seen.update((pos.text, neg.text))
            for s, label in ((pos, True), (neg, False)):
                items.append(ProbeItem(s.text, label, spec.probes, spec.choice, split, index, s))
        return items

    test = fill("test", n_test, (i for i in _count() if i % 3 == 0))
    train = fill("train", n_train, (i for i in _count() if i % 3 != 0))
    return ProbeDataset(spec.choice, train, test, counts)


def _count():
    i = 0
    while True:
        yield i
        i += 1


def _other_nouns(s: Structure, exclude: set[str], candidates: tuple[str, ...]) -> list[str]:
    used = {sl.noun for sl in s.slots} | exclude
    return [n for n in candidates if n not in used]


ALL_NOUNS = tuple(n.lemma for n in NOUNS)


def has_x(word: str) -> ProbeSpec:
    """Lexical sanity: the sentence contains noun ``word``; the negative has another noun in its place."""
    _check_noun(word)

    def make(s: Structure, rng: np.random.Generator, split: str):
        slot = int(rng.integers(len(s.slots)))
        pos = s.with_noun(slot, word)
        neg = pos.with_noun(slot, str(rng.choice(_other_nouns(pos, {word}, ALL_NOUNS))))
        return pos, neg

    return ProbeSpec("has-x", word, (word,), lambda a: a.has_noun(word), make)


def heldout_nouns(category: str, n_heldout: int, seed: int) -> tuple[str, ...]:
    members = nouns_of(category)
    if not 1 <= n_heldout < len(members):
        raise SpecError(f"n_heldout={n_heldout}: must be between 1 and {len(members) - 1} for category {category!r}")
    picked = seeds.rng(seed, "heldout-nouns", category).choice(len(members), n_heldout,
                                                                                  replace=False)
    return tuple(sorted(members[i] for i in picked))


def has_category(category: str, heldout: tuple[str, ...]) -> ProbeSpec:
    """The sentence contains a noun of ``category``; test positives use only ``heldout`` nouns, which no
    training sentence contains. Negatives contain no noun of the category."""
    members = nouns_of(category)
    if not members:
        raise SpecError(f"unknown category {category!r}; categories: human, institution, animal")
    seen_in_training = tuple(n for n in members if n not in heldout)
    outside = tuple(n for n in ALL_NOUNS if NOUN[n].category != category)

    def make(s: Structure, rng: np.random.Generator, split: str):
        fillers = rng.choice(len(outside), size=len(s.slots), replace=False)
        neg = s
        for slot, k in enumerate(fillers):
            neg = neg.with_noun(slot, outside[k])
        pool = heldout if split == "test" else seen_in_training
        n_members = int(rng.integers(1, min(len(s.slots), len(pool)) + 1))
        chosen = rng.choice(len(pool), size=n_members, replace=False)
        slots = rng.choice(len(s.slots), size=n_members, replace=False)
        pos = neg
        for slot, k in zip(slots, chosen):
            pos = pos.with_noun(int(slot), pool[k])
        return pos, neg

    return ProbeSpec("has-category", category, (category,), lambda a: a.has_category(category), make)


def x_as_agent(word: str) -> ProbeSpec:
    """``word`` is the agent of some event; in the negative it is only ever a patient (same words)."""
    _check_noun(word)

    def make(s: Structure, rng: np.random.Generator, split: str):
        agent_slots = [i for i in range(len(s.slots)) if "agent" in s.roles(i)]
        patient_only = [i for i in range(len(s.slots)) if s.roles(i) == {"patient"}]
        if not patient_only:
            return None
        a, p = int(rng.choice(agent_slots)), int(rng.choice(patient_only))
        pos = s.with_plural(p, s.slots[a].plural).with_noun(a, word)
        return pos, pos.swap_nouns(a, p)

    return ProbeSpec("x-as-agent", word, (word,), lambda a: a.is_agent(word), make)


def _place_agent_of(s: Structure, rng: np.random.Generator, noun: str, verb: str):
    """Put ``verb`` in a clause that fits its transitivity and ``noun`` in that clause's agent slot."""
    transitive = VERB[verb].transitive
    fits = [i for i, c in enumerate(s.clauses) if (c.patient is not None) == transitive]
    if not fits or len(s.slots) < 2:
        return None
    ci = int(rng.choice(fits))
    s = s.with_verb(ci, verb)
    a = s.clauses[ci].agent
    return s.with_noun(a, noun), ci, a


def _swap_out_of_agent(s: Structure, rng: np.random.Generator, a: int) -> tuple[Structure, Structure]:
    """(positive, negative): the negative swaps the noun in slot ``a`` with another slot's noun; the two
    slots get the same number first, so both sentences have the same words."""
    t = int(rng.choice([i for i in range(len(s.slots)) if i != a]))
    s = s.with_plural(t, s.slots[a].plural)
    return s, s.swap_nouns(a, t)


def agent_of_verb(noun: str, verb: str) -> ProbeSpec:
    """``noun`` is the agent of ``verb``; the negative holds both words in other relations (same words)."""
    _check_noun(noun)
    _check_verb(verb)

    def make(s: Structure, rng: np.random.Generator, split: str):
        placed = _place_agent_of(s, rng, noun, verb)
        if placed is None:
            return None
        s, _, a = placed
        return _swap_out_of_agent(s, rng, a)

    return ProbeSpec("agent-of-verb", f"{noun}:{verb}", (noun, verb), lambda a: a.is_agent_of(noun, verb), make)


def negation_scope(noun: str, verb: str, role_negatives: float = 0.0) -> ProbeSpec:
    """``noun`` performs ``verb``: its agent, and that event not negated. Every sentence has ``noun`` as
    the agent of ``verb`` and exactly one negation; the negative moves the negation onto ``verb``'s
    clause. With ``role_negatives`` > 0 that share of negatives instead keeps the negation elsewhere
    and swaps ``noun`` out of the agent slot."""
    _check_noun(noun)
    _check_verb(verb)
    if not 0.0 <= role_negatives <= 1.0:
        raise SpecError(f"role_negatives={role_negatives} must be between 0 and 1")

    def make(s: Structure, rng: np.random.Generator, split: str):
        if len(s.clauses) < 2:
            return None
        placed = _place_agent_of(s, rng, noun, verb)
        if placed is None:
            return None
        s, ci, a = placed
        other = int(rng.choice([j for j in range(len(s.clauses)) if j != ci]))
        pos = s.with_negation({other})
        if role_negatives and rng.random() < role_negatives:
            return _swap_out_of_agent(pos, rng, a)
        return pos, pos.with_negation({ci})

    return ProbeSpec("negation-scope", f"{noun}:{verb}", (noun, verb), lambda a: a.performs(noun, verb), make)


def _check_noun(word: str) -> None:
    if word not in NOUN:
        raise SpecError(f"{word!r} is not a noun of the probing lexicon; nouns: {', '.join(sorted(NOUN))}")


def _check_verb(word: str) -> None:
    if word not in VERB:
        raise SpecError(f"{word!r} is not a verb of the probing lexicon; verbs: {', '.join(sorted(VERB))}")


def parse_words(text: str) -> list[str]:
    """``school+professor+dog`` → ['school', 'professor', 'dog']."""
    words = [w.strip() for w in text.split("+") if w.strip()]
    if not words:
        raise SpecError(f"no probe words in {text!r}; give them as word+word+…")
    for w in words:
        _check_noun(w)
    return words


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """``professor:recommend+school:hire`` → [('professor', 'recommend'), ('school', 'hire')]."""
    out = []
    for part in (p.strip() for p in text.split("+")):
        noun, sep, verb = part.partition(":")
        if not sep or not noun or not verb:
            raise SpecError(f"probe pair {part!r} must be NOUN:VERB (pairs joined by '+')")
        _check_noun(noun)
        _check_verb(verb)
        out.append((noun, verb))
    if not out:
        raise SpecError(f"no probe pairs in {text!r}")
    return out
