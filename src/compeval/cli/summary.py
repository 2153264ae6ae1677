"""What ``compeval run`` prints at the end: a summary line, the ranking (each suite's headline with its 95%
interval, the best marked), the failed jobs, and where the results and report are."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import CompevalError
from ..runner.jobs import RunSummary
from ..results.not_run import NotRun, grouped, summary_line
from ..runner.progress import first_line
from ..runner.session import LOG_FOLDER


def ranking_table(rows, models: list[str], width: int = 80, wide: bool = False) -> list:
    """Headlines down, models across, fitted to ``width`` (``cli/tables.py``): a model's name is never cut,
    and models that do not fit beside the headlines go to a second table."""
    from ..report.ranking import fmt_cell
    from ..report.tables import with_arrow
    from .tables import Col, fitted_tables

    references = {m for r in rows for m in r.references}
    columns = [Col("headline", key=True), Col("chance", key=True, whole=True)] + \
        [Col(f"{m} (ref)" if m in references else m, whole=True) for m in models]

    def fmt(cell) -> str:  # fitted: the value above its interval, neither broken; wide: one line
        text = fmt_cell(cell)
        return text if wide else text.replace(" [", "\n[", 1)

    body = []
    for row in rows:
        best = row.best()
        ref = row.reference()
        cells = []
        for m in models:
            text = fmt(row.cells.get(m))
            cells.append((text + " ★", "bold green") if m == best else text)
        label = with_arrow(row.label, row.direction) + (f" ({row.note})" if row.note else "")
        body.append([label, "–" if ref is None else fmt(ref[1]), *cells])
    return fitted_tables(columns, body, width, wide=wide)


def ranking_notes(rows) -> list[str]:
    """The lines under the ranking: what ★ means against chance, each caveat, each interval not shown."""
    lines = ["★ best of the row among models whose 95% interval clears chance (random vectors' score where "
             "they ran, else the metric's chance level); (ref): a trivial reference, never ★ · ↑ higher is "
             "better, ↓ lower · a suite mean's interval treats its tasks as independent"]
    if any(row.reference() is None for row in rows):
        lines.append("chance –: no chance level is known for the row, so none of its models is ★")
    for row in rows:
        if row.caveat:
            lines.append(f"note: {row.label}: {row.caveat}")
        for m, why in row.na.items():
            lines.append(f"note: {row.label}, {m}: {why}")
    return lines


def end_of_run(summary: RunSummary, output_dir: Path, *, console: Console, out: Console, verbose: bool = False,
               report: bool = True, not_run: list[NotRun] = (), wide: bool = False) -> int:
    """Print the end of a run; return the exit status (1 when a job failed). ``not_run``: the tasks left
    out, counted by reason and listed under the ranking; failed jobs' lines are printed here only."""
    done = [o for o in summary.outcomes if o.status == "done"]
    skipped = [o for o in summary.outcomes if o.status == "skipped"]
    left_out = summary_line(not_run)
    job_seconds = sum(o.seconds for o in done)
    console.print(
        f"[bold]summary[/]: {len(done)} job(s) done, {len(skipped)} skipped (already present), "
        f"{len(summary.failed)} failed, {sum(len(v) for v in grouped(not_run).values())} task(s) not run "
        f"in {summary.seconds:.1f}s; {summary.encoded:,} encoded, "
        f"{summary.from_cache:,} from the disk cache ({summary.unique:,} unique texts)\n"
        f"time: weights {summary.load_seconds:.1f}s, encoder {summary.encode_seconds:.1f}s, task loading "
        f"{summary.task_load_seconds:.1f}s, evaluation {summary.evaluate_seconds:.1f}s"
        + (f" (jobs' own seconds {job_seconds:.1f}s: their heads overlapped)"
           if job_seconds > summary.evaluate_seconds * 1.05 else ""),
        soft_wrap=True, highlight=False)
    if left_out:
        console.print(f"[yellow]{escape(left_out)}[/]", soft_wrap=True, highlight=False)
    present = [o for o in done + skipped if o.path is not None]
    if verbose and done:
        _full_table(done, output_dir, out)
    disowned = _print_ranking(present, output_dir, out, console, wide) if present else []
    if not_run and present:
        for reason, tasks in grouped(not_run).items():
            out.print(f"[dim]not run, {escape(reason)}: {escape(', '.join(tasks))}[/]", highlight=False,
                      soft_wrap=True)
    if summary.failed:
        logs = Path(output_dir) / LOG_FOLDER
        where = f" (logs in {logs})" if logs.is_dir() else ""
        console.print(f"[red bold]{len(summary.failed)} job(s) failed[/]{where}:",
                      soft_wrap=True, highlight=False)
        for o in summary.failed:
            console.print(f"  [red]✗[/] {escape(o.model)} × {escape(o.task)}: {escape(first_line(o.error))}",
                          soft_wrap=True)
    console.print(f"results: {escape(str(output_dir))}/  (all scores: compeval results {escape(str(output_dir))})",
                  highlight=False, soft_wrap=True)
    if report and present:
        _write_report(output_dir, console)
    elif present:
        console.print(f"report: not written (--no-report); compeval report {escape(str(output_dir))}",
                      highlight=False, soft_wrap=True)
    return 1 if summary.failed or disowned else 0


