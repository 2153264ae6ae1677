"""``compeval`` command line (in the style of ``mteb run``): models | tasks | run | results | report | export |
verify | cite | download | data (the last two in ``cli/data.py``)."""
from __future__ import annotations

import json
import sys
import typing
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from rich.console import Console

from .. import __version__
from ..errors import CompevalError
from ..redact import redact
from . import data as data_cli
from . import usage

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="Evaluate how well text representations capture compositional meaning.")


class _Terminal(Console):
    """At least ``MIN_COLUMNS`` wide: at rich's COLUMNS=0 printed lines vanish and textwrap refuses to wrap."""

    MIN_COLUMNS = 20

    @property
    def size(self):
        from rich.console import ConsoleDimensions

        width, height = Console.size.fget(self)
        return ConsoleDimensions(max(width, self.MIN_COLUMNS), height)

    @size.setter
    def size(self, value) -> None:
        Console.size.fset(self, value)


console = _Terminal(stderr=True)
out = _Terminal()

def _version(value: bool) -> None:
    if value:
        out.print(f"compeval {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True,
                                       help="print the version and exit")):
    """Evaluate how well text representations capture compositional meaning."""


DEFAULT_MODELS = ["glove-6b-50d", "glove-6b-50d,tok=sts3k", "all-MiniLM-L6-v2"]
#: ``compeval run``'s results folder; ``--quick`` writes its reduced-size results into their own, so that they never
#: sit beside full-size results on a ranking, leaderboard or mean rank.
DEFAULT_OUTPUT, QUICK_OUTPUT = Path("results"), Path("results-quick")


def _fitted(rows: list[dict], columns: list[str], title: str | None, wide: bool) -> None:
    """A listing fitted to the terminal, its first column repeated if it must be split (``cli/tables.py``)."""
    from rich.text import Text

    from .tables import Col, fitted_tables, print_tables

    if title is not None:
        out.print(Text(title, style="bold"), soft_wrap=True)
    cols = [Col(c, key=(k == 0)) for k, c in enumerate(columns)]
    print_tables(out, fitted_tables(cols, [[_fmt(r.get(c)) for c in columns] for r in rows], out.width, wide=wide))


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


@app.command()
def models(family: Optional[str] = typer.Argument(None, help="a family (e.g. sbert) to list its options, or a "
                                                  "packaged model (e.g. all-MiniLM-L6-v2): its spec, folder, options"),
           from_: Optional[str] = typer.Option(None, "--from", help="list what a model list selects: "
                                               "mteb:KEY=VALUE,… (e.g. mteb:lang=eng,max_params=8e9) or compeval:sweep"),
           wide: bool = typer.Option(False, "--wide", help="every column at its natural width, one line per row "
                                     "(else the table fits the terminal, 80 columns in a pipe)")):
    """List model families, packaged models and their spec forms; with FAMILY, that family's options."""
    from ..models.registry import list_models

    if from_:
        from .sweep import list_from

        return list_from(from_, out)

    if family:
        from ..models.registry import ALIASES, resolve_family

        if family in ALIASES:
            return _packaged_model(ALIASES[family], wide)
        fam = resolve_family(family)
        _fitted(fam.options.rows(), ["option", "default", "values", "kind", "help"],
                f"{fam.versioned}: {' | '.join(fam.spec_forms)}", wide)
        return
    _fitted(list_models(), ["name", "kind", "spec", "description"], "compeval models", wide)
    out.print("Every family takes ',name=…'; `compeval models FAMILY` lists a family's options. Normalisation is a task option: --task sts3k,norm=center|zscore.")


