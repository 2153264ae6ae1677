"""The leaderboard page of a sweep (``compeval report DIR --leaderboard [--mteb-results MTEB]``): suite
headlines per model, and a scatter per headline against MTEB STS. No script: sorting is CSS ``:target``.
"""
from __future__ import annotations

import html
import json
import math
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from .. import textfile
from .. import __version__
from ..errors import CompevalError
from ..results.store import atomic_write_bytes
from .figures import FigureSink, new_figure, require_matplotlib, style_axes
from .loading import ResultsIndex
from .ranking import RankRow, fmt_cell, ranking
from .. import seeds

STS_TYPE = "STS"
N_BOOT = 2000


@dataclass
class LeaderboardInfo:
    path: Path
    models: int
    headlines: int
    scatter: int
    seconds: float
    notes: list[str] = field(default_factory=list)


def sts_task_names() -> set[str]:
    """MTEB's STS tasks (its task registry, offline)."""
    try:
        import mteb
    except ImportError:
        raise CompevalError("--mteb-results needs mteb to know which tasks are STS (pip install 'compeval[mteb]')") \
            from None
    return {t.metadata.name for t in mteb.get_tasks(task_types=[STS_TYPE], exclude_superseded=False)}


def _english_main(payload: dict) -> float | None:
    """Mean main_score of the English subsets of the test split (MTEB's layout), None when absent."""
    scores = payload.get("scores") or {}
    rows = scores.get("test") or []
    vals = []
    for row in rows:
        langs = [str(x) for x in (row.get("languages") or [])]
        subset = str(row.get("hf_subset", "default"))
        english = (not langs and subset in ("default", "en", "en-en")) or \
            (langs and all(x.startswith("eng") for x in langs)) or subset in ("en", "en-en")
        value = row.get("main_score")
        if english and isinstance(value, (int, float)) and math.isfinite(value):
            vals.append(float(value))
    return float(np.mean(vals)) if vals else None


def read_mteb_sts(root: Path | str, models: dict[str, str | None]) -> tuple[dict[str, dict[str, float]], list[str]]:
    """({model name: {STS task: score}}, notes on what was not found) for ``models`` ({Hub name: revision}) from
    an MTEB results folder: the model's revision folder, else the one holding the most STS tasks."""
    root = Path(root)
    if not root.is_dir():
        raise CompevalError(f"--mteb-results {root}: no such folder")
    base = root / "results" if (root / "results").is_dir() else root
    sts = sts_task_names()
    out: dict[str, dict[str, float]] = {}
    notes: list[str] = []
    for name, revision in models.items():
        folder = base / name.replace("/", "__")
        if not folder.is_dir():
            notes.append(f"{name}: no MTEB results folder {folder.name}")
            continue
        revisions = [d for d in folder.iterdir() if d.is_dir()]
        scored: dict[str, dict[str, float]] = {}
        for d in revisions:
            got = {}
            for f in d.glob("*.json"):
                if f.stem not in sts:
                    continue
                try:
                    value = _english_main(json.loads(textfile.read_text(f)))
                except (OSError, ValueError, AttributeError) as exc:
                    notes.append(f"{f}: unreadable ({exc})")
                    continue
                if value is not None:
                    got[f.stem] = value
            scored[d.name] = got
        pick = revision if revision in scored and scored[revision] else \
            max(scored, key=lambda r: len(scored[r]), default=None)
        if pick is None or not scored[pick]:
            notes.append(f"{name}: no English STS scores in {folder}")
            continue
        if revision and pick != revision:
            notes.append(f"{name}: MTEB scores of revision {pick}, not the evaluated {revision}")
        out[name] = scored[pick]
    return out, notes


def sts_means(scores: dict[str, dict[str, float]]) -> tuple[dict[str, float], list[str]]:
    """Per model, the mean over the STS tasks every model has (comparable means); when fewer than three
    are shared, each model's own mean (said in the page)."""
    if not scores:
        return {}, []
    common = sorted(set.intersection(*(set(s) for s in scores.values())))
    if len(common) >= 3:
        return {m: float(np.mean([s[t] for t in common])) for m, s in scores.items()}, common
    return {m: float(np.mean(list(s.values()))) for m, s in scores.items()}, []


def spearman_ci(x: np.ndarray, y: np.ndarray, n_boot: int = N_BOOT, seed: int = 0) -> tuple[float, float, float]:
    """Spearman's ρ of the models' (x, y) and its 95% percentile bootstrap interval, models resampled."""
    from scipy.stats import spearmanr

    rho = float(spearmanr(x, y).statistic)
    rng = seeds.rng(seed, "leaderboard-spearman")
    idx = rng.integers(0, len(x), size=(n_boot, len(x)))
    boots = []
    for row in idx:
        xs, ys = x[row], y[row]
        if np.ptp(xs) == 0 or np.ptp(ys) == 0:
            continue
        boots.append(spearmanr(xs, ys).statistic)
    if len(boots) < n_boot // 2:
        return rho, float("nan"), float("nan")
    lo, hi = np.nanpercentile(boots, [2.5, 97.5])
    return rho, float(lo), float(hi)


