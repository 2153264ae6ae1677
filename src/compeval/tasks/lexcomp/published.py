"""Published human accuracy on 100 re-annotated test items per task (Shwartz & Dagan 2019, TACL)."""
from __future__ import annotations

from ...results.schema import PublishedScore

SHWARTZ = "Shwartz & Dagan (2019), TACL: human performance on 100 re-annotated test items"
HUMAN_ACCURACY = {"lexcomp-vpc": 93.8, "lexcomp-lvc": 83.8, "lexcomp-nc-literality": 91.0,
                  "lexcomp-nc-relations": 77.8, "lexcomp-an-attributes": 86.4}


def published(task: str) -> tuple[PublishedScore, ...]:
    if task not in HUMAN_ACCURACY:
        return ()
    return (PublishedScore(model="Humans", metric="accuracy", value=HUMAN_ACCURACY[task] / 100, citation=SHWARTZ),)
