"""Progress on the terminal (rich), shared by the CLI and the Python API (``run(..., progress=True)``).

One bar per model from its first encoded batch, with texts/s and the time left; a line while weights load;
finished jobs count on the model's line (each one printed with ``verbose``, and whenever the console is not a
terminal: model, task, seconds), failures are always printed (by the CLI once, at the end of the run).
"""
from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeRemainingColumn

from ..errors import CompevalError
from .jobs import JobOutcome, Reporter


def first_line(text) -> str:
    """The first line of a message; of an exception that is not compeval's own, after its type's name (a
    library's first line alone can be one token, such as matplotlib's ``\\frac{``)."""
    lines = str(text or "").strip().splitlines()
    line = lines[0] if lines else "(no message)"
    if isinstance(text, BaseException) and not isinstance(text, CompevalError):
        return f"{type(text).__name__}: {line}"
    return line


def interactive(stream=None) -> bool:
    """Whether progress is shown by default: the stream is a terminal."""
    stream = stream or sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


class RichReporter(Reporter):
    """Bars and lines on stderr; usable as a context manager (the bars are removed when it exits)."""

    def __init__(self, console: Console | None = None, verbose: bool = False, failures_at_end: bool = False):
        self.console = console or Console(stderr=True)
        self.verbose = verbose
        # The CLI lists failed jobs with their error once, at the end of the run (``cli/summary.py``).
        self.failures_at_end = failures_at_end
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                                 TextColumn("ETA"), TimeRemainingColumn(), console=self.console, transient=True)
        self.bars: dict[str, int] = {}
        self.jobs: dict[str, list[int]] = {}  # model -> [done, planned]
        self.started: dict[str, float] = {}
        self._entered = False

    def __enter__(self):
        return self  # the bars start with the first model: an error while planning prints only itself

    def __exit__(self, *exc):
        if self._entered:
            self._entered = False
            self.progress.__exit__(*exc)

    def _bar(self, name: str, description: str, total: int | None = None) -> int:
        if not self._entered:
            self.progress.__enter__()
            self._entered = True
        if name not in self.bars:
            self.bars[name] = self.progress.add_task(description, total=total, rate="")
        else:
            self.progress.update(self.bars[name], description=description)
        return self.bars[name]

    def model_start(self, name, n_jobs):
        self.jobs[name] = [0, n_jobs]
        self.started[name] = time.perf_counter()
        self._bar(name, f"{escape(name)}: preparing {n_jobs} job(s)")

    def loading(self, name):
        self._bar(name, f"{escape(name)}: loading weights…")

    def encoding(self, name, done, total):
        bar = self._bar(name, f"{escape(name)}: encoding", total)
        elapsed = time.perf_counter() - self.started.get(name, time.perf_counter())
        task = self.progress.tasks[[t.id for t in self.progress.tasks].index(bar)]
        rate = "" if not done else f"{task.speed or done / max(elapsed, 1e-9):,.0f} texts/s"
        self.progress.update(bar, completed=done, total=total, rate=rate)

    def job_done(self, o: JobOutcome):
        counts = self.jobs.setdefault(o.model, [0, 0])
        counts[0] += 1
        if o.model in self.bars:
            self.progress.update(self.bars[o.model], description=f"{escape(o.model)}: evaluating "
                                 f"{counts[0]}/{counts[1]} job(s)", rate="")
        logging = not self.console.is_terminal  # no bars in a log: a line per finished job instead
        if o.status == "failed" and not self.failures_at_end:
            self.console.print(f"  [red]failed[/] {escape(o.model)} × {escape(o.task)}: "
                               f"{escape(first_line(o.error))}", soft_wrap=True)
        elif o.status == "failed" and logging:
            self.console.print(f"  [red]failed[/] {escape(o.model)} × {escape(o.task)} ({o.seconds:.1f}s; "
                               "the error is listed at the end)", soft_wrap=True, highlight=False)
        elif (self.verbose or logging) and o.status == "done":
            score = "" if o.main_score is None else f"; main score {o.main_score:.4f}"
            self.console.print(f"  [green]done[/] {escape(o.model)} × {escape(o.task)} "
                               f"({o.n_items} items, {o.seconds:.1f}s{score})", soft_wrap=True)
        elif self.verbose and o.status == "skipped":
            self.console.print(f"  [dim]skipped {escape(o.model)} × {escape(o.task)}: result exists "
                               "(use --overwrite)[/]", soft_wrap=True)
        if counts[1] and counts[0] == counts[1] and o.model in self.started:
            self._model_finished(o.model)

    def _model_finished(self, name: str) -> None:
        if name in self.bars:
            self.progress.remove_task(self.bars.pop(name))
        self.console.print(f"[bold]{escape(name)}[/]: {self.jobs[name][1]} job(s) in "
                           f"{time.perf_counter() - self.started.pop(name):.1f}s", highlight=False)

    def warning(self, message):
        self.console.print(f"[yellow]warning:[/] {escape(message)}", soft_wrap=True)
