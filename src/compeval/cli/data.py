"""Data on a fresh machine: the data step of ``compeval run``, ``compeval download`` and ``compeval data``.

``compeval run`` fetches the data of every task it will run before any job starts (downloads show their
size and a progress bar). Without network, a task of the default run whose data is not on disk is skipped
with one line saying why and how to get the data; a task named with ``--task`` that cannot get its data
fails (the run goes on, and exits non-zero). ``compeval download`` fetches what a later run needs (data,
model weights) on a machine with network, so that the run can go offline (``HF_HUB_OFFLINE=1``,
``--offline``).
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.console import Console
from rich.markup import escape

from ..data.download import MIRROR_ENV, NoNetworkError, check_mirror
from ..errors import CompevalError
from ..results.not_run import NotRun

DATA_MIRROR_HELP = (f"base URL of a mirror serving the upstream files under their original paths (else "
                    f"${MIRROR_ENV}); pins and hashes are kept")


class RichDownloads:
    """A download's name, size and progress bar on the console (``DownloadProgress``)."""

    def __init__(self, console: Console):
        self.console = console
        self.bar = None
        self.task = None
        self.label = ""
        self.t0 = 0.0

    def start(self, label: str, total: int | None, done: int) -> None:
        from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn,
                                   TransferSpeedColumn)

        self.label, self.t0 = label, time.perf_counter()
        size = f"{total / 1e6:.2f} MB" if total is not None else "size unknown"
        resumed = f", resuming at {done / 1e6:.2f} MB" if done else ""
        self.console.print(f"downloading {escape(label)} ({size}{resumed})", highlight=False, soft_wrap=True)
        if self.console.is_terminal:
            self.bar = Progress(TextColumn("  "), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                                TimeRemainingColumn(), console=self.console, transient=True)
            self.bar.start()
            self.task = self.bar.add_task(label, total=total, completed=done)

    def advance(self, n: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, n)

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def set_mirror(mirror: Optional[str]) -> None:
    """``--data-mirror`` as ``$COMPEVAL_DATA_MIRROR`` for this process and the workers it starts (a URL
    without a scheme is a one-line error)."""
    if mirror is not None:
        os.environ[MIRROR_ENV] = check_mirror(mirror) or ""


#: Why a plan does not download: it writes nothing (no data, no folders), and counts the data on disk.
PLAN_OFFLINE = "--plan downloads nothing; the run itself would"

NOT_DEFAULT = "not in the default run (they train many models; name them with --task)"


def default_tasks(console: Console, not_run: list[NotRun] | None = None) -> list[str]:
    """Every default task (generated suites and data-backed tasks alike) whose requirements are installed;
    the others are appended to ``not_run`` with their reason."""
    from ..tasks.registry import TASKS, discover

    discover()
    chosen, slow, unmet = [], [], []
    for name, cls in sorted(TASKS.items()):
        if not cls.default_run:
            slow.append(name)
            if not_run is not None:
                not_run.append(NotRun(name, NOT_DEFAULT))
        elif (need := cls().missing_requirements()):
            unmet.append(f"{name} ({need})")
            if not_run is not None:
                not_run.append(NotRun(name, f"requirements not installed ({need})"))
        else:
            chosen.append(name)
    if slow:
        console.print(f"[dim]not in the default run (they train many models): {', '.join(slow)}[/]", soft_wrap=True)
    if unmet:
        console.print(f"[dim]skipped: {'; '.join(unmet)}[/]", soft_wrap=True)
    return chosen


def task_sources(spec: str) -> list[str]:
    """The data sets a task spec (a task or a suite, with options) reads."""
    from ..tasks.registry import get_tasks

    return list(dict.fromkeys(s for t in get_tasks(spec) for s in t.metadata.data_sources))


@dataclass
class Fetched:
    """What fetching the data of some tasks gave: per data set None (ready) or the error."""

    errors: dict[str, CompevalError] = field(default_factory=dict)
    downloaded: int = 0
    seconds: float = 0.0
    cache: Path | None = None
    how: str = ""  # how to get data onto a machine without network


