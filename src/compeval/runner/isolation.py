"""One worker process per model (``--isolate``): a crash, out-of-memory kill or hang past ``--model-timeout``
fails that model's jobs alone, and each model's GPU memory is returned before the next loads. Workers
inherit no CUDA state or SQLite handles (``worker_context``).
"""
from __future__ import annotations

import multiprocessing
import os
import queue as queue_module
import signal
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import CompevalError
from ..redact import redact
from ..results.store import ResultStore
from ..paths import safe_component
from .jobs import ExecutionReport, Job, JobOutcome, Plan, Reporter, RunContext
from .session import LOG_FOLDER

#: Seconds a worker may take to exit after it said it is done (it flushes and closes its cache).
EXIT_GRACE = 30.0


#: What the fork server imports once, so each model's worker starts without paying for them (a fresh
#: process all the same: importing torch does not initialise CUDA, so no CUDA state is shared).
PRELOAD = ["torch", "transformers", "sentence_transformers", "compeval.runner.runner", "compeval.runner.executors"]


def worker_context() -> Any:
    """``forkserver`` where the platform has it (Linux): workers fork from a server that imported
    ``PRELOAD`` once and never touched a GPU; else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        mp = multiprocessing.get_context("forkserver")
        mp.set_forkserver_preload(PRELOAD)
        return mp
    return multiprocessing.get_context("spawn")


def uses_gpu_torch_models(plan: Plan, ctx: RunContext) -> int:
    """How many pending models are torch models on a CUDA device, by each one's own resolved device
    (``--isolate``'s default: isolate when more than one)."""
    return sum(bool(r is not None and r.torch and (r.device or "").startswith("cuda"))
               for r in (jobs[0].resolved for jobs in plan.by_model()))


class _QueueReporter(Reporter):
    """The worker's reporter: each callback is a message to the driver, which relays it to its own reporter
    (none without a queue: a Ray worker returns its report at the end). The driver announced the model."""

    def __init__(self, q: Any):
        self.q = q

    def _put(self, *message: Any) -> None:
        if self.q is not None:
            self.q.put(message)

    def loading(self, name: str) -> None:
        self._put("loading", name)

    def encoding(self, name: str, done: int, total: int) -> None:
        self._put("encoding", name, done, total)

    def working_on(self, name: str, tasks: list[str], stage: str) -> None:
        self._put("working_on", name, list(tasks), stage)

    def job_done(self, outcome: JobOutcome) -> None:
        self._put("job_done", outcome)

    def warning(self, message: str) -> None:
        self._put("warning", message)


def _redirect_output(log_path: str) -> None:
    """The worker's stdout and stderr (Python's and the C libraries') go to its log file."""
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def _exit_with_parent() -> None:
    """A worker whose driver died (killed, not interrupted) exits too: a thread watches the parent pid."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(70)

    threading.Thread(target=watch, name="compeval-parent-watch", daemon=True).start()


TIMEOUT_EXIT = 124  # a worker's exit status when its own watchdog stopped it (as timeout(1))


def _watchdog(seconds: float) -> None:
    """Stop this process after ``seconds``, saying so in its log (a Ray driver cannot see when a queued task
    starts, so the worker times itself; C code that holds the GIL is stopped by the driver's timer)."""
    import threading

    def stop() -> None:
        print(f"timed out after {seconds:g}s (--model-timeout); the worker stopped itself", flush=True)
        os._exit(TIMEOUT_EXIT)

    timer = threading.Timer(seconds, stop)
    timer.daemon = True
    timer.start()


def model_worker(run_here: Any, resolved: Any, tasks: list[Any], ctx: RunContext, log_path: str | None,
                 q: Any = None, timeout: float | None = None, environ: dict[str, str] | None = None) -> ExecutionReport:
    """Run one model's pending jobs in this process; outcomes go to ``q`` as they finish (local), the
    report is returned at the end (Ray) and sent to ``q`` without its outcomes. ``run_here`` is the
    runner's ``run_model_here``, pickled by name, so this module does not import the runner."""
    if environ is not None:  # the driver's environment now, not the fork server's when it started
        os.environ.clear()
        os.environ.update(environ)
    if log_path:
        _redirect_output(log_path)
    if q is not None:
        _exit_with_parent()
    if timeout is not None:
        _watchdog(timeout)
    ctx.apply_env()
    import faulthandler

    faulthandler.enable()  # a segfault leaves its Python stack in the log
    print(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} worker pid {os.getpid()}: {redact(str(resolved))}",
          flush=True)

    report = run_here(resolved, tasks, ctx, _QueueReporter(q))
    if q is not None:
        q.put(("end", replace(report, outcomes=[])))  # its outcomes went one by one
    print(f"--- worker done: {len(report.outcomes)} job(s)", flush=True)
    return report


def describe_exit(code: int | None) -> str:
    """Why a worker ended, in words."""
    if code is None:
        return "the worker did not exit"
    if code == TIMEOUT_EXIT:
        return "the model's worker timed out (--model-timeout) and stopped itself"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (out of host memory? the kernel's OOM killer sends SIGKILL)" if -code == signal.SIGKILL else ""
        return f"the model's worker process was killed by {name}{hint}"
    return f"the model's worker process exited with status {code} before finishing"


def _log_tail(path: Path, n: int = 1) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-n:])


