"""How well one role parse agrees with another (the labeler against the hand-corrected parses). Fillers
are compared as the role model normalises them (what reaches the word vectors); Patient and Theme are also
scored merged, since VerbNet's choice between them needs the verb class, which a parse does not give."""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import pandas as pd

from ...tokenize import tokenize
from ....linguistics.roles import ROLES, RoleParse

MERGED = "Patient+Theme"
MACRO_ROLES = ("Agent", "Verb", MERGED, "Time", "Manner", "Location", "Trajectory")


def filler_tokens(text: str | None) -> list[str]:
    return tokenize(text, "sts3k") if text else []


def _role_tokens(parse: RoleParse, role: str) -> tuple[list[str], tuple[str, ...]]:
    """Tokens of a role (or of Patient and Theme together) and its exact-match key."""
    if role == MERGED:
        parts = [filler_tokens(parse.get("Patient")), filler_tokens(parse.get("Theme"))]
        parts = [p for p in parts if p]
        return [t for p in parts for t in p], tuple(sorted(" ".join(p) for p in parts))
    toks = filler_tokens(parse.get(role))
    return toks, ((" ".join(toks),) if toks else ())


def token_f1(pred: list[str], gold: list[str]) -> float:
    """Bag-of-tokens F1; two empty fillers agree (1.0)."""
    if not pred and not gold:
        return 1.0
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    p, r = common / len(pred), common / len(gold)
    return 2 * p * r / (p + r)


def agreement_table(predicted: Sequence[RoleParse], gold: Sequence[RoleParse]) -> pd.DataFrame:
    """One row per role: exact match over all sentences (an empty role matching an empty role counts),
    exact match and token F1 over the sentences where either parse fills the role, and fill counts."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predicted parses for {len(gold)} gold parses")
    rows = []
    for role in (*ROLES[:4], MERGED, *ROLES[4:]):
        exact, exact_filled, f1_filled, n_gold, n_pred = 0, 0, 0.0, 0, 0
        for p, g in zip(predicted, gold):
            pt, pk = _role_tokens(p, role)
            gt, gk = _role_tokens(g, role)
            same = pk == gk
            exact += same
            n_gold += bool(gk)
            n_pred += bool(pk)
            if pk or gk:
                exact_filled += same
                f1_filled += token_f1(pt, gt)
        n = len(gold)
        n_either = sum(1 for p, g in zip(predicted, gold) if _role_tokens(p, role)[1] or _role_tokens(g, role)[1])
        rows.append({
            "role": role,
            "exact": exact / n if n else float("nan"),
            "exact_when_filled": exact_filled / n_either if n_either else float("nan"),
            "token_f1_when_filled": f1_filled / n_either if n_either else float("nan"),
            "gold_filled": n_gold,
            "pred_filled": n_pred,
            "n": n,
        })
    table = pd.DataFrame(rows).set_index("role")
    macro = table.loc[list(MACRO_ROLES), ["exact", "exact_when_filled", "token_f1_when_filled"]].mean()
    table.loc["macro (Patient+Theme merged)"] = {**macro.to_dict(), "gold_filled": None, "pred_filled": None,
                                                 "n": len(gold)}
    return table
