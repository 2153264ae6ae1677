"""Published modifier-consistency figures (Carvalho et al. 2024, Tables 2, 4 and 5), from the method spec.

Not computed by compeval: the tasks' metadata carry them, every result carries them, and the report shows
them as *published*.
"""
from __future__ import annotations

from ...results.schema import PublishedScore

CARVALHO = "Carvalho, Manino, Rozanova, Cordeiro & Freitas (2024), Tables 2, 4 and 5"
#: The adjective types in the paper's column order.
MODIFIER_TYPES = ("S-I", "S-NI", "NS-Pl", "NS-Pr", "A")

_TEST3 = {"GloVe": (.61, .22, .22, .32, .28), "word2vec": (.55, .21, .34, .49, .00),
          "stella": (.81, .56, .58, .64, .33), "text-embedding-3-small": (.81, .75, .74, .77, .39)}

TEST3_PUBLISHED = tuple(PublishedScore(model=m, subset=t, metric="test3_macro", value=v, citation=CARVALHO)
                        for m, vals in _TEST3.items() for t, v in zip(MODIFIER_TYPES, vals))
TEST1_PUBLISHED = tuple(
    row for m in ("LaBSE", "text-embedding-3-small", "stella", "GloVe", "word2vec")
    for row in (PublishedScore(model=m, subset="AN", metric="test1_macro", value=1.0, citation=CARVALHO,
                               note="1.0 in every adjective type"),
                *(PublishedScore(model=m, subset=t, metric="test1_macro", value=1.0, citation=CARVALHO)
                  for t in MODIFIER_TYPES))
)
