"""Seeded generator of syntactic-invariance sets from hand-written templates (docs/invariance.md).

Relations link entities of the same kind, so a reversed sentence is as natural as the original."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from ... import seeds

CONSTRUCTIONS = ("active", "passive", "nominalisation", "dative_shift", "relative_clause", "adjunct", "synonym")
NEGATIVE_TYPES = ("reversed", "other_relation", "negated")

PEOPLE = ("Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Irene", "James", "Karen",
          "Louis", "Maria", "Nathan", "Olivia", "Peter")
COMPANIES = ("Acme", "Globex", "Initech", "Umbrella", "Cyberdyne", "Hooli", "Vandelay", "Soylent", "Tyrell",
             "Wonka", "Oscorp", "Monarch")
#: Distinct ordered entity pairs a relation can draw (its option ``pairs_per_relation`` stops here).
MAX_ENTITY_PAIRS = max(len(names) * (len(names) - 1) for names in (PEOPLE, COMPANIES))


@dataclass(frozen=True)
class Verb:
    base: str
    past: str
    participle: str
    nominals: tuple[str, ...]  # noun-phrase templates over {X} (agent), {Y} (other entity), {T} (theme)


@dataclass(frozen=True)
class Relation:
    name: str
    kind: str  # "company" or "person": both entities are of this kind
    verbs: tuple[Verb, ...]  # verbs[0] is the main verb; the others are synonyms
    themes: tuple[str, ...] = ()  # non-empty = a dative verb: X <verb> T to Y / X <verb> Y T

    @property
    def dative(self) -> bool:
        return bool(self.themes)

    @property
    def main(self) -> Verb:
        return self.verbs[0]

    @property
    def synonyms(self) -> tuple[Verb, ...]:
        return self.verbs[1:]

    def constructions(self) -> tuple[str, ...]:
        return tuple(c for c in CONSTRUCTIONS if c != "dative_shift" or self.dative)


RELATIONS: tuple[Relation, ...] = (
    Relation("acquire", "company", (
        Verb("acquire", "acquired", "acquired", ("{X}'s acquisition of {Y}", "the acquisition of {Y} by {X}")),
        Verb("buy", "bought", "bought", ("{X}'s purchase of {Y}", "the purchase of {Y} by {X}")),
        Verb("purchase", "purchased", "purchased", ("{X}'s purchase of {Y}",)),
    )),
    Relation("fund", "company", (
        Verb("fund", "funded", "funded", ("{X}'s funding of {Y}", "the funding of {Y} by {X}")),
        Verb("finance", "financed", "financed", ("{X}'s financing of {Y}",)),
        Verb("sponsor", "sponsored", "sponsored", ("{X}'s sponsorship of {Y}",)),
    )),
    Relation("sue", "company", (
        Verb("sue", "sued", "sued", ("{X}'s lawsuit against {Y}", "the lawsuit filed against {Y} by {X}")),
        Verb("prosecute", "prosecuted", "prosecuted", ("{X}'s prosecution of {Y}",)),
    )),
    Relation("sell", "company", (
        Verb("sell", "sold", "sold", ("{X}'s sale of {T} to {Y}", "the sale of {T} to {Y} by {X}")),
        Verb("offer", "offered", "offered", ("{X}'s offer of {T} to {Y}",)),
    ), themes=("the factory", "its stake", "the software unit")),
    Relation("defeat", "person", (
        Verb("defeat", "defeated", "defeated", ("{X}'s defeat of {Y}", "the defeat of {Y} by {X}")),
        Verb("beat", "beat", "beaten", ("{X}'s victory over {Y}",)),
        Verb("overcome", "overcame", "overcome", ("{X}'s victory over {Y}",)),
    )),
    Relation("hire", "person", (
        Verb("hire", "hired", "hired", ("{X}'s hiring of {Y}", "the hiring of {Y} by {X}")),
        Verb("employ", "employed", "employed", ("{X}'s employment of {Y}",)),
        Verb("recruit", "recruited", "recruited", ("{X}'s recruitment of {Y}",)),
    )),
    Relation("criticise", "person", (
        Verb("criticise", "criticised", "criticised", ("{X}'s criticism of {Y}", "the criticism of {Y} by {X}")),
        Verb("condemn", "condemned", "condemned", ("{X}'s condemnation of {Y}",)),
        Verb("denounce", "denounced", "denounced", ("{X}'s denunciation of {Y}",)),
    )),
    Relation("send", "person", (
        Verb("send", "sent", "sent", ("{X}'s sending of {T} to {Y}",)),
        Verb("mail", "mailed", "mailed", ("{X}'s mailing of {T} to {Y}",)),
        Verb("post", "posted", "posted", ("{X}'s posting of {T} to {Y}",)),
    ), themes=("a letter", "a parcel", "a postcard")),
    Relation("pay", "person", (
        Verb("pay", "paid", "paid", ("{X}'s payment of {T} to {Y}", "the payment of {T} to {Y} by {X}")),
        Verb("give", "gave", "given", ("{X}'s gift of {T} to {Y}",)),
    ), themes=("the money", "the fee", "the rent")),
)

_PRONOUN = {"company": ("which", "which"), "person": ("who", "whom")}
_REL_PREDICATES = {
    "company": ("is based in Ohio", "reported higher profits", "employs thousands of people"),
    "person": ("spoke to reporters", "lives in Boston", "later moved abroad"),
}
_NOMINAL_PREDICATES = {
    "company": ("was announced on Monday", "surprised investors", "made headlines"),
    "person": ("surprised many people", "made headlines", "was widely reported"),
}
_TIMES = ("Last year", "On Monday", "In 2015", "Early this morning")
_ADVERBS = ("quietly", "unexpectedly", "finally", "reportedly")
_PLACES = ("in London", "in Chicago", "after long talks", "during the summer")
_QUESTION_AGENT = {"company": "Which company", "person": "Who"}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _frame(rel: Relation, verb_form: str, x: str, y: str, theme: str, shifted: bool = False) -> str:
    """``X <verb_form> Y`` or, for dative verbs, ``X <verb_form> T to Y`` / ``X <verb_form> Y T``."""
    if not rel.dative:
        return f"{x} {verb_form} {y}"
    return f"{x} {verb_form} {y} {theme}" if shifted else f"{x} {verb_form} {theme} to {y}"


def _passive(rel: Relation, verb: Verb, x: str, y: str, theme: str, negated: bool = False) -> str:
    was = "was not" if negated else "was"
    if not rel.dative:
        return f"{y} {was} {verb.participle} by {x}"
    return f"{_cap(theme)} {was} {verb.participle} to {y} by {x}"


def render(rel: Relation, construction: str, x: str, y: str, theme: str, rng: random.Random) -> str:
    """One sentence saying that ``x`` stands in ``rel`` to ``y`` through ``construction``."""
    verb = rel.main
    who, whom = _PRONOUN[rel.kind]
    if construction == "active":
        return _frame(rel, verb.past, x, y, theme) + "."
    if construction == "passive":
        return _passive(rel, verb, x, y, theme) + "."
    if construction == "nominalisation":
        phrase = rng.choice(verb.nominals).format(X=x, Y=y, T=theme)
        return f"{_cap(phrase)} {rng.choice(_NOMINAL_PREDICATES[rel.kind])}."
    if construction == "dative_shift":
        if not rel.dative:
            raise ValueError(f"relation {rel.name!r} has no dative shift")
        return _frame(rel, verb.past, x, y, theme, shifted=True) + "."
    if construction == "relative_clause":
        pred = rng.choice(_REL_PREDICATES[rel.kind])
        variant = rng.randrange(3)
        if variant == 0:  # subject relative
            return f"{x}, {who} {_frame(rel, verb.past, '', y, theme).strip()}, {pred}."
        if variant == 1 and not rel.dative:  # object relative
            return f"{y}, {whom} {x} {verb.past}, {pred}."
        if variant == 1:
            return f"{y}, to {whom} {x} {verb.past} {theme}, {pred}."
        if not rel.dative:  # passive relative
            return f"{y}, {who} was {verb.participle} by {x}, {pred}."
        return f"{y}, {who} was {verb.participle} {theme} by {x}, {pred}."
    if construction == "adjunct":
        core = _frame(rel, f"{rng.choice(_ADVERBS)} {verb.past}", x, y, theme)
        return f"{rng.choice(_TIMES)}, {core} {rng.choice(_PLACES)}."
    if construction == "synonym":
        syn = rng.choice(rel.synonyms)
        return _frame(rel, syn.past, x, y, theme) + "."
    raise ValueError(f"unknown construction {construction!r}; known: {', '.join(CONSTRUCTIONS)}")


def render_negated(rel: Relation, variant: int, x: str, y: str, theme: str) -> str:
    """Three negated forms: ``did not``, negated passive, ``never``."""
    verb = rel.main
    variant %= 3
    if variant == 0:
        return _frame(rel, f"did not {verb.base}", x, y, theme) + "."
    if variant == 1:
        return _passive(rel, verb, x, y, theme, negated=True) + "."
    return _frame(rel, f"never {verb.past}", x, y, theme) + "."


@dataclass(frozen=True)
class Sentence:
    text: str
    label: str  # "E" (expresses the relation between the pair, roles as given) or "NE"
    tag: str  # construction for E, negative type for NE


@dataclass
class RelationGroup:
    """Sentences about one (relation, entity pair); E × E are the similar pairs, E × NE the dissimilar."""

    relation: str
    entities: tuple[str, str]
    sentences: list[Sentence] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.relation}:{self.entities[0]}>{self.entities[1]}"


@dataclass
class QAItem:
    """A question with one missing argument and a document with exactly one answering sentence."""

    qid: str
    question: str
    document: list[str]
    answer: int
    tags: list[str]  # per document sentence: the answer's construction, else the distractor type
    relation: str = ""


def _pick(seq, rng: random.Random, k: int) -> list:
    """``k`` items cycling through a seeded shuffle of ``seq`` (repeats only after all were used)."""
    out: list = []
    while len(out) < k:
        block = list(seq)
        rng.shuffle(block)
        out.extend(block)
    return out[:k]


def _entity_pairs(rel: Relation, n: int, rng: random.Random) -> list[tuple[str, str]]:
    names = PEOPLE if rel.kind == "person" else COMPANIES
    pairs = [(a, b) for a in names for b in names if a != b]
    rng.shuffle(pairs)
    return pairs[:n]


def _negatives(rel: Relation, x: str, y: str, theme: str, per_type: int, rng: random.Random) -> list[Sentence]:
    out: list[Sentence] = []
    for c in _pick(rel.constructions(), rng, per_type):
        out.append(Sentence(render(rel, c, y, x, theme, rng), "NE", "reversed"))
    others = [r for r in RELATIONS if r.kind == rel.kind and r.name != rel.name]
    for other, c in zip(_pick(others, rng, per_type), _pick(("active", "passive", "synonym", "adjunct"), rng, per_type)):
        out.append(Sentence(render(other, c, x, y, rng.choice(other.themes) if other.dative else "", rng),
                            "NE", "other_relation"))
    for v in _pick(range(3), rng, per_type):
        out.append(Sentence(render_negated(rel, v, x, y, theme), "NE", "negated"))
    return out


def generate_relation_groups(pairs_per_relation: int = 4, per_construction: int = 1, negatives_per_type: int = 4,
                             seed: int = 0, relations: tuple[str, ...] | None = None) -> list[RelationGroup]:
    """Task 1 items: per relation, ``pairs_per_relation`` entity pairs with E and NE sentences.

    Duplicates within a group are dropped (a set, as in the original data)."""
    rng = seeds.python_random(seed, "invariance-relation")
    groups: list[RelationGroup] = []
    for rel in RELATIONS:
        if relations is not None and rel.name not in relations:
            continue
        for x, y in _entity_pairs(rel, pairs_per_relation, rng):
            theme = rng.choice(rel.themes) if rel.dative else ""
            group = RelationGroup(rel.name, (x, y))
            for c in rel.constructions():
                for _ in range(per_construction):
                    group.sentences.append(Sentence(render(rel, c, x, y, theme, rng), "E", c))
            group.sentences.extend(_negatives(rel, x, y, theme, negatives_per_type, rng))
            seen: set[str] = set()
            group.sentences = [s for s in group.sentences if not (s.text in seen or seen.add(s.text))]
            groups.append(group)
    return groups


def _question(rel: Relation, missing: str, x: str, y: str, theme: str) -> str:
    verb = rel.main
    if missing == "agent":
        return f"{_QUESTION_AGENT[rel.kind]} {_frame(rel, verb.past, '', y, theme).strip()}?"
    if rel.dative:
        return f"To whom did {x} {verb.base} {theme}?"
    obj = "What" if rel.kind == "company" else "Whom"
    return f"{obj} did {x} {verb.base}?"


def generate_qa_items(pairs_per_relation: int = 4, distractors_per_type: int = 2, seed: int = 0,
                      relations: tuple[str, ...] | None = None) -> list[QAItem]:
    """Task 2 items: per (relation, entity pair) two questions (agent missing, other argument missing).

    Distractors reverse the roles, use another relation, negate, or relate two other entities."""
    rng = seeds.python_random(seed, "invariance-qa")
    items: list[QAItem] = []
    for rel in RELATIONS:
        if relations is not None and rel.name not in relations:
            continue
        names = PEOPLE if rel.kind == "person" else COMPANIES
        answer_constructions = iter(_pick(rel.constructions(), rng, 2 * pairs_per_relation))
        for x, y in _entity_pairs(rel, pairs_per_relation, rng):
            theme = rng.choice(rel.themes) if rel.dative else ""
            for missing in ("agent", "object"):
                c = next(answer_constructions)
                doc = [(render(rel, c, x, y, theme, rng), c)]
                negs = _negatives(rel, x, y, theme, distractors_per_type, rng)
                doc.extend((s.text, s.tag) for s in negs)
                strangers = [n for n in names if n not in (x, y)]
                for oc in _pick(rel.constructions(), rng, distractors_per_type):
                    z, w = rng.sample(strangers, 2)
                    doc.append((render(rel, oc, z, w, theme, rng), "other_entities"))
                answer_text = doc[0][0]
                seen: set[str] = set()
                doc = [d for d in doc if not (d[0] in seen or seen.add(d[0]))]
                rng.shuffle(doc)
                texts = [d[0] for d in doc]
                items.append(QAItem(
                    qid=f"{rel.name}:{x}>{y}:{missing}", question=_question(rel, missing, x, y, theme),
                    document=texts, answer=texts.index(answer_text), tags=[d[1] for d in doc], relation=rel.name,
                ))
    return items