def fetch_sources(names: list[str], data_dir: Optional[Path], *, offline: bool, console: Console,
                  allow_modified: bool = False, offline_reason: str = "--offline") -> Fetched:
    from ..data.registry import DataContext

    ctx = DataContext(data_dir, download=not offline, progress=RichDownloads(console), allow_modified=allow_modified,
                      offline_reason=offline_reason)
    out = Fetched(cache=ctx.cache_dir, how=ctx.how_to_get())
    t0 = time.perf_counter()
    for name in names:
        try:
            ctx.fetch(name)
        except CompevalError as exc:
            out.errors[name] = exc
    out.downloaded, out.seconds = ctx.downloaded, time.perf_counter() - t0
    return out


@dataclass
class RunData:
    models: list[Any]  # models.registry.ResolvedModel: resolved here once (the run and --plan take them as they are)
    tasks: list[Any]  # the tasks to run, built from their specs here once
    failed: list[tuple[str, str]]  # (named task spec, why its data is not there)
    not_run: list[NotRun] = field(default_factory=list)  # default tasks left out, with their reasons


def prepare_run(models: list[str], named: Optional[List[str]], data_dir: Optional[Path], *, offline: bool,
                mirror: Optional[str], console: Console, allow_modified: bool = False, quick: bool = False,
                plan: bool = False) -> RunData:
    """The tasks of a run with their data on disk: named ones (their data failures reported back) or the
    default ones (those that cannot get their data skipped, one line per reason); ``quick``: the quick
    mode's tasks (``tasks.registry.quick_tasks``), skipped like default ones. ``allow_modified`` is the
    run's ``--allow-modified-data``: local files that differ from their pin count as there (recorded).
    ``plan``: ``--plan``, which writes nothing, so downloads nothing: it counts the data on disk."""
    from ..models.registry import resolve_model
    from ..tasks.registry import get_tasks, quick_tasks

    set_mirror(mirror)
    # Resolved once for the run: a typo in any option (a bare ORG/NAME's too) is reported before any download
    resolved = [resolve_model(m) for m in models]
    not_run: list[NotRun] = []
    if quick and named:
        raise CompevalError("--quick picks one task per suite itself; give --quick or --task, not both")
    specs = quick_tasks() if quick else list(named) if named else default_tasks(console, not_run)
    if quick:
        from ..tasks.registry import quick_note

        console.print(escape(quick_note(specs)), highlight=False, soft_wrap=True)
    from ..tasks.registry import get_tasks

    expanded = {spec: get_tasks(spec) for spec in specs}
    names = list(dict.fromkeys(s for tasks in expanded.values() for t in tasks for s in t.metadata.data_sources))
    why = "--offline" if offline or not plan else PLAN_OFFLINE
    fetched = fetch_sources(names, data_dir, offline=offline or plan, console=console, allow_modified=allow_modified,
                            offline_reason=why)
    if fetched.downloaded:
        console.print(f"data: downloaded {fetched.downloaded / 1e6:.2f} MB in {fetched.seconds:.1f}s into "
                      f"{escape(str(fetched.cache))}", highlight=False, soft_wrap=True)
    keep, failed = [], []
    skipped: dict[str, list[str]] = {}
    for spec, tasks in expanded.items():
        bad = {t.slug: next(s for s in t.metadata.data_sources if s in fetched.errors) for t in tasks
               if any(s in fetched.errors for s in t.metadata.data_sources)}
        for t in tasks:  # a suite some of whose tasks lack data: the others still run
            if t.slug not in bad:
                keep.append(t)  # built once here: the run takes the task objects
            elif named:
                failed.append((t.slug, str(fetched.errors[bad[t.slug]])))
            else:
                exc = fetched.errors[bad[t.slug]]
                reason = _skip_reason(exc, fetched.how)
                skipped.setdefault(reason, []).append(t.slug)
                not_run.append(NotRun(t.slug, _short_reason(exc, offline or plan, why), reason))
    for reason, tasks in skipped.items():
        console.print(f"[yellow]skipped[/] {len(tasks)} task(s) ({escape(', '.join(tasks))}): {escape(reason)}",
                      soft_wrap=True, highlight=False)
    return RunData(resolved, keep, failed, not_run)


