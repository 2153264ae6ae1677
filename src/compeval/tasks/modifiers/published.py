"""Published modifier-consistency figures (Carvalho et al. 2024, Tables 2-8), from ``modifiers-tables.md``.

Results carry Tables 2, 6, 7 and 8 (the four-decimal appendix versions of Tables 3-5); the body's tables are
kept as printed for ``benchmarks/reproduce.py``, as nine cells differ from the appendix rounded
(``tests/report/test_published.py`` lists them)."""
from __future__ import annotations

from ...results.schema import PublishedScore

AUTHORS = "Carvalho, Manino, Rozanova, Cordeiro & Freitas (2024)"
#: The adjective types in the paper's column order.
MODIFIER_TYPES = ("S-I", "S-NI", "NS-Pl", "NS-Pr", "A")
#: The paper's models in its row order, as compeval names them (the spec's TE3-small, stella_en_1.5B_v5, Glove,
#: Word2Vec). GloVe and word2vec are mean-pooled word vectors; the paper names neither release.
MODELS = ("DPR", "LaBSE", "Specter", "text-embedding-3-small", "NV-Embed-v2", "stella", "GloVe", "word2vec")
#: Table 6's columns (Table 3: the first five), as (type of the first adjective, type of the second) in
#: phrase order: the second adjective's type varies slowest.
TABLE6_PAIRS = tuple((a, b) for b in MODIFIER_TYPES for a in MODIFIER_TYPES)
TABLE3_PAIRS = TABLE6_PAIRS[:5]
#: Table 7's columns: (type of a1, type of a2) of test 2, each unordered pair once, a1 first in type order
#: (Table 4: the first five).
TABLE7_PAIRS = tuple((a, b) for i, a in enumerate(MODIFIER_TYPES) for b in MODIFIER_TYPES[i:])