def worker_log(ctx: RunContext, jobs: list[Job]) -> Path:
    return Path(ctx.output_dir) / LOG_FOLDER / (safe_component(jobs[0].model_slug) + "__worker.log")


def unfinished(jobs: Any, why: str, log: Path, store: ResultStore, report: ExecutionReport,
               reporter: Reporter) -> None:
    """The outcomes of the jobs a dead worker did not report: done when it wrote an intact result first,
    else failed with ``why``, the log and its last line."""
    jobs = list(jobs)
    tail = _log_tail(log) if jobs else ""
    for job in jobs:
        path = store.path(job.model_slug, job.task_slug)
        if store.problem(path, model_id=job.model_id, task=job.task) is None:
            outcome = JobOutcome(job.model_display, job.task_slug, "done", path)
        else:
            outcome = JobOutcome(job.model_display, job.task_slug, "failed",
                                 error=f"{why}; log: {log}" + (f" (last line: {tail})" if tail else ""))
        report.outcomes.append(outcome)
        reporter.job_done(outcome)


class IsolatedExecutor:
    """Each model's jobs in a fresh process, one model at a time. ``model_timeout`` (seconds, None: no limit)
    counts from the worker's start."""

    name = "local"

    def __init__(self, model_timeout: float | None = None, *, run_here: Any):
        if model_timeout is not None and model_timeout <= 0:
            raise CompevalError(f"--model-timeout {model_timeout:g}: must be a positive number of seconds")
        self.model_timeout = model_timeout
        self.run_here = run_here  # the runner's run_model_here, called in each worker

    def check(self, plan: Plan) -> None:
        objects = sorted({j.model_display for j in plan.jobs if j.resolved is None})
        tasks = sorted({j.task_slug for j in plan.jobs if j.task_spec is None})
        if objects or tasks:
            raise CompevalError(
                f"--isolate rebuilds each model from its spec string in a worker process and sends it only "
                f"registered tasks; "
                f"{', '.join(objects + tasks)} were given as Python objects (run them without --isolate)")

    def execute(self, plan: Plan, ctx: RunContext, reporter: Reporter) -> ExecutionReport:
        report = ExecutionReport()
        mp = worker_context()
        store = ResultStore(ctx.output_dir)
        for jobs in plan.by_model():
            display = jobs[0].model_display
            reporter.model_start(display, len(jobs))
            log = worker_log(ctx, jobs)
            q = mp.Queue()
            proc = mp.Process(target=model_worker, name=f"compeval {display}", daemon=True,
                              args=(self.run_here, jobs[0].resolved, [j.task for j in jobs], ctx, str(log), q,
                                    None, dict(os.environ)))
            proc.start()
            try:
                self._follow(proc, q, jobs, log, store, report, reporter)
            finally:
                if proc.is_alive():  # the driver is interrupted: its worker goes with it
                    proc.kill()
                    proc.join()
                q.close()
        return report

    def _follow(self, proc, q, jobs, log, store, report, reporter) -> None:
        """Relay the worker's messages until it ends, times out or dies; fail what it did not finish."""
        started = time.monotonic()
        pending = {j.task_slug: j for j in jobs}
        reason, ended = None, False
        while not ended:
            left = None if self.model_timeout is None else self.model_timeout - (time.monotonic() - started)
            if left is not None and left <= 0:
                proc.kill()
                reason = f"timed out after {self.model_timeout:g}s (--model-timeout); the worker was killed"
                break
            try:
                msg = q.get(timeout=min(0.5, left) if left is not None else 0.5)
            except queue_module.Empty:
                if not proc.is_alive():
                    break
                continue
            kind, *args = msg
            if kind == "end":
                report.merge(args[0])
                ended = True
                continue
            if kind == "job_done":
                pending.pop(args[0].task, None)
                report.outcomes.append(args[0])
            relay = getattr(reporter, kind, None)  # a reporter written before working_on / warning lacks them
            if callable(relay):
                relay(*args)
        proc.join(EXIT_GRACE if ended else 5.0)
        if proc.is_alive():
            proc.kill()
            proc.join()
        unfinished(pending.values(), reason or describe_exit(proc.exitcode), log, store, report, reporter)

