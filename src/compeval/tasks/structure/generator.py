"""Controlled minimal pairs: base sentences and variants that change one planned thing.

Content words serve as noun and verb ("covered the hammer" / "hammered a cover"), so roles can be
interchanged while the bag of words stays the same."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from ... import seeds

# noun -> past-tense verb form
DUAL = {"cook": "cooked", "judge": "judged", "nurse": "nursed", "coach": "coached", "guard": "guarded",
        "host": "hosted", "pilot": "piloted", "referee": "refereed", "hammer": "hammered", "paint": "painted",
        "brush": "brushed", "book": "booked", "bottle": "bottled", "package": "packaged", "ticket": "ticketed",
        "hand": "handed", "mail": "mailed", "ship": "shipped", "fax": "faxed", "text": "texted",
        "cover": "covered", "tape": "taped", "wrap": "wrapped", "film": "filmed"}
AGENTS = ("cook", "judge", "nurse", "coach", "guard", "host", "pilot", "referee")
VERBS = ("hand", "mail", "ship", "fax", "text", "tape", "wrap", "film")
OBJECTS = ("hammer", "paint", "brush", "book", "bottle", "package", "ticket", "cover")
MAX_BASES = len(AGENTS) * (len(AGENTS) - 1) * len(VERBS) * len(OBJECTS)  # distinct base sentences
MODIFIERS = {
    "time": ("yesterday", "last week", "in the morning", "at midnight"),
    "manner": ("quickly", "carefully", "quietly", "happily"),
    "place": ("in the kitchen", "at the station", "in the garden", "at the office"),
    "path": ("across the hall", "along the corridor", "through the gate", "down the street"),
    "adjective": ("old", "tall", "young", "famous"),
}
SYNONYMS = {"cook": "chef", "judge": "magistrate", "nurse": "carer", "coach": "trainer", "guard": "sentry",
            "host": "organiser", "pilot": "aviator", "referee": "umpire", "hammer": "mallet", "paint": "pigment",
            "brush": "paintbrush", "book": "novel", "bottle": "flask", "package": "parcel", "ticket": "pass",
            "cover": "lid", "hand": "passed", "mail": "posted", "ship": "sent", "fax": "transmitted",
            "text": "messaged", "tape": "fastened", "wrap": "enclosed", "film": "recorded"}
# Expected order of human similarity, most similar first (STS3k findings).
ORDER = ("modifier", "single", "double_swap", "triple_swap", "quadruple_swap")
MODIFIER_KINDS = ("time", "manner", "place", "path", "adjective", "passive")


@dataclass(frozen=True)
class Sentence:
    agent: str
    verb: str
    obj: str
    recipient: str
    mods: tuple[tuple[str, str], ...] = ()  # (kind, words)
    passive: bool = False
    synonyms: bool = False

    def word(self, noun: str) -> str:
        return SYNONYMS.get(noun, noun) if self.synonyms else noun

    def render(self) -> str:
        mods = dict(self.mods)
        adj = mods.get("adjective")
        agent = f"the {self.word(self.agent)}"
        obj = f"the {adj + ' ' if adj else ''}{self.word(self.obj)}"
        recip = f"the {self.word(self.recipient)}"
        verb = SYNONYMS[self.verb] if self.synonyms and self.verb in SYNONYMS else DUAL[self.verb]
        manner = mods.get("manner")
        vp = f"{manner + ' ' if manner else ''}{verb}"
        core = f"{obj} was {vp} to {recip} by {agent}" if self.passive else f"{agent} {vp} {obj} to {recip}"
        tail = " ".join(mods[k] for k in ("path", "place", "time") if k in mods)
        text = f"{core} {tail}".strip() + "."
        return text[0].upper() + text[1:]


@dataclass
class MinimalPairs:
    bases: list[Sentence]
    variants: list[dict[str, list[tuple[str, Sentence]]]] = field(default_factory=list)  # type -> [(detail, s)]


def generate(n_bases: int = 40, seed: int = 0) -> MinimalPairs:
    """``n_bases`` bases, each with a variant per modifier kind, a single change per core slot, every double swap
    of subject/verb/object, both triple cycles, one quadruple derangement and one synonym paraphrase."""
    rng = seeds.rng(seed, "minimal-pairs")
    seen: set[tuple[str, ...]] = set()
    out = MinimalPairs([])
    if not 1 <= n_bases <= MAX_BASES:
        from ...errors import SpecError

        raise SpecError(f"minimal-pairs: n_bases must be 1..{MAX_BASES}")
    while len(out.bases) < n_bases:
        a, r = rng.choice(AGENTS, 2, replace=False)
        base = Sentence(str(a), str(rng.choice(VERBS)), str(rng.choice(OBJECTS)), str(r))
        key = (base.agent, base.verb, base.obj, base.recipient)
        if key in seen:
            continue
        seen.add(key)
        out.bases.append(base)
        out.variants.append(_variants(base, rng))
    return out


def _variants(base: Sentence, rng: np.random.Generator) -> dict[str, list[tuple[str, Sentence]]]:
    v: dict[str, list[tuple[str, Sentence]]] = {t: [] for t in (*ORDER, "paraphrase")}
    for kind in MODIFIER_KINDS:
        if kind == "passive":
            v["modifier"].append((kind, replace(base, passive=True)))
        else:
            v["modifier"].append((kind, replace(base, mods=((kind, str(rng.choice(MODIFIERS[kind]))),))))
    used = {base.agent, base.verb, base.obj, base.recipient}
    for slot, pool in (("agent", AGENTS), ("verb", VERBS), ("obj", OBJECTS)):
        new = str(rng.choice([w for w in pool if w not in used]))
        v["single"].append((slot, replace(base, **{slot: new})))
    a, vb, o, r = base.agent, base.verb, base.obj, base.recipient
    v["double_swap"] += [("agent<->obj", replace(base, agent=o, obj=a)),
                         ("agent<->verb", replace(base, agent=vb, verb=a)),
                         ("verb<->obj", replace(base, verb=o, obj=vb))]
    v["triple_swap"] += [("agent->verb->obj", replace(base, verb=a, obj=vb, agent=o)),
                         ("agent->obj->verb", replace(base, obj=a, verb=o, agent=vb))]
    v["quadruple_swap"].append(("agent->verb->obj->recipient", Sentence(agent=r, verb=a, obj=vb, recipient=o)))
    v["paraphrase"].append(("synonyms", replace(base, synonyms=True)))
    return v


def changed_slots(a: Sentence, b: Sentence) -> set[str]:
    """Which slots differ between two sentences (for tests and for the predictions table)."""
    out = {s for s in ("agent", "verb", "obj", "recipient") if getattr(a, s) != getattr(b, s)}
    if a.mods != b.mods:
        out.add("mods")
    if a.passive != b.passive:
        out.add("passive")
    if a.synonyms != b.synonyms:
        out.add("synonyms")
    return out