#: Table 2, test 1 on AN phrases, by type (two decimals).
TABLE2: dict[str, tuple[float, ...]] = {
    "DPR": (0.86, 0.90, 0.85, 0.89, 0.97),
    "LaBSE": (1.0, 1.0, 1.0, 1.0, 1.0),
    "Specter": (0.93, 0.99, 0.97, 0.93, 0.97),
    "text-embedding-3-small": (1.0, 1.0, 1.0, 1.0, 1.0),
    "NV-Embed-v2": (0.73, 0.67, 0.8, 0.85, 0.75),
    "stella": (1.0, 1.0, 1.0, 1.0, 1.0),
    "GloVe": (1.0, 1.0, 1.0, 1.0, 1.0),
    "word2vec": (1.0, 1.0, 1.0, 1.0, 1.0),
}
#: Table 3, test 1 on AAN phrases whose second adjective is S-I (two decimals; the body's version of Table 6's
#: first five columns).
TABLE3: dict[str, tuple[float, ...]] = {
    "DPR": (0.52, 0.43, 0.53, 0.52, 0.62),
    "LaBSE": (0.92, 0.93, 0.95, 0.91, 0.97),
    "Specter": (0.67, 0.73, 0.72, 0.67, 0.73),
    "text-embedding-3-small": (1.0, 1.0, 1.0, 1.0, 1.0),
    "NV-Embed-v2": (0.78, 0.71, 0.68, 0.81, 0.75),
    "stella": (1.0, 1.0, 1.0, 1.0, 1.0),
    "GloVe": (1.0, 1.0, 1.0, 0.94, 1.0),
    "word2vec": (1.0, 1.0, 0.97, 0.94, 1.0),
}
#: Table 4, test 2 with an S-I first adjective (two decimals; the body's version of Table 7's S-I row).
TABLE4: dict[str, tuple[float, ...]] = {
    "DPR": (0.50, 0.32, 0.34, 0.50, 0.42),
    "LaBSE": (0.50, 0.42, 0.34, 0.53, 0.33),
    "Specter": (0.50, 0.65, 0.55, 0.50, 0.57),
    "text-embedding-3-small": (0.50, 0.51, 0.48, 0.48, 0.82),
    "NV-Embed-v2": (0.50, 0.54, 0.51, 0.51, 0.82),
    "stella": (0.50, 0.75, 0.64, 0.58, 0.91),
    "GloVe": (0.50, 0.66, 0.69, 0.70, 0.47),
    "word2vec": (0.50, 0.75, 0.65, 0.49, 1.0),
}
#: Table 5, test 3 by type (two decimals; the body's version of Table 8).
TABLE5: dict[str, tuple[float, ...]] = {
    "DPR": (0.46, 0.37, 0.48, 0.54, 0.39),
    "LaBSE": (0.36, 0.31, 0.51, 0.33, 0.19),
    "Specter": (0.48, 0.31, 0.49, 0.57, 0.33),
    "text-embedding-3-small": (0.81, 0.75, 0.74, 0.77, 0.39),
    "NV-Embed-v2": (0.84, 0.79, 0.79, 0.83, 0.81),
    "stella": (0.81, 0.56, 0.58, 0.64, 0.33),
    "GloVe": (0.61, 0.22, 0.22, 0.32, 0.28),
    "word2vec": (0.55, 0.21, 0.34, 0.49, 0.0),
}
#: Table 6, test 1 on AAN phrases, every ordered type pair (four decimals).
TABLE6: dict[str, tuple[float, ...]] = {
    "DPR": (0.5242, 0.4268, 0.5314, 0.5222, 0.6288, 0.3939, 0.3694, 0.4347, 0.3839, 0.5324, 0.4571, 0.3529, 0.3681,
        0.3997, 0.5401, 0.5536, 0.4345, 0.4782, 0.5069, 0.6409, 0.6263, 0.5278, 0.6029, 0.5734, 0.5139),
    "LaBSE": (0.9205, 0.9343, 0.9534, 0.9139, 0.9671, 0.9431, 0.9555, 0.9295, 0.9394, 0.9814, 0.9584, 0.9274, 0.8360,
        0.8858, 0.9588, 0.8874, 0.9176, 0.8536, 0.6483, 0.9166, 0.9848, 0.9861, 0.9701, 0.9523, 1.0),
    "Specter": (0.6667, 0.7273, 0.7177, 0.6661, 0.7348, 0.7955, 0.8861, 0.8184, 0.7857, 0.8194, 0.7932, 0.8009,
        0.6899, 0.7235, 0.7963, 0.7002, 0.7380, 0.6960, 0.6662, 0.7619, 0.7753, 0.8519, 0.7891, 0.7361, 0.6806),
    "text-embedding-3-small": (0.9773, 0.9886, 0.9941, 0.9973, 0.9899, 0.9760, 0.9583, 0.9820, 0.9901, 0.9769,
        0.9823, 0.9784, 0.9160, 0.9625, 0.9609, 0.9729, 0.9692, 0.9372, 0.9139, 0.9583, 0.9798, 0.9491, 0.9856,
        0.9722, 0.9722),
    "NV-Embed-v2": (0.7788, 0.7134, 0.6838, 0.8139, 0.7475, 0.7437, 0.5583, 0.4892, 0.7123, 0.7222, 0.6512, 0.4789,
        0.3251, 0.5223, 0.5895, 0.8236, 0.7292, 0.5686, 0.6346, 0.7679, 0.7879, 0.7639, 0.7006, 0.8115, 0.4861),
    "stella": (0.9992, 0.9949, 0.9992, 1.0, 1.0, 0.9962, 1.0, 0.9990, 0.9980, 1.0, 0.9992, 0.9974, 0.9771, 0.9894,
        1.0, 0.9984, 0.9931, 0.9850, 0.9547, 0.9921, 1.0, 0.9954, 1.0, 1.0, 1.0),
    "GloVe": (1.0, 1.0, 1.0, 0.9393, 1.0, 1.0, 1.0, 1.0, 0.9414, 1.0, 1.0, 1.0, 0.9992, 0.9442, 1.0, 0.9393, 0.9414,
        0.9442, 0.8873, 0.9345, 1.0, 1.0, 1.0, 0.9345, 1.0),
    "word2vec": (0.9969, 1.0, 0.9691, 0.9404, 1.0, 1.0, 1.0, 0.9686, 0.9394, 1.0, 0.9691, 0.9404, 0.9394, 0.9122,
        0.9691, 0.9404, 0.9394, 0.9122, 0.8736, 0.9404, 1.0, 1.0, 0.9691, 0.9404, 1.0),
}
#: Table 7, test 2 (phrase-pair intersectivity), by (type of a1, type of a2) (four decimals).
TABLE7: dict[str, tuple[float, ...]] = {
    "DPR": (0.5000, 0.3216, 0.3380, 0.4999, 0.4238, 0.5000, 0.4882, 0.6695, 0.5834, 0.5000, 0.6656, 0.5971, 0.5000,
        0.4487, 0.5000),
    "LaBSE": (0.5000, 0.4252, 0.3386, 0.5268, 0.3316, 0.5000, 0.4155, 0.6216, 0.3877, 0.5000, 0.6838, 0.5209, 0.5000,
        0.2902, 0.5000),
    "Specter": (0.5000, 0.6530, 0.5461, 0.5042, 0.5735, 0.5000, 0.4091, 0.3710, 0.4014, 0.5000, 0.4595, 0.5145,
        0.5000, 0.5318, 0.5000),
    "text-embedding-3-small": (0.5000, 0.5108, 0.4824, 0.4822, 0.8223, 0.5000, 0.4527, 0.4552, 0.8723, 0.5000,
        0.5001, 0.8100, 0.5000, 0.8334, 0.5000),
    "NV-Embed-v2": (0.5000, 0.5412, 0.5148, 0.5158, 0.8230, 0.5000, 0.4769, 0.4825, 0.8759, 0.5000, 0.5016, 0.8686,
        0.5000, 0.9053, 0.5000),
    "stella": (0.5000, 0.7597, 0.6379, 0.5782, 0.9090, 0.5000, 0.3897, 0.3241, 0.6614, 0.5000, 0.4414, 0.7617,
        0.5000, 0.8252, 0.5000),
    "GloVe": (0.5000, 0.6565, 0.6940, 0.7022, 0.4684, 0.5000, 0.5428, 0.5552, 0.3215, 0.5000, 0.5087, 0.2626, 0.5000,
        0.2558, 0.5000),
    "word2vec": (0.5000, 0.7536, 0.6518, 0.4879, 0.9982, 0.5000, 0.4289, 0.2953, 0.8103, 0.5000, 0.3817, 0.8503,
        0.5000, 0.8642, 0.5000),
}
#: Table 8, test 3 (non-subsectivity) on AN phrases, by type (four decimals).
TABLE8: dict[str, tuple[float, ...]] = {
    "DPR": (0.4621, 0.3750, 0.4784, 0.5357, 0.3889),
    "LaBSE": (0.3560, 0.3055, 0.5123, 0.3273, 0.1944),
    "Specter": (0.4848, 0.3056, 0.4907, 0.5714, 0.3333),
    "text-embedding-3-small": (0.8106, 0.7500, 0.7438, 0.7738, 0.3889),
    "NV-Embed-v2": (0.8409, 0.7917, 0.7901, 0.8274, 0.8056),
    "stella": (0.8106, 0.5556, 0.5772, 0.6369, 0.3333),
    "GloVe": (0.6060, 0.2222, 0.2191, 0.3214, 0.2777),
    "word2vec": (0.5530, 0.2083, 0.3364, 0.4940, 0.0),
}


def _scores(table: dict[str, tuple[float, ...]], subsets: list[str], metric: str, citation: str) -> tuple:
    return tuple(PublishedScore(model=m, subset=s, metric=metric, value=v, citation=citation)
                 for m, values in table.items() for s, v in zip(subsets, values, strict=True))


TEST1_PUBLISHED = (
    *(PublishedScore(model=m, subset="AN", metric="test1_macro", value=1.0, citation=f"{AUTHORS}, Table 2",
                     note="1.0 in every adjective type") for m, vals in TABLE2.items() if set(vals) == {1.0}),
    *_scores(TABLE2, list(MODIFIER_TYPES), "test1_macro", f"{AUTHORS}, Table 2"),
    *_scores(TABLE6, [f"{a}|{b}" for a, b in TABLE6_PAIRS], "test1_macro",
             f"{AUTHORS}, Table 6 (appendix B)"),
)
TEST2_PUBLISHED = _scores(TABLE7, [f"{a}|{b}" for a, b in TABLE7_PAIRS], "test2_macro",
                          f"{AUTHORS}, Table 7 (appendix B)")
TEST3_PUBLISHED = _scores(TABLE8, list(MODIFIER_TYPES), "test3_macro", f"{AUTHORS}, Table 8 (appendix B)")
