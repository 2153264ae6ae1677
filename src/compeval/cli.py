"""``compeval`` command line: models | tasks | run | results | report (in the style of ``mteb run``)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .errors import CompevalError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Evaluate how well text representations capture compositional meaning.")
console = Console(stderr=True)
out = Console()

DEFAULT_MODELS = ["glove-6b-50d", "glove-6b-50d,tok=sts3k", "all-MiniLM-L6-v2"]


def _table(rows: list[dict], columns: list[str], title: str | None = None) -> Table:
    table = Table(title=title, show_lines=False)
    for c in columns:
        table.add_column(c, overflow="fold")
    for r in rows:
        table.add_row(*[_fmt(r.get(c)) for c in columns])
    return table


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


@app.command()
def models(family: Optional[str] = typer.Argument(None, help="a family (e.g. sbert) to list its options")):
    """List model families, packaged models and their spec forms; with FAMILY, that family's options."""
    from .models.registry import list_models

    if family:
        from .models.options import option_rows
        from .models.registry import resolve_family

        fam = resolve_family(family)
        if fam.options is None:
            raise CompevalError(f"{fam.versioned} parses its own options: {' | '.join(fam.spec_forms)}")
        out.print(_table(option_rows(fam.options), ["option", "default", "values", "kind", "help"],
                         f"{fam.versioned}: {' | '.join(fam.spec_forms)}"))
        return
    out.print(_table(list_models(), ["name", "kind", "spec", "description"], "compeval models"))
    out.print("Every family takes ',norm=zscore|center' (center reproduces the STS3k tables) and ',name=…'; `compeval models FAMILY` lists a family's options.")


@app.command()
def tasks():
    """List tasks with their suite, data source and description."""
    from .data.registry import DataContext
    from .tasks.registry import list_tasks

    rows = list_tasks()
    try:
        ctx = DataContext(download=False)
        for r in rows:
            names = [n.strip() for n in r["data"].split(",")] if r["data"] != "generated" else []
            r["local data"] = "yes" if all(ctx.available(n) for n in names) else "no (download)"
    except CompevalError:
        pass
    out.print(_table(rows, ["name", "suite", "data", "local data", "description"], "compeval tasks"))


class RichReporter:
    def __init__(self):
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=console, transient=True)
        self.bars: dict[str, int] = {}

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        self.progress.__exit__(*exc)

    def model_start(self, name, n_jobs):
        console.print(f"[bold]{name}[/]: {n_jobs} job(s)")

    def encoding(self, name, done, total):
        if name not in self.bars:
            self.bars[name] = self.progress.add_task(f"encoding {name}", total=total)
        self.progress.update(self.bars[name], completed=done, total=total)

    def job_done(self, o):
        if o.status == "done":
            score = "" if o.main_score is None else f" main={o.main_score:.4f}"
            console.print(f"  [green]done[/] {o.model} × {o.task} ({o.n_items} items, {o.seconds:.1f}s){score}")
        elif o.status == "skipped":
            console.print(f"  [dim]skipped {o.model} × {o.task}: result exists (use --overwrite)[/]")
        else:
            from rich.markup import escape

            console.print(f"  [red]failed[/] {o.model} × {o.task}: {escape(_first_line(o.error))}", soft_wrap=True)

    def warning(self, message):
        from rich.markup import escape

        console.print(f"[yellow]warning:[/] {escape(message)}", soft_wrap=True)


def _first_line(text) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0] if lines else "(no message)"


def _default_tasks(data_dir: Optional[Path]) -> list[str]:
    """Generated suites plus every data-backed task whose data is already on disk."""
    from .data.registry import DataContext
    from .tasks.registry import TASKS, discover

    discover()
    ctx = DataContext(data_dir, download=False)
    chosen, skipped, slow, unmet = [], [], [], []
    for name, cls in sorted(TASKS.items()):
        sources = cls.metadata.data_sources
        if not cls.default_run:
            slow.append(name)
        elif sources and not all(ctx.available(s) for s in sources):
            skipped.append(name)
        elif (need := cls().missing_requirements()):
            unmet.append(f"{name} ({need})")
        else:
            chosen.append(name)
    if skipped:
        console.print(f"[dim]no local data for: {', '.join(skipped)} (name them with --task to download, "
                      "or give --data-dir)[/]")
    if slow:
        console.print(f"[dim]not in the default run (they train many models): {', '.join(slow)}[/]")
    if unmet:
        console.print(f"[dim]skipped: {'; '.join(unmet)}[/]")
    return chosen