def _packaged_model(alias, wide: bool) -> None:
    """``compeval models NAME`` for a short name: what it runs, where its files are, its family's options."""
    from rich.text import Text

    from ..models.registry import resolve_family
    from ..specs import parse_spec

    import textwrap

    def say(text: str) -> None:  # wrapped under its own indent; a path is never broken
        for line in textwrap.wrap(text, width=max(out.width, 40), initial_indent="  ", subsequent_indent="    ",
                                  break_long_words=False, break_on_hyphens=False):
            out.print(line, highlight=False, soft_wrap=True)

    fam = resolve_family(parse_spec(alias.target).name)
    out.print(Text(alias.name, style="bold"), soft_wrap=True)
    say(alias.description)
    say(f"spec: {alias.target} (family {fam.versioned})")
    if alias.folder is not None:
        try:
            folder = str(alias.folder())
        except ImportError as exc:
            folder = f"not installed (pip install {exc})"
        out.print(f"  folder: {folder}", highlight=False, soft_wrap=True)  # one line, to copy whole
    if alias.own:
        say(f"your own version: {alias.own}")
    _fitted(fam.options.rows(), ["option", "default", "values", "kind", "help"],
            f"{fam.versioned} options: --model {alias.name},OPTION=VALUE", wide)


TASKS_WIDTH = 100


@app.command()
def tasks(name: Optional[str] = typer.Argument(None, help="a task (e.g. sts3k) or suite to list its options, or a "
                                               "task kind on your own data (pairs, triplets, probe, modifiers)"),
          format: str = typer.Option("text", "--format", "-f", help="text (one line per task) | json"),
          path: Optional[Path] = typer.Option(None, "--path", help="list the task files (*.toml) of this folder "
                                              "instead: tasks on your own data (docs/user-tasks.md)"),
          wide: bool = typer.Option(False, "--wide", help="with NAME: every column at its natural width")):
    """List tasks, one line each, grouped by suite: name, local data, what the task asks; with NAME, the
    options of that task (or of each task of that suite): type and range, default, description."""
    from ..data.registry import DataContext
    from ..tasks.registry import list_tasks

    if format not in ("text", "json"):
        raise CompevalError(f"unknown format {format!r}; choose text or json")
    if name is not None:
        return _task_options(name, format, wide)
    if path is not None:
        from ..tasks.user.listing import declared_rows

        return _listing(declared_rows(path), format, footer=False)
    rows = list_tasks()
    try:
        ctx = DataContext(download=False)
        for r in rows:
            names = [n.strip() for n in r["data"].split(",")] if r["data"] != "generated" else []
            r["local"] = all(ctx.available(n) for n in names)
    except CompevalError:
        for r in rows:
            r["local"] = r["data"] == "generated"
    _listing(rows, format)


def _listing(rows: list[dict], format: str, footer: bool = True) -> None:
    """``compeval tasks`` rows as JSON, or one line each (a folder's task files: without the footer)."""
    if format == "json":
        return _json(rows)
    lines = task_lines(rows)
    sys.stdout.write("\n".join(lines if footer else lines[:-3]) + "\n")


def _json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=1) + "\n")


def _options_table(title: str, description: str, rows: list[dict], wide: bool) -> None:
    """A task's (or task kind's) name, description and options, fitted to the terminal."""
    from rich.text import Text

    out.print(Text(title, style="bold"))
    out.print(" ".join(description.split()), highlight=False)  # wrapped at the terminal's width
    if not rows:
        return out.print("no options", highlight=False)
    _fitted(rows, ["option", "default", "values", "help"], None, wide)


