"""Progress on the terminal (rich) for the CLI and ``run(..., progress=True)``: a bar per model. A console
that is not a terminal gets a line every ``LOG_INTERVAL_S`` seconds instead, so ``make run > log`` is never
silent for long.
"""
from __future__ import annotations

import sys
import threading
import time

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeRemainingColumn

from ..errors import CompevalError
from .jobs import JobOutcome, Reporter

#: Seconds between the progress lines of a log (the console is not a terminal).
LOG_INTERVAL_S = 30.0


def first_line(text) -> str:
    """The first line of a message; of an exception that is not compeval's own, after its type's name (a
    library's first line alone can be one token, such as matplotlib's ``\\frac{``)."""
    lines = str(text or "").strip().splitlines()
    line = lines[0] if lines else "(no message)"
    if isinstance(text, BaseException) and not isinstance(text, CompevalError):
        return f"{type(text).__name__}: {line}"
    return line


def _duration(seconds: float) -> str:
    """``1h02m``, ``3m09s``, ``42s``: a log's times at a glance."""
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def interactive(stream=None) -> bool:
    """Whether progress is shown by default: the stream is a terminal."""
    stream = stream or sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


class RichReporter(Reporter):
    """Bars and lines on stderr; usable as a context manager (the bars are removed when it exits)."""

    def __init__(self, console: Console | None = None, verbose: bool = False, failures_at_end: bool = False,
                 log_interval: float = LOG_INTERVAL_S):
        self.console = console or Console(stderr=True)
        self.log_interval = log_interval
        self.doing: dict[str, dict] = {}  # model -> what it does now: tasks, stage, done, total, since
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()
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
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
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
        if not self.console.is_terminal and self._ticker is None and self.log_interval > 0:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, name="compeval-progress-log", daemon=True)
            self._ticker.start()
        self._bar(name, f"{escape(name)}: preparing {n_jobs} job(s)")

    def loading(self, name):
        self._bar(name, f"{escape(name)}: loading weights…")

    def working_on(self, name, tasks, stage):
        self.doing[name] = {"tasks": list(tasks), "stage": stage, "done": 0, "total": None,
                            "since": time.perf_counter()}

    def _tick(self) -> None:
        while not self._stop.wait(self.log_interval):
            for line in self.log_lines():
                self.console.print(line, soft_wrap=True, highlight=False, markup=False)

    def log_lines(self, now: float | None = None) -> list[str]:
        """One line per model at work: what a log shows every ``log_interval`` seconds."""
        now = time.perf_counter() if now is None else now
        stamp = time.strftime("%H:%M:%S")
        lines = []
        for name, d in list(self.doing.items()):
            tasks = d["tasks"]
            what = ", ".join(tasks[:3]) + (f" +{len(tasks) - 3} more" if len(tasks) > 3 else "")
            elapsed = max(now - d["since"], 1e-9)
            head = f"[{stamp}] {name} × {what}:"
            if d["stage"] == "encoding" and d["total"]:
                done, total = d["done"], d["total"]
                if not done:
                    lines.append(f"{head} encoding 0/{total:,} texts, the first batch under way, "
                                 f"{_duration(elapsed)} so far")
                    continue
                rate = done / elapsed
                lines.append(f"{head} encoding {done:,}/{total:,} texts, {rate:,.1f} texts/s, "
                             f"ETA {_duration((total - done) / rate)}")
            elif d["stage"] == "encoding":
                lines.append(f"{head} preparing to encode (loading weights, reading the cache), "
                             f"{_duration(elapsed)} so far")
            elif d["stage"] == "evaluating":
                done, planned = self.jobs.get(name, [0, 0])
                lines.append(f"{head} evaluating job {done + 1}/{planned} (scoring, training any heads), "
                             f"{_duration(elapsed)} so far")
        return lines

    def encoding(self, name, done, total):
        d = self.doing.get(name)
        if d is not None and d["stage"] == "encoding":
            if d["total"] is None:  # the first batch call: rate and ETA count from here
                d["since"] = time.perf_counter()
            d["done"], d["total"] = done, total
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
        self.doing.pop(name, None)
        if name in self.bars:
            self.progress.remove_task(self.bars.pop(name))
        self.console.print(f"[bold]{escape(name)}[/]: {self.jobs[name][1]} job(s) in "
                           f"{time.perf_counter() - self.started.pop(name):.1f}s", highlight=False)

    def warning(self, message):
        self.console.print(f"[yellow]warning:[/] {escape(message)}", soft_wrap=True)