@app.command()
def run(
    model: List[str] = typer.Option(None, "--model", "-m", help="model spec (repeatable); see `compeval models`"),
    task: List[str] = typer.Option(None, "--task", "-t", help="task or suite name (repeatable); see `compeval tasks`"),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", "-o", help="results folder"),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="local data folder (else $COMPEVAL_DATA_DIR, else download)"),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="embedding cache (else $COMPEVAL_CACHE_DIR or ~/.cache/compeval)"),
    no_cache: bool = typer.Option(False, "--no-cache", help="keep embeddings in memory only"),
    overwrite: bool = typer.Option(False, "--overwrite", help="recompute and replace existing results"),
    seed: int = typer.Option(0, "--seed", help="seed for bootstrap resampling, generators and classifiers"),
    bnc_dir: Optional[Path] = typer.Option(None, "--bnc-dir", help="British National Corpus XML folder (lexcomp VPC/LVC); else $COMPEVAL_BNC_DIR"),
    device: str = typer.Option("auto", "--device", help="torch device for models and trained heads: auto (cuda, then mps, then cpu) | cpu | cuda | cuda:N | mps; not part of any id"),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="texts per model batch (else each family's default); not part of any id"),
    executor: str = typer.Option("local", "--executor", help="local (in process) | ray (each model × task job a Ray task)"),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Ray cluster to join (auto | HOST:PORT); else start a local one"),
    cpus_per_job: float = typer.Option(1.0, "--cpus-per-job", help="Ray: CPUs each job reserves"),
    ray_retries: int = typer.Option(2, "--ray-retries", help="Ray: retries of a job whose worker died or hit a transient error"),
    api_slots: int = typer.Option(1, "--api-slots", help="Ray, local cluster: API-model jobs allowed at once (the 'api' resource)"),
    allow_modified_data: bool = typer.Option(False, "--allow-modified-data",
                                             help="use local data files whose SHA-256 differs from the registry's "
                                                  "pin (recorded in each result); else such files are an error"),
):
    """Run every model on every task; without --model/--task, run the defaults on what is available."""
    from .runner import run as run_grid
    from .runner.executors import make_executor

    ray_options = dict(address=ray_address, cpus_per_job=cpus_per_job, max_retries=ray_retries, api_slots=api_slots)
    if executor != "ray" and (ray_address is not None or cpus_per_job != 1.0 or ray_retries != 2 or api_slots != 1):
        raise CompevalError("--ray-address, --cpus-per-job, --ray-retries and --api-slots need --executor ray")
    runner_executor = make_executor(executor, **(ray_options if executor == "ray" else {}))
    models_ = list(model) if model else DEFAULT_MODELS
    tasks_ = list(task) if task else _default_tasks(data_dir)
    cache = None if no_cache else (cache_dir or "default")
    with RichReporter() as reporter:
        summary = run_grid(models_, tasks_, output_dir, data_dir=data_dir, overwrite=overwrite, cache_dir=cache,
                           seed=seed, reporter=reporter, executor=runner_executor, device=device,
                           batch_size=batch_size, bnc_dir=bnc_dir,
                           allow_modified_data=allow_modified_data)
    done = [o for o in summary.outcomes if o.status == "done"]
    skipped = [o for o in summary.outcomes if o.status == "skipped"]
    console.print(
        f"[bold]summary[/]: {len(done)} job(s) done, {len(skipped)} skipped (already present), "
        f"{len(summary.failed)} failed; {summary.items} items scored in {summary.seconds:.1f}s\n"
        f"texts: {summary.requested} requested, {summary.unique} unique, {summary.encoded} encoded, "
        f"{summary.from_cache} served from the disk cache\n"
        f"time: weights {summary.load_seconds:.1f}s, task loading {summary.task_load_seconds:.1f}s, "
        f"encoder {summary.encode_seconds:.1f}s, evaluation {sum(o.seconds for o in done):.1f}s\n"
        f"results in {output_dir} ({summary.executor} executor)"
    )
    if done:
        from .results.store import ResultStore, result_rows

        store = ResultStore(output_dir)
        rows = []
        for o in done:
            r = store.load(o.path)
            rows += [x for x in result_rows(r) if x["metric"] == r.task.main_metric]
        out.print(_table(rows, ["model", "task", "subset", "metric", "value", "ci_low", "ci_high", "n"]))
    if summary.failed:
        from rich.markup import escape

        console.print(f"[red bold]{len(summary.failed)} job(s) failed:[/]", soft_wrap=True)
        for o in summary.failed:
            console.print(f"  [red]✗[/] {escape(o.model)} × {escape(o.task)}: {escape(_first_line(o.error))}",
                          soft_wrap=True)
        raise typer.Exit(1)