def _print_ranking(present, output_dir: Path, out: Console, console: Console, wide: bool = False) -> list:
    """The ranking of this run's results; returns those of them its readers do not take (each said in a
    line: the run then exits 1, never 0 with a result missing from its own ranking)."""
    from ..report.loading import ResultsIndex
    from ..report.ranking import ranked_models, ranking

    rows, unreadable = [], []
    try:
        index = ResultsIndex(output_dir)
        unreadable = index.unreadable
        rows = ranking(index, keep=[o.path for o in present])
    except CompevalError as exc:
        console.print(f"[yellow]warning:[/] no ranking: {escape(str(exc))}", soft_wrap=True)
        if not unreadable:  # the folder held nothing readable: which of this run's results, and why
            from ..results.store import ResultStore
            from ..tasks.registry import result_slug

            store = ResultStore(output_dir, result_slug)
            list(store.iter_results())
            unreadable = store.unreadable
    mine = {Path(o.path).resolve() for o in present}
    disowned = [(path, why) for path, why in unreadable if Path(path).resolve() in mine]
    for path, why in disowned:
        console.print(f"[red]error:[/] {escape(str(path))}, written by this run, is left out of its ranking: "
                      f"{escape(why)}", soft_wrap=True)
    if not rows:
        return disowned
    from .tables import print_tables

    # fitted to the terminal, 80 columns in a pipe or a log; --wide keeps each row on one line
    print_tables(out, ranking_table(rows, ranked_models(index, rows), out.width, wide=wide))
    import textwrap

    for note in ranking_notes(rows):
        for line in [note] if wide else textwrap.wrap(note, out.width, break_long_words=False,
                                                      break_on_hyphens=False):
            out.print(f"[dim]{escape(line)}[/]", highlight=False, soft_wrap=True)
    return disowned


def _full_table(done, output_dir: Path, out: Console) -> None:
    from ..results.store import ResultStore, result_rows

    store = ResultStore(output_dir)
    table = Table(title="every score of the main metric, per subset")
    columns = ["model", "task", "subset", "metric", "value", "ci_low", "ci_high", "n"]
    for c in columns:
        table.add_column(c, overflow="fold")
    for o in done:
        r = store.load(o.path)
        for x in result_rows(r):
            if x["metric"] == r.task.main_metric:
                table.add_row(*["" if x[c] is None else f"{x[c]:.4f}" if isinstance(x[c], float) else str(x[c])
                                for c in columns])
    out.print(table)


def _write_report(output_dir: Path, console: Console) -> None:
    """The HTML report next to the results; a failure to build it is a warning, the results stand."""
    from ..report import build_report

    path = Path(output_dir) / "report.html"
    try:
        info = build_report(output_dir, path)
    except Exception as exc:  # the run's results are written; the report can be rebuilt with `compeval report`
        console.print(f"[yellow]warning:[/] report not written: {escape(first_line(exc))}; "
                      f"try compeval report {escape(str(output_dir))}", soft_wrap=True)
        return
    console.print(f"report: {escape(str(info.path))}  ({info.size_bytes / 1e6:.2f} MB, built in {info.seconds:.1f}s)",
                  highlight=False, soft_wrap=True)
    for problem in info.errors:
        console.print(f"[yellow]warning:[/] report: {escape(problem)}", soft_wrap=True)


def leaderboard_table(directory: Path, include_published: bool = True, width: int = 80, wide: bool = False) -> list:
    """``compeval results DIR --leaderboard``: columns down, computed models across (the best bold), and
    the best published figure of each row with how many were published (all of them: csv, json, markdown);
    fitted to ``width`` like the ranking (``cli/tables.py``)."""
    from ..report.loading import ResultsIndex
    from ..report.ranking import fmt_cell
    from ..report.tables import (PUBLISHED_SUFFIX, best_rows, is_published, leaderboard_columns,
                                 leaderboard_directions, leaderboard_frame, with_arrow)
    from .tables import Col, fitted_tables

    index = directory if isinstance(directory, ResultsIndex) else ResultsIndex(directory)
    frame = leaderboard_frame(index, include_published=include_published, overall=True)
    cols = leaderboard_columns(index)
    directions = leaderboard_directions(cols)
    best = best_rows(frame, directions, index)
    models = [m for m in frame.index if not is_published(m)]
    published = [m for m in frame.index if is_published(m)]
    columns = [Col("column", key=True)] + [Col(str(m)) for m in models]
    if published:
        columns.append(Col("best published (of n)"))

    def get(model, s, t, stat):
        v = frame.loc[model, (s, t, stat)] if (s, t, stat) in frame.columns else float("nan")
        return None if v != v else float(v)

    body = []
    suite = None
    for s, t in dict.fromkeys((s, t) for s, t, _ in frame.columns):
        if s != suite:
            suite = s
            body.append([(s, "bold")] + [""] * (len(columns) - 1))
        cells = []
        for m in models:
            v = get(m, s, t, "value")
            text = "–" if v is None else fmt_cell((v, get(m, s, t, "ci_low"), get(m, s, t, "ci_high")))
            cells.append((text, "bold green") if best.get((s, t)) == m and v is not None else text)
        if published:
            sign = directions.get((s, t), 0)
            pub = {m: pv for m in published if (pv := get(m, s, t, "value")) is not None}
            if pub and sign:
                top = max(pub, key=lambda m: sign * pub[m])
                cells.append(f"{pub[top]:.3f} {top.removesuffix(PUBLISHED_SUFFIX)} ({len(pub)})")
            else:
                cells.append("")
        body.append(["  " + with_arrow(t, directions.get((s, t), 0)), *cells])
    return fitted_tables(columns, body, width, wide=wide,
                         title="leaderboard · 95% intervals · bold: best computed model whose interval clears chance")
