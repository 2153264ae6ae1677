"""Modifier-consistency word lists (Carvalho et al. 2024) at the authors' pinned commit, to check ``words.py``."""
from ...data.registry import DataFile, DataSource

_REV = "71ce797297fec4d5a969f5aeb2c1006a78d35c64"
_RAW = f"https://raw.githubusercontent.com/dscarvalho/modifiers_consistency/{_REV}"

MODIFIER_CONSISTENCY = DataSource(
    name="modifier_consistency",
    description="Adjective (five Montague types) and noun lists with one synonym each, used to generate "
                "the 44,652 adjective-noun phrases of the modifier-consistency tests",
    homepage="https://github.com/dscarvalho/modifiers_consistency",
    revision=_REV,
    license="no licence file (all rights reserved); the word lists are the paper's published stimuli, cite the paper",
    download_size=1_679,
    files=(
        DataFile("adjectives.csv", f"{_RAW}/data/adjectives.csv",
                 "fd72ec74b092163cb65640ef0ef25588e38c0e45d210d844134cb3f66550b7ad"),
    ),
)

#: What the registry reads (``compeval.data.registry``): importing this module registers nothing.
SOURCES = (MODIFIER_CONSISTENCY,)
