"""Published invariance figures (Cheung & Penn 2012, EACL), transcribed from the method spec; other data."""
from __future__ import annotations

from ...results.schema import PublishedScore

CHEUNG = "Cheung & Penn (2012), EACL"
_AUC_NOTE = ("average over the paper's four Bunescu & Mooney relation sets, not compeval's generated sets: "
             "the setting, not the number, is comparable")
_AUC = {"Overlap": .7427, "M&L add (Gigaword)": .6029, "M&L mult (Gigaword)": .7511, "D&L add (Gigaword)": .8326,
        "D&L mult (Gigaword)": .7163, "E&P add (AFP)": .5414, "E&P mult (AFP)": .6067, "TFP add (AFP)": .6398,
        "TFP mult (AFP)": .6320}
_QA_NOTE = "GENIA questions (Poon & Domingos 2009), not compeval's generated sets"
# model: (all questions, the subset) normalised rank
_QA = {"Overlap": (.8770, .7291), "M&L add (Gigaword)": (.7467, .6106), "TFP add (AFP)": (.6887, .6443),
       "M&L add + overlap": (.8782, .7523), "TFP add + overlap (AFP)": (.8940, .7871)}

RELATION_PUBLISHED = tuple(PublishedScore(model=m, metric="auc", value=v, citation=CHEUNG, note=_AUC_NOTE)
                           for m, v in _AUC.items())
QA_PUBLISHED = tuple(PublishedScore(model=m, subset=subset, metric="normalised_rank", value=v, citation=CHEUNG,
                                    note=_QA_NOTE)
                     for m, values in _QA.items() for subset, v in zip(("all", "subset"), values))
