"""What a set of results should cite (``compeval cite [DIR]``): compeval, each suite's method papers
(``SUITES``) and each data set's papers (``DATA``), found through what each result records."""
from __future__ import annotations

from dataclasses import dataclass

from . import __version__

TITLE = "compeval: evaluating how well text representations capture compositional meaning"
AUTHOR = "The compeval developers"


@dataclass(frozen=True)
class Work:
    key: str
    kind: str  # BibTeX entry type
    fields: tuple[tuple[str, str], ...]

    def bibtex(self) -> str:
        width = max(len(k) for k, _ in self.fields)
        body = ",\n".join(f"  {k:<{width}} = {{{v}}}" for k, v in self.fields)
        return f"@{self.kind}{{{self.key},\n{body}\n}}"


def compeval_work() -> Work:
    """compeval itself, at the installed version."""
    return Work("compeval", "misc", (("title", TITLE), ("author", "{" + AUTHOR + "}"),
                                     ("note", f"Software, version {__version__}"), ("version", __version__)))


WORKS: dict[str, Work] = {w.key: w for w in (
    Work("fodor2024", "article", (
        ("author", "Fodor, James and De Deyne, Simon and Suzuki, Shinsuke"),
        ("title", "Compositionality and sentence meaning: comparing semantic parsing and transformers on a "
                  "challenging sentence similarity dataset"),
        ("journal", "Computational Linguistics"), ("year", "2024"))),
    Work("carvalho2024", "misc", (
        ("author", "Carvalho, Danilo S. and Manino, Edoardo and Rozanova, Julia and Cordeiro, Lucas and "
                   "Freitas, Andr{\\'e}"),
        ("title", "Montague semantics and modifier consistency measurement in neural language models"),
        ("year", "2024"))),
    Work("ettinger2016", "inproceedings", (
        ("author", "Ettinger, Allyson and Elgohary, Ahmed and Resnik, Philip"),
        ("title", "Probing for semantic evidence of composition by means of simple classification tasks"),
        ("booktitle", "Proceedings of the 1st Workshop on Evaluating Vector-Space Representations for NLP "
                      "(RepEval 2016)"), ("year", "2016"))),
    Work("ettinger2018", "inproceedings", (
        ("author", "Ettinger, Allyson and Elgohary, Ahmed and Phillips, Colin and Resnik, Philip"),
        ("title", "Assessing Composition in Sentence Vector Representations"),
        ("booktitle", "Proceedings of the 27th International Conference on Computational Linguistics "
                      "(COLING 2018)"), ("year", "2018"))),
    Work("shwartz2019", "article", (
        ("author", "Shwartz, Vered and Dagan, Ido"),
        ("title", "Still a Pain in the Neck: Evaluating Text Representations on Lexical Composition"),
        ("journal", "Transactions of the Association for Computational Linguistics"), ("year", "2019"))),
    Work("cheung2012", "inproceedings", (
        ("author", "Cheung, Jackie Chi Kit and Penn, Gerald"),
        ("title", "Evaluating Distributional Models of Semantics for Syntactically Invariant Inference"),
        ("booktitle", "Proceedings of the 13th Conference of the European Chapter of the Association for "
                      "Computational Linguistics (EACL 2012)"), ("year", "2012"))),
    Work("marelli2014", "inproceedings", (
        ("author", "Marelli, Marco and Menini, Stefano and Baroni, Marco and Bentivogli, Luisa and Bernardi, "
                   "Raffaella and Zamparelli, Roberto"),
        ("title", "A SICK cure for the evaluation of compositional distributional semantic models"),
        ("booktitle", "Proceedings of the Ninth International Conference on Language Resources and Evaluation "
                      "(LREC 2014)"), ("year", "2014"))),
    Work("cer2017", "inproceedings", (
        ("author", "Cer, Daniel and Diab, Mona and Agirre, Eneko and Lopez-Gazpio, I{\\~n}igo and Specia, Lucia"),
        ("title", "SemEval-2017 Task 1: Semantic Textual Similarity Multilingual and Crosslingual Focused "
                  "Evaluation"),
        ("booktitle", "Proceedings of the 11th International Workshop on Semantic Evaluation (SemEval-2017)"),
        ("year", "2017"))),
    Work("grefenstette2011", "inproceedings", (
        ("author", "Grefenstette, Edward and Sadrzadeh, Mehrnoosh"),
        ("title", "Experimental support for a categorical compositional distributional model of meaning"),
        ("booktitle", "Proceedings of the 2011 Conference on Empirical Methods in Natural Language Processing "
                      "(EMNLP 2011)"), ("year", "2011"))),
    Work("kartsaklis2013", "inproceedings", (
        ("author", "Kartsaklis, Dimitri and Sadrzadeh, Mehrnoosh"),
        ("title", "Prior disambiguation of word tensors for constructing sentence vectors"),
        ("booktitle", "Proceedings of the 2013 Conference on Empirical Methods in Natural Language Processing "
                      "(EMNLP 2013)"), ("year", "2013"))),
    Work("oshea2014", "article", (
        ("author", "O'Shea, James and Bandar, Zuhair and Crockett, Keeley"),
        ("title", "A new benchmark dataset with production methodology for short text semantic similarity "
                  "algorithms"),
        ("journal", "ACM Transactions on Speech and Language Processing"), ("year", "2014"))),
    Work("abdalla2023", "inproceedings", (
        ("author", "Abdalla, Mohamed and Vishnubhotla, Krishnapriya and Mohammad, Saif M."),
        ("title", "What makes sentences semantically related? A textual relatedness dataset and empirical study"),
        ("booktitle", "Proceedings of the 17th Conference of the European Chapter of the Association for "
                      "Computational Linguistics (EACL 2023)"), ("year", "2023"),
        ("note", "Data: https://doi.org/10.5281/zenodo.7599667"))),
)}