def _task_options(name: str, format: str, wide: bool) -> None:
    """``compeval tasks NAME``: the task's options as ``compeval models FAMILY`` lists a family's."""
    from ..tasks.registry import SPEC_KINDS as KINDS, TASKS, get_tasks, suites

    if name in KINDS and name not in TASKS and name not in suites():
        return _kind_options(KINDS[name], format, wide)
    if name not in TASKS and name not in suites():
        get_tasks(name)  # the registry's one-line error for an unknown name (with its did-you-mean)
        raise CompevalError(f"{name!r} is not a task or suite name; `compeval tasks` lists them")
    names = [name] if name in TASKS else suites()[name]
    if format == "json":
        return _json({n: {"suite": TASKS[n].metadata.suite, "description": TASKS[n].metadata.description,
                          "options": TASKS[n].Options.rows()} for n in names})
    for k, n in enumerate(names):
        if k:
            out.print()
        _options_table(f"{n} ({TASKS[n].metadata.suite})", TASKS[n].metadata.description, TASKS[n].Options.rows(),
                       wide)
    example = next((r for r in TASKS[names[0]].Options.rows()), None)
    hint = f" (e.g. --task {names[0]},{example['option'].split(' ')[0]}={example['default'] or 'VALUE'})" if example \
        else ""
    out.print(f"Give options after the task name, comma-separated{hint}; they are part of each result's name.",
              highlight=False)
    if name in KINDS:  # `modifiers`: a suite and a task kind on your own data
        out.print()
        _kind_options(KINDS[name], format, wide)


def _kind_options(cls, format: str, wide: bool) -> None:
    """``compeval tasks pairs`` (or triplets, probe, modifiers): a user task kind's columns and method options,
    listed as a built-in task's options are, and how to declare a task of that kind."""
    from ..tasks.user.base import DESCRIBING

    rows = cls.Options.rows()
    declare = (f"--task {cls.kind}:FILE[,OPTION=VALUE…] (FILE: .csv, .tsv or .jsonl, or hf-dataset:ORG/NAME@REV"
               f"[,split=…]; {', '.join(f'{k}=…' for k in DESCRIBING)} describe it), or a TOML file with "
               f"kind = \"{cls.kind}\" (docs/user-tasks.md)")
    if format == "json":
        return _json({cls.kind: {"suite": cls.metadata.suite, "description": cls.metadata.description,
                                 "declare": declare, "options": rows}})
    _options_table(f"{cls.kind} (a task kind on your own data)", cls.metadata.description, rows, wide)
    out.print(f"The options whose help says 'column' name your file's columns. Declare a task as {declare}.",
              highlight=False)


def task_lines(rows: list[dict], width: int = TASKS_WIDTH) -> list[str]:
    """Suite headers, then one line per task that never exceeds ``width`` (descriptions are cut with …)."""
    name_w = max(len(r["name"]) for r in rows)
    lines, suite = [], None
    for r in rows:
        if r["suite"] != suite:
            suite = r["suite"]
            n = sum(x["suite"] == suite for x in rows)
            lines.append(("" if not lines else "\n") + f"{suite} ({n} task{'s' * (n != 1)})")
        mark = " " if r["local"] else "↓"
        head = f"  {r['name']:<{name_w}} {mark} "
        room = width - len(head)
        text = " ".join(str(r["description"]).split())
        lines.append(head + (text if len(text) <= room else text[: room - 1].rstrip() + "…"))
    lines += ["", "↓ data not on this machine: downloaded on first use (or give --data-dir)",
              "full descriptions: `compeval tasks --format json`"]
    return lines


SETTING: Any = object()  # where `run` lists a run setting's option; declared on compeval.context.RunContext


