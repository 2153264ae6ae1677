"""The paper's stimuli word lists (Carvalho et al. 2024, appendix; upstream ``data/adjectives.csv``).

Oddities (``occurence``, two-word synonyms, ``ex-`` → ``former``) are kept so the phrases are the published
ones; list position is the word index of the authors' code and of ``an_phrases_regenerated.tsv``."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AdjectiveType:
    type_id: int  # the authors' id (1-5); 0 is used for nouns
    short: str  # subset name in results
    name: str  # the authors' name


ADJECTIVE_TYPES: tuple[AdjectiveType, ...] = (
    AdjectiveType(1, "S-I", "Subsective (Intersective)"),
    AdjectiveType(2, "S-NI", "Subsective (Non-Intersective)"),
    AdjectiveType(3, "NS-Pl", "Plain Non-Subsective"),
    AdjectiveType(4, "NS-Pr", "Privative Non-Subsective"),
    AdjectiveType(5, "A", "Ambiguous"),
)
TYPE_SHORT: dict[int, str] = {t.type_id: t.short for t in ADJECTIVE_TYPES}

# (word, synonym) per type, in the upstream column order.
_ADJECTIVES_BY_TYPE: dict[int, tuple[tuple[str, str], ...]] = {
    1: (("wild", "feral"), ("red", "crimson"), ("canadian", "north american"), ("depressed", "melancholic"),
        ("square", "cuboid"), ("seasonal", "periodic"), ("flamboyant", "exuberant"), ("vigorous", "robust"),
        ("loud", "cacophonous"), ("orange", "peach"), ("shy", "timid")),
    2: (("skilful", "skilled"), ("powerful", "potent"), ("particular", "specific"), ("extreme", "severe"),
        ("rare", "uncommon"), ("unexpected", "surprising")),
    3: (("former", "previous"), ("alleged", "suspected"), ("apparent", "seeming"), ("arguable", "debatable"),
        ("assumed", "presumed"), ("believed", "assumed"), ("disputed", "doubted"), ("doubtful", "dubious"),
        ("erroneous", "mistaken"), ("expected", "predicted"), ("faulty", "broken"), ("future", "upcoming"),
        ("historic", "legendary"), ("impossible", "unachievable"), ("improbable", "unlikely"),
        ("likely", "probable"), ("ostensible", "apparent"), ("plausible", "possible"), ("potential", "possible"),
        ("proposed", "suggested"), ("putative", "supposed"), ("questionable", "dubious"),
        ("so-called", "commonly-named"), ("suspicious", "dubious"), ("theoretical", "philosophical"),
        ("uncertain", "tentative"), ("unsuccessful", "failed")),
    4: (("artificial", "fake"), ("counterfeit", "forged"), ("deputy", "vice"), ("ex-", "former"),
        ("fabricated", "forged"), ("fictional", "fictitious"), ("hypothetical", "supposed"),
        ("imaginary", "imagined"), ("mock", "simulated"), ("mythical", "fantastical"), ("past", "prior"),
        ("phony", "fake"), ("spurious", "bogus"), ("virtual", "simulated")),
    5: (("old", "aged"), ("small", "tiny"), ("big", "large")),
}

NOUNS: tuple[tuple[str, str], ...] = (
    ("student", "learner"), ("dog", "canine"), ("potato", "tater"), ("story", "narrative"), ("king", "monarch"),
    ("person", "human"), ("chair", "seat"), ("occurence", "happening"), ("law", "regulation"),
    ("problem", "difficulty"), ("disaster", "catastrophe"), ("statement", "declaration"),
)


@dataclass(frozen=True)
class Adjective:
    index: int
    word: str
    type_id: int
    synonym: str

    @property
    def type_short(self) -> str:
        return TYPE_SHORT[self.type_id]


ADJECTIVES: tuple[Adjective, ...] = tuple(
    Adjective(i, word, type_id, syn)
    for i, (type_id, word, syn) in enumerate(
        (t, w, s) for t in sorted(_ADJECTIVES_BY_TYPE) for w, s in _ADJECTIVES_BY_TYPE[t]
    )
)
