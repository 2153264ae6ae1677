"""Published structure-analysis figures (Fodor, De Deyne & Suzuki 2024), transcribed from the method spec."""
from __future__ import annotations

from ...results.schema import PublishedScore

FODOR_TYPES = "Fodor, De Deyne & Suzuki (2024), Computational Linguistics, per-type profile"
FODOR_RELIABILITY = "Fodor, De Deyne & Suzuki (2024), Computational Linguistics, data quality"
HUMANS = "Humans (split-half)"

_MAD = {"Mean-CN": .37, "SentBERT (all-mpnet-base-v2)": .29, "OpenAI ada-002": .30, "DefSent": .23, "VerbNet-CN": .18}
_MAD_NOTE = ("Figure 8, over its eight categories on the paper's (unreleased) pair-type labels; compeval infers "
             "the types from role parses")

# Figure 8's MAD is over the paper's eight categories: compeval's headline (subset "categories").
TYPES_PUBLISHED = tuple(PublishedScore(model=m, subset="categories", metric="profile_mad", value=v,
                                       citation=FODOR_TYPES, note=_MAD_NOTE) for m, v in _MAD.items())
# The published kappas are the Spearman–Brown corrected 2κ/(1+κ) of the linear-weighted kappa (the raw
# kappas are about .71/.70/.67); the paper's "adv" includes the 71 negation pairs.
RELIABILITY_PUBLISHED = tuple(
    PublishedScore(model=HUMANS, subset=subset, metric=metric, value=v, citation=FODOR_RELIABILITY)
    for subset, sh, kappa in (("all", .953, .833), ("non", .950, .826), ("adv", .940, .804))
    for metric, v in (("split_half", sh), ("kappa_linear_spearman_brown", kappa))
) + (PublishedScore(model=HUMANS, metric="mean_rater_sd", value=.216, citation=FODOR_RELIABILITY),)

# Figure 2 and the dataset description: pair means (checks excluded) against ratings shuffled within each rater.
RELIABILITY_PUBLISHED += (
    PublishedScore(model=HUMANS, metric="rating_mean", value=.442, citation=FODOR_RELIABILITY),
    PublishedScore(model=HUMANS, metric="rating_sd", value=.242, citation=FODOR_RELIABILITY),
    PublishedScore(model=HUMANS, metric="ks_shuffled", value=.310, citation=FODOR_RELIABILITY,
                   note="Figure 2's KS statistic as the authors' Check_STS3k_ratings_shuffled.ipynb prints it "
                        "(p = 4.3e-119); one random shuffle, so it varies a little with the seed"),
)