def settings_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The command's ``= SETTING`` parameters, and after its options every run setting it does not place,
    become options as ``RunContext`` declares them (flag, type, default, help); the command receives their
    values as ``settings``."""
    import functools
    import inspect

    from ..context import RunContext

    hints, declared = typing.get_type_hints(RunContext), RunContext.settings()

    def option(name: str) -> inspect.Parameter:
        meta = declared[name].metadata
        default = not declared[name].default if meta["negate"] else declared[name].default
        flags = [meta["flag"]] + ([meta["short"]] if meta["short"] else [])
        kind = bool if meta["negate"] else hints[name]
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind,
                                 default=typer.Option(default, *flags, help=meta["help"]))

    own = inspect.signature(command, eval_str=True).parameters
    params = [option(n) if p.default is SETTING else p.replace(kind=p.KEYWORD_ONLY) for n, p in own.items()
              if n != "settings"]
    params += [option(n) for n, f in declared.items() if n not in own and f.metadata["flag"]]

    @functools.wraps(command)
    def with_settings(**given: Any) -> Any:
        settings = {n: given.pop(n) for n in declared if n in given}
        settings.update({n: not settings[n] for n in settings if declared[n].metadata["negate"]})
        return command(**given, settings=settings)

    with_settings.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return with_settings


@app.command()
@settings_options
def run(
    model: List[str] = typer.Option(None, "--model", "-m", help="model spec (repeatable); see `compeval models`"),
    models_list: List[str] = typer.Option(None, "--models", help="a model list (repeatable): mteb:KEY=VALUE,… "
                                          "(mteb's registry, offline), compeval:sweep (the pinned sweep), or a spec"),
    models_file: Optional[Path] = typer.Option(None, "--models-file", help="model specs, one per line, # comments"),
    task: List[str] = typer.Option(None, "--task", "-t", help="task or suite name (repeatable); see `compeval tasks`"),
    output_dir=SETTING, data_dir=SETTING, download=SETTING,
    data_mirror: Optional[str] = typer.Option(None, "--data-mirror", help=data_cli.DATA_MIRROR_HELP),
    cache_dir=SETTING,
    no_cache: bool = typer.Option(False, "--no-cache", help="keep embeddings in memory only"),
    overwrite=SETTING, seed=SETTING, bnc_dir=SETTING, device=SETTING, batch_size=SETTING,
    executor: str = typer.Option("local", "--executor", help="local (in process) | ray (each model × task job a Ray task)"),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Ray cluster to join (auto | HOST:PORT); else start a local one"),
    cpus_per_job: float = typer.Option(1.0, "--cpus-per-job", help="Ray: CPUs each job reserves"),
    ray_retries: int = typer.Option(2, "--ray-retries", help="Ray: retries of a job whose worker died or hit a transient error"),
    api_slots: int = typer.Option(1, "--api-slots", help="Ray, local cluster: API-model jobs allowed at once (the 'api' resource)"),
    allow_modified_data=SETTING, reuse_stale=SETTING, isolate=SETTING, model_timeout=SETTING, max_batch_tokens=SETTING,
    plan: bool = typer.Option(False, "--plan", help="print texts, tokens, parameters, FLOPs and estimated "
                              "minutes per model, without loading weights, and exit"),
    plan_device: Optional[str] = typer.Option(None, "--plan-device", help="device kind of --plan's minutes: "
                                              "h100 | h200 | a100 | l4 | t4 | cpu-2core (default: the kind of "
                                              "the device the run would use, cpu-2core on a CPU)"),
    quick: bool = typer.Option(False, "--quick", help="one task per suite at reduced sizes (about 2 minutes "
                               "on a 2-core CPU with the default models), instead of the default tasks, into "
                               "results-quick unless -o is given"),
    no_report: bool = typer.Option(False, "--no-report", help="do not write OUTPUT/report.html after the run"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="a line per job and every score of every "
                                 "subset at the end, instead of the ranking"),
    wide: bool = typer.Option(False, "--wide", help="the ranking and --plan with every column at its natural "
                              "width, one line per row (else they fit the terminal, 80 columns in a pipe)"),
    settings: dict = SETTING,
):
    """Run every model on every task; without --model/--task, the default models on every default task (data
    downloaded as needed; without network, tasks whose data is not on disk are skipped)."""
    from ..context import RunContext
    from ..runner import run as run_grid
    from ..runner.executors import make_executor

    output_dir = settings.pop("output_dir") or (QUICK_OUTPUT if quick else DEFAULT_OUTPUT)
    cache_dir = settings.pop("cache_dir")
    if no_cache and cache_dir is not None:
        raise CompevalError("--no-cache and --cache-dir contradict each other; give one of them")
    ctx = RunContext.for_run(output_dir, cache_dir=None if no_cache else cache_dir or "default", flags=True, **settings)
    ray_options = dict(address=ray_address, cpus_per_job=cpus_per_job, max_retries=ray_retries, api_slots=api_slots)
    if executor != "ray" and (ray_address is not None or cpus_per_job != 1.0 or ray_retries != 2 or api_slots != 1):
        raise CompevalError("--ray-address, --cpus-per-job, --ray-retries and --api-slots need --executor ray")
    runner_executor = make_executor(executor, **(ray_options if executor == "ray" else {}))
    from .sweep import model_specs, print_plan

    models_ = model_specs(model, models_list, models_file) or DEFAULT_MODELS
    data_dir = settings["data_dir"]
    run_data = data_cli.prepare_run(models_, task, data_dir, offline=not ctx.download, mirror=data_mirror,
                                    console=console, allow_modified=ctx.allow_modified_data, quick=quick, plan=plan)
    tasks_ = run_data.tasks
    if plan:
        for spec, why in run_data.failed:  # named tasks without their data: left out of the counts, said so
            console.print(f"[yellow]not counted[/] {spec}: {why}", soft_wrap=True, highlight=False)
        return print_plan(run_data.models, tasks_, data_dir, plan_device, run_device=ctx.device, out=out, wide=wide)
    from ..runner.progress import RichReporter

    with RichReporter(console, verbose=verbose, failures_at_end=True) as reporter:
        # end_of_run writes the report, with its messages
        summary = run_grid(run_data.models, tasks_, ctx, executor=runner_executor, reporter=reporter, report=False)
    data_cli.add_failures(summary, models_, run_data.failed, output_dir)
    if not task:  # a default run records what it left out (the report lists it); a named run keeps the record
        from ..results.not_run import write_not_run

        write_not_run(output_dir, run_data.not_run)
    from .summary import end_of_run

    status = end_of_run(summary, output_dir, console=console, out=out, verbose=verbose, report=not no_report,
                        not_run=run_data.not_run, wide=wide)
    if status:
        raise typer.Exit(status)


@app.command()
def results(
    directory: Path = typer.Argument(..., help="a results folder written by `compeval run`"),
    format: str = typer.Option("table", "--format", "-f", help="table | csv | json | markdown | latex"),
    leaderboard: bool = typer.Option(False, "--leaderboard", help="models × tasks main scores (STS3k: adversarial "
                                     "Spearman and the non−adv gap) with 95% intervals, a mean rank, and "
                                     "published reference rows"),
    no_published: bool = typer.Option(False, "--no-published", help="--leaderboard without published rows"),
    wide: bool = typer.Option(False, "--wide", help="table: every column at its natural width, one line per "
                              "row (else the table fits the terminal, 80 columns in a pipe)"),
):
    """Every score of a results folder as rows, or the leaderboard (csv and json hold numbers)."""
    from ..results.store import ROW_COLUMNS, results_frame

    if format not in ("table", "csv", "json", "markdown", "latex"):
        raise CompevalError(f"unknown format {format!r}; choose table, csv, json, markdown or latex")
    if no_published and not leaderboard:
        raise CompevalError("--no-published applies to --leaderboard")
    from ..tasks.registry import result_slug

    unreadable: list = []
    if leaderboard:
        from ..report.loading import ResultsIndex
        from ..report.tables import leaderboard_text

        index = ResultsIndex(directory)
        unreadable = index.unreadable
        _left_out(unreadable)
        if format == "table":
            from .summary import leaderboard_table

            from .tables import print_tables

            print_tables(out, leaderboard_table(index, include_published=not no_published, width=out.width,
                                                wide=wide))
        else:
            sys.stdout.write(leaderboard_text(index, format, include_published=not no_published))
        raise typer.Exit(1 if unreadable else 0)
    df = results_frame(directory, unreadable, result_slug)
    _left_out(unreadable)
    if df.empty:
        _no_results(directory, unreadable)
    if format == "latex":
        from ..report.tables import rows_latex

        sys.stdout.write(rows_latex(df))
    elif format == "table":
        from .tables import print_results

        print_results(out, df.to_dict("records"), ROW_COLUMNS, wide=wide)
    elif format == "csv":
        sys.stdout.write(df.to_csv(index=False))
    elif format == "json":
        sys.stdout.write(json.dumps(df.astype(object).where(df.notna(), None).to_dict("records"), indent=1) + "\n")
    elif format == "markdown":
        sys.stdout.write(_markdown(df) + "\n")
    if unreadable:  # the table holds what could be trusted; the exit status says something was left out
        raise typer.Exit(1)


def _no_results(directory: Path, unreadable: list) -> None:
    from ..results.store import left_out_note

    raise CompevalError(f"results folder {directory} holds no readable result: expected <model>/<task>.json "
                        f"files written by `compeval run`{left_out_note(unreadable)}")


def _left_out(unreadable: list) -> None:
    """One warning for the files ``results`` left out (damaged, unverified, misplaced), each with why."""
    if not unreadable:
        return
    from rich.markup import escape

    console.print(f"[yellow]warning:[/] left out {len(unreadable)} file(s) that are not readable, trusted "
                  "results (exit status 1):", soft_wrap=True)
    for path, reason in unreadable:
        console.print(f"  {escape(str(path))}: {escape(reason)}", soft_wrap=True)


@app.command()
def report(
    directory: Path = typer.Argument(..., help="a results folder written by `compeval run`"),
    output: Path = typer.Option(Path("report.html"), "--output", "-o", help="the HTML file to write"),
    figures: Optional[Path] = typer.Option(None, "--figures", help="also write every figure into this folder"),
    figure_format: str = typer.Option("svg", "--format", help="file format of --figures: png | svg"),
    resamples: int = typer.Option(1000, "--resamples", help="bootstrap resamples and permutations of the paired tests"),
    seed: int = typer.Option(0, "--seed", help="seed of the paired tests"),
    leaderboard: bool = typer.Option(False, "--leaderboard", help="write the leaderboard page of a sweep instead: "
                                     "headlines as sortable columns, model metadata, 95% intervals"),
    mteb_results: Optional[Path] = typer.Option(None, "--mteb-results", help="MTEB results folder "
                                                "(results/<org__name>/<revision>/<Task>.json): add, per headline, "
                                                "a scatter against MTEB STS with Spearman's rho (implies --leaderboard)"),
):
    """Write one self-contained HTML report: leaderboard, the papers' figures, paired tests, provenance."""
    if leaderboard or mteb_results is not None:
        from .sweep import write_leaderboard

        return write_leaderboard(directory, output, mteb_results, console)
    from ..report import build_report
    from ..report.build import check_report_settings

    check_report_settings(n_resamples=resamples, seed=seed, figure_format=figure_format)
    info = build_report(directory, output, figures_dir=figures, figure_format=figure_format,
                        n_resamples=resamples, n_permutations=resamples, seed=seed)
    from rich.markup import escape

    for w in info.warnings:
        console.print(f"[yellow]warning:[/] {escape(w)}", soft_wrap=True)
    console.print(f"report: {info.path} ({info.size_bytes / 1e6:.2f} MB, {len(info.figures)} figures, "
                  f"{info.paired} paired tests) in {info.seconds:.1f}s")
    if info.figure_files:
        console.print(f"figures: {len(info.figure_files)} {figure_format} files in {figures}")
    for problem in info.errors:
        console.print(f"[red]error:[/] {escape(problem)}", soft_wrap=True)
    if info.errors:
        raise typer.Exit(1)


