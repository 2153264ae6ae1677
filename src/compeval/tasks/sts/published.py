"""Published STS figures (Fodor, De Deyne & Suzuki 2024, Table 9), transcribed from the method spec."""
from __future__ import annotations

from ...results.schema import PublishedScore

FODOR = "Fodor, De Deyne & Suzuki (2024), Computational Linguistics, Table 9"

# model: (STSb-test, SICK, STSS-131, STS3k-all, STS3k-non, STS3k-adv); None = "–" in the paper.
TABLE_9 = {
    "Mean-CN": (.689, .597, .871, .368, .800, -.291),
    "Mult-CN": (.169, .273, .274, .096, .450, -.333),
    "Conv-CN": (.158, .268, .078, -.042, .323, -.462),
    "InferSent": (.661, .663, .868, .445, .830, -.088),
    "USE": (.795, .702, .900, .442, .824, -.071),
    "ERNIE-0": (.550, .601, .713, .423, .799, -.206),
    "ERNIE-12": (.549, .597, .809, .576, .834, .227),
    "SentBERT (all-mpnet-base-v2)": (.836, .804, .939, .580, .866, .145),
    "DefSent": (.812, .785, .942, .701, .868, .494),
    "OpenAI ada-002": (.835, .805, .960, .598, .890, .184),
    "AMR-SMATCH": (None, .502, .653, .424, .666, .029),
    "AMR-WWLK": (None, .633, .829, .316, .710, -.270),
    "AMRBART": (.621, .637, .800, .490, .837, .053),
    "S3BERT": (.841, .811, .940, .571, .865, .122),
    "AMR-CN": (None, .517, .434, .602, .631, .608),
    "VerbNet-CN": (None, None, None, .672, .652, .647),
}
_COLUMNS = [("stsb", "all", "STS-B test split"),
            ("sick", "all", "SICK: the paper's SICK set; compeval scores all 9,840 pairs"),
            ("stss131", "all", ""), ("sts3k", "all", ""), ("sts3k", "non", ""), ("sts3k", "adv", "")]


# Table 9's other two columns, model: (STSb-captions, STR-2022); None = "–" in the paper.
TABLE_9_MORE = {
    "Mean-CN": (.806, .612), "Mult-CN": (.260, .057), "Conv-CN": (.164, .057), "InferSent": (.798, .657),
    "USE": (.881, .746), "ERNIE-0": (.619, .592), "ERNIE-12": (.604, .617),
    "SentBERT (all-mpnet-base-v2)": (.929, .821), "DefSent": (.903, .779), "OpenAI ada-002": (.923, .847),
    "AMR-SMATCH": (.565, .435), "AMR-WWLK": (.738, .618), "AMRBART": (.699, .616), "S3BERT": (.931, .826),
    "AMR-CN": (.391, None), "VerbNet-CN": (.565, None),
}
_COLUMNS_MORE = [("stsb-captions", "all", "the authors' processed captions-genre file of the STS-B test split"),
                 ("str2022", "all", "all 5,500 pairs")]


def published(task: str) -> tuple[PublishedScore, ...]:
    """Table 9's Spearman figures for one task, in the table's model order."""
    return tuple(PublishedScore(model=model, subset=subset, metric="spearman", value=v, citation=FODOR, note=note)
                 for table, columns in ((TABLE_9, _COLUMNS), (TABLE_9_MORE, _COLUMNS_MORE))
                 for model, values in table.items()
                 for (name, subset, note), v in zip(columns, values) if name == task and v is not None)