def _short_reason(exc: CompevalError, offline: bool, why: str = "--offline") -> str:
    """The group a data-less task is counted in at the end of the run (the full line is printed first)."""
    if offline:
        return f"without their data on this machine ({why}: no downloads)"
    if isinstance(exc, NoNetworkError) and exc.host:
        return f"without their data (no network: cannot reach {exc.host})"
    return "without their data (" + str(exc).split(";")[0].split(": ", 1)[0] + ")"


def _skip_reason(exc: CompevalError, how: str) -> str:
    """Data sets that fail for one missing network share one line (the host, not the data set, is named)."""
    if isinstance(exc, NoNetworkError) and exc.host:
        return f"no network: cannot reach {exc.host} ({exc.reason}); {how}"
    return str(exc)


def add_failures(summary, models: list[str], failed: list[tuple[str, str]], output_dir: Path | None = None) -> None:
    """Named tasks that could not get their data, as failed jobs of every model (listed, exit 1), each
    task's reason in ``OUTPUT/logs/TASK.log`` like every other failure."""
    from ..runner.jobs import JobOutcome
    from ..runner.session import write_log

    for spec, line in failed:
        write_log(output_dir, line, spec, stage="fetching the data")
        for m in models:
            summary.outcomes.append(JobOutcome(m, spec, "failed", error=line))


# -- compeval download ---------------------------------------------------------------------------------------

def _folder_size(path: Path) -> int:
    """Bytes of the files under ``path`` (a Hub snapshot's symlinks count as their blobs)."""
    total = 0
    for p in path.rglob("*"):
        try:
            if p.is_file():
                total += p.stat().st_size
        except OSError:
            pass
    return total


def download(
    task: List[str] = typer.Option(None, "--task", "-t", help="task or suite (repeatable); else the default run's"),
    model: List[str] = typer.Option(None, "--model", "-m", help="model spec (repeatable); else the default models"),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="data folder already holding some data sets "
                                            "(else $COMPEVAL_DATA_DIR); the rest goes to the cache"),
    data_mirror: Optional[str] = typer.Option(None, "--data-mirror", help=DATA_MIRROR_HELP),
):
    """Fetch everything a run of these tasks and models needs (data sets, model weights), so that the same
    `compeval run` can then go offline (HF_HUB_OFFLINE=1, --offline)."""
    from . import DEFAULT_MODELS, console, out

    set_mirror(data_mirror)
    models_ = list(model) if model else list(DEFAULT_MODELS)
    specs = list(task) if task else default_tasks(console)
    names = list(dict.fromkeys(s for spec in specs for s in task_sources(spec)))
    t0 = time.perf_counter()
    fetched = fetch_sources(names, data_dir, offline=False, console=console)
    problems = [str(e) for e in fetched.errors.values()]  # each names its data set
    from ..data.registry import DataContext

    ctx = DataContext(data_dir, download=False)
    data_bytes = sum(p.stat().st_size for n in names if n not in fetched.errors for p in ctx.fetch(n))
    out.print(f"data: {len(names) - len(fetched.errors)} of {len(names)} data set(s) ready, "
              f"{data_bytes / 1e6:.2f} MB ({fetched.downloaded / 1e6:.2f} MB downloaded now) in "
              f"{escape(str(ctx.cache_dir))}" + (f" and {escape(str(ctx.data_dir))}" if ctx.data_dir else ""),
              highlight=False, soft_wrap=True)
    model_bytes = 0
    from ..models.registry import ModelBuilder

    builder = ModelBuilder()
    for m in models_:
        with console.status(f"fetching {escape(m)}"):
            try:
                config = builder(m).config
            except CompevalError as exc:
                problems.append(f"{m}: {exc}")
                continue
        where = Path(config.location) if config.location else None
        if where is None or not where.exists():
            out.print(f"model {escape(m)}: ready (its weights come with an installed package or code)", highlight=False,
                      soft_wrap=True)
            continue
        size = _folder_size(where) if where.is_dir() else where.stat().st_size
        model_bytes += size
        out.print(f"model {escape(m)}: {size / 1e6:.2f} MB at {escape(str(where))}", highlight=False, soft_wrap=True)
    for t in specs:
        from ..tasks.registry import get_tasks

        for tk in get_tasks(t):
            if (need := tk.missing_requirements()):
                problems.append(f"{tk.slug}: {need}")
    out.print(f"total: {(data_bytes + model_bytes) / 1e6:.2f} MB on disk for {len(specs)} task(s) and "
              f"{len(models_)} model(s) in {time.perf_counter() - t0:.1f}s", highlight=False, soft_wrap=True)
    for line in problems:
        console.print(f"[red]✗[/] {escape(line)}", soft_wrap=True, highlight=False)
    if problems:
        raise typer.Exit(1)