@app.command()
def results(
    directory: Path = typer.Argument(..., help="a results folder written by `compeval run`"),
    format: str = typer.Option("table", "--format", "-f", help="table | csv | json | markdown | latex"),
    leaderboard: bool = typer.Option(False, "--leaderboard", help="models × tasks main scores with 95% intervals "
                                     "and published reference rows (markdown, csv or latex)"),
):
    """Flatten a results folder into rows: model, task, subset, metric, value, ci_low, ci_high, n."""
    from .results.store import ROW_COLUMNS, results_frame

    if leaderboard:
        from .report.tables import leaderboard_text

        sys.stdout.write(leaderboard_text(directory, "markdown" if format == "table" else format))
        return
    unreadable: list = []
    df = results_frame(directory, unreadable)
    if unreadable:
        from rich.markup import escape

        console.print(f"[yellow]warning:[/] ignored {len(unreadable)} file(s) that are not readable results:",
                      soft_wrap=True)
        for path, reason in unreadable:
            console.print(f"  {escape(str(path))}: {escape(reason)}", soft_wrap=True)
    if format == "latex":
        from .report.tables import rows_latex

        sys.stdout.write(rows_latex(df))
    elif format == "table":
        out.print(_table(df.to_dict("records"), ROW_COLUMNS))
    elif format == "csv":
        sys.stdout.write(df.to_csv(index=False))
    elif format == "json":
        sys.stdout.write(json.dumps(df.astype(object).where(df.notna(), None).to_dict("records"), indent=1) + "\n")
    elif format == "markdown":
        sys.stdout.write(_markdown(df) + "\n")
    else:
        raise CompevalError(f"unknown format {format!r}; choose table, csv, json, markdown or latex")


@app.command()
def report(
    directory: Path = typer.Argument(..., help="a results folder written by `compeval run`"),
    output: Path = typer.Option(Path("report.html"), "--output", "-o", help="the HTML file to write"),
    figures: Optional[Path] = typer.Option(None, "--figures", help="also write every figure into this folder"),
    figure_format: str = typer.Option("svg", "--format", help="file format of --figures: png | svg"),
    resamples: int = typer.Option(1000, "--resamples", help="bootstrap resamples and permutations of the paired tests"),
    seed: int = typer.Option(0, "--seed", help="seed of the paired tests"),
):
    """Write one self-contained HTML report: leaderboard, the papers' figures, paired tests, provenance."""
    from .report import build_report

    info = build_report(directory, output, figures_dir=figures, figure_format=figure_format,
                        n_resamples=resamples, n_permutations=resamples, seed=seed)
    for w in info.warnings:
        console.print(f"[yellow]warning:[/] {w}")
    console.print(f"report: {info.path} ({info.size_bytes / 1e6:.2f} MB, {len(info.figures)} figures, "
                  f"{info.paired} paired tests) in {info.seconds:.1f}s")
    if info.figure_files:
        console.print(f"figures: {len(info.figure_files)} {figure_format} files in {figures}")


def _markdown(df) -> str:
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v) if v == v else "" for v in row) + " |")
    return "\n".join(lines)


def main() -> None:
    """Exit status: 0 all done, 1 some job failed (the failed jobs are listed last), 2 an error stopped
    the run before or between jobs (one line, no traceback), 130 interrupted."""
    import sqlite3

    import click
    from rich.markup import escape

    import warnings

    from .errors import CompevalWarning

    default_show = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, CompevalWarning):
            console.print(f"[yellow]warning:[/] {escape(str(message))}", soft_wrap=True)
        else:
            default_show(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    try:
        # Without standalone mode click returns the status of typer.Exit instead of exiting with it.
        status = app(standalone_mode=False)
    except CompevalError as exc:
        # escape: messages hold pip extras such as compeval[ray]; soft_wrap: one line, whatever the width
        console.print(f"[red]error:[/] {escape(str(exc))}", soft_wrap=True)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # usage errors
        exc.show()
        sys.exit(exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        console.print("[red]interrupted[/]; finished results are kept and a re-run does only the rest")
        sys.exit(130)
    except (OSError, sqlite3.OperationalError) as exc:  # disk full, read-only or vanished folders
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        console.print(f"[red]error:[/] {escape(str(getattr(exc, 'strerror', None) or exc))}{where}", soft_wrap=True)
        sys.exit(2)
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()
