"""The probing lexicon: nouns with a semantic category, transitive and intransitive verbs.

Forms are written out, not derived by rule: a wrong form would be a surface cue the probes could exploit."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Noun:
    lemma: str
    plural: str
    category: str  # "human" | "institution" | "animal"

    def form(self, plural: bool) -> str:
        return self.plural if plural else self.lemma


@dataclass(frozen=True)
class Verb:
    lemma: str
    third: str  # present, 3rd person singular
    past: str
    participle: str  # past participle (perfect, passive)
    gerund: str  # -ing form (progressive)
    transitive: bool


def _nouns(category: str, pairs: str) -> list[Noun]:
    out = []
    for pair in pairs.split():
        sg, _, pl = pair.partition("/")
        out.append(Noun(sg, pl or sg + "s", category))
    return out


NOUNS: tuple[Noun, ...] = tuple(
    _nouns("human", "professor student doctor lawyer scientist teacher nurse judge senator banker farmer "
                    "artist pilot researcher secretary/secretaries woman/women man/men child/children")
    + _nouns("institution", "school hospital university/universities company/companies bank church/churches museum "
                            "library/libraries committee government agency/agencies club")
    + _nouns("animal", "dog cat horse giraffe lion tiger rabbit monkey elephant wolf/wolves fox/foxes bird")
)


def _verbs(transitive: bool, rows: str) -> list[Verb]:
    out = []
    for row in rows.strip().splitlines():
        lemma, third, past, participle, gerund = row.split()
        out.append(Verb(lemma, third, past, participle, gerund, transitive))
    return out


VERBS: tuple[Verb, ...] = tuple(
    _verbs(True, """
        recommend recommends recommended recommended recommending
        hire hires hired hired hiring
        help helps helped helped helping
        call calls called called calling
        follow follows followed followed following
        meet meets met met meeting
        watch watches watched watched watching
        avoid avoids avoided avoided avoiding
        admire admires admired admired admiring
        visit visits visited visited visiting
        contact contacts contacted contacted contacting
        support supports supported supported supporting
        interrogate interrogates interrogated interrogated interrogating
        ignore ignores ignored ignored ignoring
        praise praises praised praised praising
        see sees saw seen seeing
        teach teaches taught taught teaching
        find finds found found finding
        chase chases chased chased chasing
        hide hides hid hidden hiding
    """)
    + _verbs(False, """
        sleep sleeps slept slept sleeping
        dance dances danced danced dancing
        run runs ran run running
        shout shouts shouted shouted shouting
        resign resigns resigned resigned resigning
        laugh laughs laughed laughed laughing
        arrive arrives arrived arrived arriving
        swim swims swam swum swimming
    """)
)

NOUN = {n.lemma: n for n in NOUNS}
VERB = {v.lemma: v for v in VERBS}
CATEGORIES: tuple[str, ...] = ("human", "institution", "animal")
TRANSITIVE: tuple[str, ...] = tuple(v.lemma for v in VERBS if v.transitive)
INTRANSITIVE: tuple[str, ...] = tuple(v.lemma for v in VERBS if not v.transitive)


def nouns_of(category: str) -> tuple[str, ...]:
    return tuple(n.lemma for n in NOUNS if n.category == category)
