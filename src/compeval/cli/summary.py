"""What ``compeval run`` prints at the end: one summary line, the ranking (per model the headline of each
suite with its 95% interval, the best marked), the failed jobs, then where the results and the report are.

``--verbose`` adds every score of every subset (the table ``compeval results DIR`` prints)."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import CompevalError
from ..runner.jobs import RunSummary
from ..runner.progress import first_line


def ranking_table(rows, models: list[str]) -> Table:
    """Headlines down, models across (a model's name is one column however many suites ran)."""
    from ..report.ranking import fmt_cell
    from ..report.tables import with_arrow

    table = Table(show_lines=False, pad_edge=False, box=None, header_style="bold")
    table.add_column("headline", no_wrap=True)
    for m in models:
        table.add_column(escape(m), overflow="fold")
    for row in rows:
        best = row.best()
        cells = []
        for m in models:
            text = escape(fmt_cell(row.cells.get(m)))
            cells.append(f"[bold green]{text} ★[/]" if m == best else text + "  ")
        label = with_arrow(escape(row.label), row.direction) + (f" [dim]({row.note})[/]" if row.note else "")
        table.add_row(label, *cells)
    return table


def print_unwrapped(out: Console, renderable) -> None:
    """A terminal wraps a table to its width; piped into a log (80 columns by default) the table is printed
    at its natural width, one line per row, instead of folding every cell."""
    if out.is_terminal:
        out.print(renderable)
        return
    width = max(out.width, out.measure(renderable, options=out.options.update_width(10_000)).maximum)
    # Console.print caps ``width`` at the console's own, hence a console as wide as the table
    Console(file=out.file, width=width, color_system=None, highlight=False).print(renderable, crop=False)


def end_of_run(summary: RunSummary, output_dir: Path, *, console: Console, out: Console, verbose: bool = False,
               report: bool = True) -> int:
    """Print the end of a run; return the exit status (1 when a job failed)."""
    done = [o for o in summary.outcomes if o.status == "done"]
    skipped = [o for o in summary.outcomes if o.status == "skipped"]
    console.print(
        f"[bold]summary[/]: {len(done)} job(s) done, {len(skipped)} skipped (already present), "
        f"{len(summary.failed)} failed in {summary.seconds:.1f}s; {summary.encoded:,} encoded, "
        f"{summary.from_cache:,} from the disk cache ({summary.unique:,} unique texts)\n"
        f"time: weights {summary.load_seconds:.1f}s, encoder {summary.encode_seconds:.1f}s, task loading "
        f"{summary.task_load_seconds:.1f}s, evaluation {sum(o.seconds for o in done):.1f}s",
        soft_wrap=True, highlight=False)
    present = [o for o in done + skipped if o.path is not None]
    if verbose and done:
        _full_table(done, output_dir, out)
    if present:
        _print_ranking(present, output_dir, out, console)
    if summary.failed:
        logged = any("traceback in " in (o.error or "") for o in summary.failed)
        where = f" (tracebacks in {output_dir}/logs)" if logged else ""
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
    return 1 if summary.failed else 0


def _print_ranking(present, output_dir: Path, out: Console, console: Console) -> None:
    from ..report.loading import ResultsIndex
    from ..report.ranking import ranked_models, ranking

    try:
        index = ResultsIndex(output_dir)
        rows = ranking(index, keep=[o.path for o in present])
    except CompevalError as exc:
        console.print(f"[yellow]warning:[/] no ranking: {escape(str(exc))}", soft_wrap=True)
        return
    if not rows:
        return
    print_unwrapped(out, ranking_table(rows, ranked_models(index, rows)))
    out.print("[dim]★ best of the row · ↑ higher is better, ↓ lower · [95% interval] · a suite mean's interval "
              "treats its tasks as independent[/]", highlight=False, soft_wrap=True)


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


def leaderboard_table(directory: Path, include_published: bool = True) -> Table:
    """``compeval results DIR --leaderboard``: columns down, computed models across (the best bold), and
    the best published figure of each row with how many were published (all of them: csv, json, markdown)."""
    from ..report.loading import ResultsIndex
    from ..report.ranking import fmt_cell
    from ..report.tables import (PUBLISHED_SUFFIX, best_rows, is_published, leaderboard_columns,
                                 leaderboard_directions, leaderboard_frame, with_arrow)

    index = ResultsIndex(directory)
    frame = leaderboard_frame(index, include_published=include_published, overall=True)
    cols = leaderboard_columns(index)
    directions = leaderboard_directions(cols)
    best = best_rows(frame, directions)
    models = [m for m in frame.index if not is_published(m)]
    published = [m for m in frame.index if is_published(m)]
    table = Table(title="leaderboard · 95% intervals · bold: best computed model", header_style="bold",
                  box=None, pad_edge=False)
    table.add_column("column", no_wrap=True)
    for m in models:
        table.add_column(escape(str(m)), no_wrap=True)
    if published:
        table.add_column("best published (of n)", overflow="fold")
    def get(model, s, t, stat):
        v = frame.loc[model, (s, t, stat)] if (s, t, stat) in frame.columns else float("nan")
        return None if v != v else float(v)

    suite = None
    for s, t in dict.fromkeys((s, t) for s, t, _ in frame.columns):
        if s != suite:
            suite = s
            table.add_row(f"[bold]{escape(s)}[/]")
        cells = []
        for m in models:
            v = get(m, s, t, "value")
            text = "–" if v is None else escape(fmt_cell((v, get(m, s, t, "ci_low"), get(m, s, t, "ci_high"))))
            cells.append(f"[bold green]{text}[/]" if best.get((s, t)) == m and v is not None else text)
        if published:
            sign = directions.get((s, t), 0)
            pub = {m: pv for m in published if (pv := get(m, s, t, "value")) is not None}
            if pub and sign:
                top = max(pub, key=lambda m: sign * pub[m])
                cells.append(f"{pub[top]:.3f} {escape(top.removesuffix(PUBLISHED_SUFFIX))} ({len(pub)})")
            else:
                cells.append("")
        table.add_row("  " + with_arrow(escape(t), directions.get((s, t), 0)), *cells)
    return table
