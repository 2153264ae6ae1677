"""The generated stimuli: counts, word lists, and equality with the shared regenerated phrase table."""
from __future__ import annotations

import csv

import numpy as np
import pandas as pd

from compeval.data.registry import DataContext
from compeval.tasks.modifiers.stimuli import PAD, build_stimuli, generate_phrases
from compeval.tasks.modifiers.words import ADJECTIVE_TYPES, ADJECTIVES, NOUNS


def test_word_list_sizes_match_the_paper():
    by_type = {t.short: sum(a.type_id == t.type_id for a in ADJECTIVES) for t in ADJECTIVE_TYPES}
    assert by_type == {"S-I": 11, "S-NI": 6, "NS-Pl": 27, "NS-Pr": 14, "A": 3}
    assert len(NOUNS) == 12
    assert len({a.word for a in ADJECTIVES}) == 61


def test_phrase_counts():
    adj1, adj2, noun = generate_phrases()
    an = adj2 == PAD
    assert an.sum() == 61 * 12 == 732
    assert (~an).sum() == 61 * 60 * 12 == 43_920
    assert len(adj1) == 44_652
    assert not (adj1[~an] == adj2[~an]).any(), "an AAN phrase repeats its adjective"
    assert len(set(zip(adj1.tolist(), adj2.tolist(), noun.tolist()))) == 44_652


def test_splits_and_synonym_variants_of_one_phrase():
    s = build_stimuli()
    i = s.phrase_texts().index("red wild student")
    text = lambda ids: [s.strings[j] if j != PAD else None for j in np.ravel(ids)]  # noqa: E731
    assert text(s.words[i]) == ["red", "wild", "student"]
    assert text(s.parts[i]) == ["red", "wild student", "wild", "red student", "student", "red wild"]
    assert text(s.syn_parts[i]) == ["crimson", "feral student", "feral", "crimson student", "learner", "crimson wild"]
    assert text(s.syn_phrase[i]) == ["crimson wild student"]
    j = s.phrase_texts().index("canadian dog")
    assert text(s.parts[j]) == ["canadian", "dog", None, None, None, None]
    assert text(s.syn_words[j]) == ["north american", "canine", None]


def test_generated_phrases_equal_the_regenerated_table(data_dir):
    table = pd.read_csv(data_dir / "an_phrases_regenerated.tsv", sep="\t", quoting=csv.QUOTE_NONE,
                        keep_default_na=False, dtype=str)
    s = build_stimuli()
    assert set(s.phrase_texts()) == set(table["phrase"])
    # Same order too (the authors' group() order), so row numbers are the file's phrase_id.
    assert s.phrase_texts() == table["phrase"].tolist()
    assert [s.strings[i] for i in s.syn_phrase] == table["phrase_first_word_synonym"].tolist()
    long_name = {t.short: t.name for t in ADJECTIVE_TYPES}
    ours = ["|".join(long_name[x] for x in c.split("|")) for c in s.type_config()]
    assert ours == table["adjective_types"].tolist()


def test_word_lists_equal_the_shared_words_file(data_dir):
    words = pd.read_csv(data_dir / "words.tsv", sep="\t", keep_default_na=False)
    adj = words[words["pos"] == "ADJ"].sort_values("index")
    assert list(zip(adj["word"], adj["type_id"], adj["synonym"])) == [(a.word, a.type_id, a.synonym) for a in ADJECTIVES]
    nouns = words[words["pos"] == "NOUN"].sort_values("index")
    assert list(zip(nouns["word"], nouns["synonym"])) == list(NOUNS)


def test_word_lists_equal_the_upstream_csv_through_the_registry(data_dir):
    ctx = DataContext(data_dir.parent, download=False)
    path = ctx.path("modifier_consistency", "adjectives.csv")
    assert ctx.used["modifier_consistency"].verified, "adjectives.csv does not match the pinned SHA-256"
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    for t in ADJECTIVE_TYPES:
        pairs = [(w.lower(), s.lower()) for w, s in zip(table[t.name], table[f"SYN {t.name}"]) if w]
        assert pairs == [(a.word, a.synonym) for a in ADJECTIVES if a.type_id == t.type_id], t.name
    nouns = [(w.lower(), s.lower()) for w, s in zip(table["Nouns"], table["SYN Nouns"]) if w]
    assert nouns == list(NOUNS)