def _model_facts(index: ResultsIndex) -> dict[str, dict[str, Any]]:
    """Per model label: Hub name, revision, parameters, release date, licence (mteb's registry)."""
    from ..models.model_lists import model_metadata

    out: dict[str, dict[str, Any]] = {}
    for e in index.entries:
        if e.model in out:
            continue
        rec = e.result.model
        name = str(rec.get("name") or e.model)
        revision = (rec.get("params") or {}).get("revision")
        facts = model_metadata(name)
        out[e.model] = {"name": name, "revision": revision, "params": facts.n_parameters,
                        "released": facts.release_date, "license": facts.license}
    return out


def _params(n: int | None) -> str:
    if not n:
        return ""
    return f"{n / 1e9:.2f}B" if n >= 1e9 else f"{n / 1e6:.0f}M"


def _scatter(sink: FigureSink, row: RankRow, k: int, sts: dict[str, float], labels: dict[str, str]):
    """One headline against MTEB STS: a point per model with its interval, ρ and its interval in the title."""
    models = [m for m in row.cells if labels.get(m) in sts]
    if len(models) < 3:
        return None, None
    x = np.array([sts[labels[m]] for m in models])
    y = np.array([row.cells[m][0] for m in models])
    rho, lo, hi = spearman_ci(x, y)
    fig = new_figure(4.6, 3.6)
    ax = fig.subplots()
    for m, xi, yi in zip(models, x, y):
        _, clo, chi = row.cells[m]
        if clo is not None and chi is not None:
            ax.plot([xi, xi], [clo, chi], color="#9bbbd4", linewidth=1, zorder=1)
    ax.scatter(x, y, s=18, color="#0072B2", zorder=2)
    for m, xi, yi in zip(models, x, y):
        ax.annotate(labels[m].split("/")[-1][:18], (xi, yi), fontsize=6, xytext=(3, 2), textcoords="offset points",
                    color="#444")
    ax.set_xlabel("MTEB STS mean (main score)")
    ax.set_ylabel(row.label[:40])
    ci = f" [{lo:.2f}, {hi:.2f}]" if math.isfinite(lo) else ""
    ax.set_title(f"ρ = {rho:.2f}{ci}, n = {len(models)} models", fontsize=9, loc="left")
    style_axes(ax, "both")
    fig_id = f"fig-lb-mteb-{k}"
    caption = (f"{row.label} against each model's MTEB STS mean; Spearman's ρ with its 95% bootstrap interval "
               f"({N_BOOT} resamples of the models). Vertical lines: the headline's 95% interval.")
    return sink.render(fig, fig_id, f"{row.label} vs MTEB STS", caption), (rho, lo, hi, len(models))


CSS = """
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color:#1d1d1f; }
header { padding: 18px 28px 10px; border-bottom: 1px solid #e3e3e3; background:#f7f7f8; }
h1 { margin: 0 0 4px; font-size: 22px; } .meta, .note { color:#666; font-size: 12.5px; }
main { padding: 6px 28px 40px; } h2 { font-size: 18px; border-bottom: 2px solid #1d1d1f; padding-bottom: 3px; }
table { border-collapse: collapse; font-size: 12.5px; } th, td { border-bottom: 1px solid #e3e3e3; padding: 4px 8px; }
th { background:#f7f7f8; vertical-align: bottom; } th a { color:#0072B2; text-decoration:none; }
td.num { text-align:right; font-variant-numeric: tabular-nums; white-space: nowrap; } td.model { font-weight:600; }
td .ci { color:#666; font-size: 10.5px; display:block; } td.best { font-weight:700; }
.view { display:none; } .view.default { display:block; } .views:has(.view:target) .view.default { display:none; }
.view:target { display:block; } th.sorted { background:#e4eef6; }
.figs { display:flex; flex-wrap:wrap; gap: 8px 24px; } figure { margin: 10px 0; max-width: 480px; }
figure svg { max-width: 100%; height: auto; } figcaption { font-size: 12px; color:#444; }
"""