#: suite -> the papers whose method its tasks implement (a user's own tasks cite what their declaration says)
SUITES: dict[str, tuple[str, ...]] = {
    "sts": ("fodor2024",), "structure": ("fodor2024",), "modifiers": ("carvalho2024",),
    "probing": ("ettinger2016",), "lexcomp": ("shwartz2019",), "invariance": ("cheung2012",), "user": (),
}

#: registered data set -> the papers that published it
DATA: dict[str, tuple[str, ...]] = {
    "sts3k": ("fodor2024",), "sts3k-parses": ("fodor2024",), "sts3k-ratings": ("fodor2024",),
    "stsb": ("cer2017",), "stsb-captions": ("cer2017", "fodor2024"), "sick": ("marelli2014",),
    "gs2011": ("grefenstette2011", "fodor2024"), "ks2013": ("kartsaklis2013", "fodor2024"),
    "stss131": ("oshea2014", "fodor2024"), "str2022": ("abdalla2023",),
    "ettinger2018_compeval": ("ettinger2018",), "lexcomp": ("shwartz2019",),
    "modifier_consistency": ("carvalho2024",),
}


@dataclass
class Cited:
    """The works one set of results cites, each with why (the suites and data sets that name it)."""

    reasons: dict[str, list[str]]  # key -> reasons, in first-seen order; "compeval" first
    notes: list[str]  # citations of user tasks, as their declarations give them (free text)

    def bibtex(self) -> str:
        blocks = []
        for key, why in self.reasons.items():
            work = compeval_work() if key == "compeval" else WORKS[key]
            blocks.append(f"{_comment('; '.join(why))}\n{work.bibtex()}")
        blocks += [_comment(note) for note in self.notes]
        return "\n\n".join(blocks) + "\n"


def _comment(text: str) -> str:
    """A BibTeX comment (``%`` lines, which BibTeX and biber skip) within 80 columns."""
    import textwrap

    return "\n".join(textwrap.wrap(text, 78, initial_indent="% ", subsequent_indent="% ", break_long_words=False,
                                    break_on_hyphens=False))


def results_uses(directory, unreadable: list | None = None) -> list[tuple[str, str, list[str], str]]:
    """(task, suite, data sets read, declared citation) of every readable result of a results folder; the
    files left out (stale, damaged), with why, are added to ``unreadable`` when given."""
    from .results.store import ResultStore
    from .tasks.registry import result_slug

    uses = []
    store = ResultStore(directory, result_slug)
    for _, result in store.iter_results():
        sources = [d.source for d in result.data] or list(result.task.data_sources or [])
        uses.append((result.task.name, result.task.suite, sources, str(result.counts.get("citation") or "")))
    if unreadable is not None:
        unreadable.extend(store.unreadable)
    return uses


def cite(uses: list[tuple[str, str, list[str], str]] | None = None) -> Cited:
    """``uses``: (task, suite, data sets read, the citation a user task declares or "") per result, or None
    for every work compeval can cite."""
    reasons: dict[str, list[str]] = {"compeval": [f"compeval {__version__}, the software"]}
    notes: list[str] = []

    def add(key: str, why: str) -> None:
        got = reasons.setdefault(key, [])
        if why not in got:
            got.append(why)

    if uses is None:
        for suite, keys in SUITES.items():
            for key in keys:
                add(key, f"method of the {suite} suite")
        for source, keys in DATA.items():
            for key in keys:
                add(key, f"data set {source}")
        return Cited(reasons, notes)
    for task, suite, sources, declared in uses:
        note = f"task {task} (your own data) declares: {' '.join(declared.split())}"
        if declared and note not in notes:
            notes.append(note)
        for key in SUITES.get(suite, ()):
            add(key, f"method of the {suite} suite")
        for source in sources:
            for key in DATA.get(source, ()):
                add(key, f"data set {source}")
    return Cited(reasons, notes)