@app.command()
def export(
    directory: Path = typer.Argument(..., help="a results folder written by `compeval run`"),
    output: Path = typer.Argument(..., help="the folder to write"),
    format: str = typer.Option("mteb", "--format", "-f", help="mteb: MTEB's results layout "
                               "(MODEL/REVISION/TASK.json with main_score per subset)"),
):
    """Write a results folder in another tool's layout (MTEB), to compare with its leaderboards."""
    if format != "mteb":
        raise CompevalError(f"unknown export format {format!r}; choose mteb")
    from ..report.mteb import export_mteb

    files = export_mteb(directory, output)
    console.print(f"wrote {len(files)} task file(s) in MTEB's layout under {output}", highlight=False)


@app.command(name="verify")
def verify_command(
    directory: Path = typer.Argument(..., help="a results folder written by `compeval run`"),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="the data folder the results were computed from (else $COMPEVAL_DATA_DIR, else the download cache)"),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="embedding cache to check (else $COMPEVAL_CACHE_DIR or ~/.cache/compeval)"),
    no_cache: bool = typer.Option(False, "--no-cache", help="do not check the embedding cache"),
):
    """Check every result against its data, predictions, checksums and cache, recompute the scores its task can from the predictions; list what no longer holds."""
    from .verify import verify

    status = verify(directory, data_dir, cache_dir, no_cache, console, out)
    if status:
        raise typer.Exit(status)