def build_leaderboard(results_dir: Path | str, output: Path | str, *, mteb_results: Path | str | None = None,
                      title: str = "compeval leaderboard") -> LeaderboardInfo:
    """Write the leaderboard page of ``results_dir`` to ``output`` (see the module docstring)."""
    from ..outputs import check_output
    from .build import CSP

    check_output(output, "leaderboard file", results=results_dir, folder=False)
    started = time.perf_counter()
    require_matplotlib()
    index = ResultsIndex(results_dir)
    rows = [r for r in ranking(index) if r.cells]
    if not rows:
        raise CompevalError(f"{results_dir}: no ranked headline to put on a leaderboard")
    facts = _model_facts(index)
    models = [m for m in index.models if any(m in r.cells for r in rows)]
    notes: list[str] = []
    sink = FigureSink(None)
    figures, rho_cells = [], {}
    sts: dict[str, float] = {}
    common: list[str] = []
    if mteb_results is not None:
        scores, notes = read_mteb_sts(mteb_results, {facts[m]["name"]: facts[m]["revision"] for m in models})
        sts, common = sts_means(scores)
        labels = {m: facts[m]["name"] for m in models}
        for k, row in enumerate(rows):
            fig, stat = _scatter(sink, row, k, sts, labels)
            if fig is not None:
                figures.append(fig)
                rho_cells[k] = stat
    body = _table_views(rows, models, facts, sts)
    e = html.escape
    figs = "".join(f'<figure class="figure" id="{f.id}">{f.svg}<figcaption><strong>{e(f.title)}.</strong> {e(f.caption)}'
                   f"</figcaption></figure>" for f in figures)
    sts_note = (f"MTEB STS mean over the {len(common)} STS tasks every model has ({', '.join(common)})." if common
                else "MTEB STS mean over each model's own STS tasks (fewer than three shared by all).")
    mteb_part = "" if mteb_results is None else (
        f'<section id="mteb"><h2>Against MTEB STS</h2><p class="note">{e(sts_note)} From {e(str(mteb_results))}; '
        f"{len(sts)} of {len(models)} models found.</p><div class=\"figs\">{figs}</div>"
        + "".join(f'<p class="note">{e(n)}</p>' for n in notes) + "</section>")
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}"><title>{e(title)}</title>'
            f"<style>{CSS}</style></head><body><header><h1>{e(title)}</h1><div class=\"meta\">{len(models)} models, "
            f"{len(rows)} headlines, from {e(str(index.root))}; compeval {__version__}, "
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC. Click a column's name to sort by it.</div></header>"
            f'<main><section id="leaderboard"><h2>Leaderboard</h2>{body}<p class="note">Values: the suite headlines '
            f"of the end-of-run ranking with their 95% intervals (↑ higher / ↓ lower is better; a suite mean's "
            f"interval treats its tasks as independent). Parameters, release date and licence from mteb's model "
            f"registry where it knows the model.</p></section>{mteb_part}</main></body></html>")
    out = Path(output)
    atomic_write_bytes(out, page.encode("utf-8"))
    return LeaderboardInfo(out, len(models), len(rows), len(figures), time.perf_counter() - started, notes)


def _table_views(rows: list[RankRow], models: list[str], facts: dict[str, dict[str, Any]],
                 sts: dict[str, float]) -> str:
    """The table once per sort column (``#lb-by-K``), the first headline's order shown by default."""
    e = html.escape
    cols = [("headline", k) for k in range(len(rows))] + [("params", None), ("released", None)]
    views = []
    for ci, (kind, k) in enumerate(cols):
        if kind == "headline":
            d = rows[k].direction or 1
            key = lambda m, k=k, d=d: (m not in rows[k].cells, -d * rows[k].cells[m][0] if m in rows[k].cells else 0)
        elif kind == "params":
            key = lambda m: (facts[m]["params"] is None, -(facts[m]["params"] or 0))
        else:
            key = lambda m: (facts[m]["released"] is None, str(facts[m]["released"] or ""))
        order = sorted(models, key=key)
        head = ["<th>#</th><th>model</th>"]
        for cj, (kind2, k2) in enumerate(cols):
            cls = ' class="sorted"' if cj == ci else ""
            if kind2 == "headline":
                arrow = {1: " ↑", -1: " ↓"}.get(rows[k2].direction, "")
                label = e(rows[k2].label) + arrow
            else:
                label = kind2
            head.append(f'<th{cls}><a href="#lb-by-{cj}">{label}</a></th>')
        head.append("<th>licence</th>")
        if sts:
            head.append("<th>MTEB STS</th>")
        body = []
        for rank, m in enumerate(order, 1):
            f = facts[m]
            cells = [f"<td class=\"num\">{rank}</td><td class=\"model\">{e(m)}</td>"]
            for kind2, k2 in cols:
                if kind2 == "headline":
                    cell = rows[k2].cells.get(m)
                    best = ' best' if m == rows[k2].best() else ""
                    if cell is None:
                        cells.append('<td class="num">–</td>')
                    else:
                        v, lo, hi = cell
                        ci_txt = f'<span class="ci">[{lo:.2f}, {hi:.2f}]</span>' if lo is not None and hi is not None \
                            else ""
                        cells.append(f'<td class="num{best}" title="{e(fmt_cell(cell))}">{v:.3f}{ci_txt}</td>')
                elif kind2 == "params":
                    cells.append(f'<td class="num">{_params(f["params"])}</td>')
                else:
                    cells.append(f'<td class="num">{e(str(f["released"] or ""))}</td>')
            cells.append(f"<td>{e(str(f['license'] or ''))}</td>")
            if sts:
                v = sts.get(f["name"])
                cells.append(f'<td class="num">{"" if v is None else f"{v:.3f}"}</td>')
            body.append("<tr>" + "".join(cells) + "</tr>")
        default = " default" if ci == 0 else ""
        views.append(f'<div class="view{default}" id="lb-by-{ci}"><table class="leaderboard" data-sort="{ci}">'
                     f"<thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")
    return f'<div class="views">{"".join(views)}</div>'