# -- compeval data -------------------------------------------------------------------------------------------

def data_rows(data_dir: Optional[Path]) -> list[dict]:
    """One row per registered data set: where it is, whether it is verified, sizes, licence, home, origin."""
    from ..data.registry import SOURCES, DataContext, get_source, sha256_file

    get_source("sts3k")  # every suite's sources.py registers its data sets
    ctx = DataContext(data_dir, download=False)
    rows = []
    for name in sorted(SOURCES):
        src = SOURCES[name]
        found = [(f, ctx.find(name, f.path)) for f in src.files]
        local = [p for _, p in found if p is not None]
        good = [f for f, p in found if p is not None and sha256_file(p) == f.sha256]
        state = ("verified" if len(good) == len(src.files) else
                 f"{len(good)} of {len(src.files)} files verified" if local else "not local")
        places = sorted({"data-dir" if ctx.data_dir and p.is_relative_to(ctx.data_dir) else "cache" for p in local})
        rows.append({
            "name": name, "local": "+".join(places) or "no", "status": state,
            "files": len(src.files), "local_bytes": sum(p.stat().st_size for p in local),
            "download_bytes": src.download_size, "license": src.license, "homepage": src.homepage,
            "downloaded_from": src.mirror or src.homepage, "revision": src.revision,
            "derived_from": [u.url for f in src.files if f.derived for u in f.derived.inputs],
            "folder": str(ctx.folders(name)[0]), "description": src.description,
        })
    return rows


def _size(n: int) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def data(
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="data folder to look in (else "
                                            "$COMPEVAL_DATA_DIR), besides the cache"),
    format: str = typer.Option("text", "--format", "-f", help="text | json"),
):
    """List every data set: local or not, verified or not, size, licence, homepage, upstream origin."""
    if format not in ("text", "json"):
        raise CompevalError(f"unknown format {format!r}; choose text or json")
    rows = data_rows(data_dir)
    if format == "json":
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    lines = []
    for r in rows:
        size = (f"{_size(r['local_bytes'])} on disk" if r["local_bytes"] else
                f"{_size(r['download_bytes'])} to download" if r["download_bytes"] else "size unknown")
        where = f" in {r['local']}" if r["local"] != "no" else ""
        lines.append(f"{r['name']}: {r['status']}{where}, {r['files']} file(s), {size}")
        lines.append(f"  home: {r['homepage']}")
        if r["downloaded_from"] != r["homepage"]:
            lines.append(f"  downloaded from: {r['downloaded_from']}")
        lines.append(f"  licence: {r['license']}")
        if r["derived_from"]:
            lines.append(f"  derived from: {', '.join(r['derived_from'])}")
    lines += ["", "fetch what is not local: compeval download [--task …]; local folder: --data-dir DIR"]
    sys.stdout.write("\n".join(lines) + "\n")


def register(app: typer.Typer) -> None:
    app.command()(download)
    app.command()(data)