@app.command()
def cite(directory: Optional[Path] = typer.Argument(None, help="a results folder: what its results need cited "
                                                    "(else every work compeval can cite)")):
    """Print BibTeX for compeval and for the papers behind the methods and data sets of a results folder."""
    from ..citations import cite as cited, results_uses

    if directory is None:
        sys.stdout.write(cited().bibtex())
        return
    unreadable: list = []
    uses = results_uses(directory, unreadable)
    if not uses:
        _no_results(directory, unreadable)
    sys.stdout.write(cited(uses).bibtex())


data_cli.register(app)  # compeval download, compeval data


def _markdown(df) -> str:
    from ..names import markdown

    lines = ["| " + " | ".join(map(markdown, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(markdown(_fmt(v)) if v == v else "" for v in row) + " |")
    return "\n".join(lines)


def main() -> None:
    """Exit status: 0 all done, 1 some job failed (the failed jobs are listed last), 2 an error stopped
    the run before or between jobs (one line, no traceback), 130 interrupted."""
    import sqlite3

    import warnings

    import click
    from rich.markup import escape

    from ..errors import CompevalWarning

    default_show = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, CompevalWarning):
            console.print(f"[yellow]warning:[/] {escape(str(message))}", soft_wrap=True)
        else:
            default_show(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    try:
        # Without standalone mode click returns the status of typer.Exit instead of exiting with it.
        status = app(standalone_mode=False, prog_name="compeval")
    except CompevalError as exc:
        # escape: messages hold pip extras such as compeval[ray]; soft_wrap: one line, whatever the width
        console.print(f"[red]error:[/] {escape(redact(str(exc)))}", soft_wrap=True)
        sys.exit(2)
    except (typer.Exit, click.exceptions.Exit) as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `compeval`: the help, as click shows it
            exc.show()
            sys.exit(0)
        if usage.is_usage_error(exc):  # typer's vendored click or click itself
            for line in usage.usage_lines(exc):
                console.print(escape(line), soft_wrap=True, highlight=False)
            sys.exit(2)
        if usage.is_click_exception(exc):
            console.print(f"[red]error:[/] {escape(exc.format_message())}", soft_wrap=True)
            sys.exit(getattr(exc, "exit_code", 1) or 1)
        if type(exc).__name__ == "Abort":
            console.print("[red]interrupted[/]; finished results are kept and a re-run does only the rest")
            sys.exit(130)
        if not isinstance(exc, (OSError, sqlite3.OperationalError)):
            raise
        # disk full, read-only or vanished folders
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        console.print(f"[red]error:[/] {escape(str(getattr(exc, 'strerror', None) or exc))}{where}", soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        console.print("[red]interrupted[/]; finished results are kept and a re-run does only the rest")
        sys.exit(130)
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()
