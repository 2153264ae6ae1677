"""A hostile run: hundreds of invocations of the CLI and the Python API, as a careful and a careless user
would make them, each classified automatically (issue 39, "Must show" 3).

    python scripts/hostile.py [--workdir DIR] [--workers 2] [--keep]

Categories (a case can fall in several):
  wrong-number   a score shown (``compeval results DIR -f csv``, or what ``run()`` returns) differs from a
                 clean run's of the same model × task, or a damaged/edited result is shown as if valid
  traceback      "Traceback" in stdout or stderr
  exit-0         a case that must fail (a malformed spec, a damaged file, an edited result to ``verify``)
                 exits 0 (or, from Python, returns without a failed job or an error)
  bad-write      a file appears, changes or vanishes inside the data folder, or a result, predictions or
                 cache file changes under a command that must only read it (results, verify, report, export)
  secret         a planted secret (password or key, or 8 characters of either) appears in stdout, stderr
                 or any file the case's folder holds
  unexpected     (listed, not one of the five) a valid invocation that failed

Everything runs on tiny inputs: a copy of two small STS data sets (GS2011, KS2013), hashbag / random /
static: word vectors made up here, and a tiny random-weight local sentence-transformers folder (built
from the test suite's replica helpers). CLI invocations run in a long-lived worker process through
``compeval.cli.main`` (importing compeval once keeps ~300 invocations within minutes); those that need a
process of their own (kill -9 and resume, another working folder, environment variables) run as
subprocesses. Scenarios are independent and spread over ``--workers`` processes.
The harness is hand-written: no test tool drives a CLI through hundreds of hostile cases and classifies
their outcomes this way.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import hashlib
import io
import json
import multiprocessing as mp
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PASSWORD = "hunter2-Zq9xK7pLw"
KEY = "sk-hostile-4f8a2c9e1b7d55"
SECRETS = (PASSWORD, KEY, PASSWORD[:8], KEY[:8] + KEY[8:12])
SECRET_URL = f"https://alice:{PASSWORD}@127.0.0.1:9/v1?key={KEY}"
GS, KS = "GS2011_processed.csv", "KS2013_processed.csv"
T_GS, T_KS = "gs2011,bootstrap=50", "ks2013,bootstrap=50"
TOLERANCE = 1e-6  # a shown score further than this from the clean run's is a wrong number
CATEGORIES = ("wrong-number", "traceback", "exit-0", "bad-write", "secret", "unexpected")


# --- cases ------------------------------------------------------------------------------------------------

@dataclass
class Step:
    """One invocation. ``cli``: argv after ``compeval``; ``py``: Python source run in the worker (it sets
    ``rc``; a CompevalError is rc 2; another exception a traceback); ``sub``: argv run as a subprocess."""

    label: str
    cli: list[str] | None = None
    py: str | None = None
    sub: list[str] | None = None
    expect: str = "ok"  # ok | fail | any
    compare: str | None = None  # a results folder whose shown scores must equal the clean run's
    compare_spec: str | None = None  # …those of this clean model (hashbag, random, vec, other, model)
    readonly: str | None = None  # a folder whose results/predictions/cache files must not change
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    kill_after: float | None = None  # sub: SIGKILL after this many seconds
    prepare: Callable[[Path], None] | None = None  # run before the step (edits, damage)


@dataclass
class Scenario:
    name: str
    steps: list[Step]
    setup: Callable[[Path, dict], None] | None = None  # builds the scenario's folder
    own_data: bool = False  # {data} is a copy of its own (steps that may write into it)


@dataclass
class Outcome:
    scenario: str
    label: str
    rc: int
    seconds: float
    problems: list[str]
    excerpt: str = ""


# --- fixtures (built once, before the scenarios) ----------------------------------------------------------

def build_fixtures(work: Path) -> dict:
    """The tiny data copy, vectors files, a tiny local model folder and the clean scores."""
    src_data = Path(os.environ.get("COMPEVAL_DATA_DIR", "/work/shared/data"))
    data = work / "data"
    for name, file in (("gs2011", GS), ("ks2013", KS)):
        (data / name).mkdir(parents=True, exist_ok=True)
        shutil.copy(src_data / name / file, data / name / file)
        for extra in ("SOURCE.md",):
            if (src_data / name / extra).is_file():
                shutil.copy(src_data / name / extra, data / name / extra)
    words = sorted({w for f, n in ((GS, "gs2011"), (KS, "ks2013"))
                    for line in (data / n / f).read_text(encoding="utf-8").splitlines()
                    for s in line.split(";")[:2] for w in s.split()})
    import numpy as np

    rng = np.random.default_rng(7)
    rows = {w: rng.standard_normal(6) for w in words}
    inputs = work / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    vec = inputs / "vectors.txt"
    vec.write_text("".join(f"{w} {' '.join(f'{x:.5f}' for x in v)}\n" for w, v in rows.items()), encoding="utf-8")
    other = inputs / "other" / "vectors.txt"  # the same name in another folder, other vectors
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text("".join(f"{w} {' '.join(f'{-x + 0.3:.5f}' for x in v[::-1])}\n" for w, v in rows.items()),
                     encoding="utf-8")
    qa = {}
    for n, folder in ((6, inputs / "qa_a"), (9, inputs / "qa_b")):
        folder.mkdir(parents=True, exist_ok=True)
        lines = []
        for i in range(n):
            doc = [f"person{i} hired worker{i}", f"worker{i} hired person{i}", f"person{i} sold a car"]
            lines.append(json.dumps({"id": f"q{i}", "question": f"who hired worker{i}", "document": doc,
                                     "answer": 0}))
        (folder / "qa.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        qa[n] = folder / "qa.jsonl"
    model = inputs / "tiny-st"
    sys.path.insert(0, str(ROOT / "tests" / "models"))
    import replicas  # the test suite's tiny random-weight replicas

    replicas.minilm(model)
    fx = {"work": str(work), "data": str(data), "vec": str(vec), "other_vec": str(other), "model": str(model),
          "qa_a": str(qa[6]), "qa_b": str(qa[9])}
    models = {"hashbag": "hashbag", "random": "random,dim=8", "vec": f"static:{vec}", "other": f"static:{other}",
              "model": f"hf:{model}"}
    by_spec, shown = {}, {}
    for key, spec in models.items():
        clean = work / "clean" / key
        rc, out, err = invoke_cli(["run", "--no-report", "--no-cache", "--data-dir", str(data), "-o", str(clean),
                                   "-m", spec, "-t", T_GS, "-t", T_KS])
        if rc != 0:
            raise SystemExit(f"the clean run of {spec} failed ({rc}):\n{out}\n{err}")
        rows = shown_scores(clean)
        by_spec[key] = {k[1:]: v for k, v in rows.items()}
        for k, v in rows.items():  # a display two specs share (two files named vectors.txt) is ambiguous
            shown[k] = v if k not in shown or shown[k] == v else None
    for n, name in ((6, "qa_a"), (9, "qa_b")):
        rc, out, err = invoke_cli(["run", "--no-report", "--no-cache", "-m", "hashbag", "-t",
                                   f"invariance-qa,path={fx[name]},subset_model=,bootstrap=50",
                                   "-o", str(work / f"clean-{name}")])
        if rc != 0:
            raise SystemExit(f"the clean qa run failed:\n{out}\n{err}")
    shutil.copytree(data, work / "pristine-data")
    fx["pristine"] = str(work / "pristine-data")
    fx["data_snapshot"] = snapshot(data)
    fx["clean"] = {k: v for k, v in shown.items() if v is not None}
    fx["clean_by_spec"] = by_spec
    for name in ("qa_a", "qa_b"):
        fx[f"clean-{name}"] = shown_scores(work / f"clean-{name}")
    return fx


# --- running one step -------------------------------------------------------------------------------------

@contextlib.contextmanager
def _environment(cwd: str | None, env: dict[str, str]):
    old_cwd, old_env = os.getcwd(), dict(os.environ)
    try:
        if cwd:
            os.chdir(cwd)
        os.environ.update(env)
        yield
    finally:
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)


def invoke_cli(argv: list[str], cwd: str | None = None, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``compeval ARGV`` in this process: (exit status, stdout, stderr); an exception escaping ``main`` is
    printed to stderr with its traceback, as Python would."""
    from compeval.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_argv = sys.argv
    rc = 0
    with _environment(cwd, env or {}), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        sys.argv = ["compeval", *argv]
        try:
            main()
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # noqa: BLE001 - what a user would see as a traceback
            traceback.print_exc(file=err)
            rc = 99
        finally:
            sys.argv = old_argv
    return rc, out.getvalue(), err.getvalue()


def invoke_py(code: str, fx: dict, here: Path, cwd: str | None, env: dict[str, str]) -> tuple[int, str, str]:
    from compeval.errors import CompevalError

    out, err = io.StringIO(), io.StringIO()
    ns: dict[str, Any] = {"fx": fx, "here": here, "rc": 0, "Path": Path}
    with _environment(cwd, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            import warnings

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                exec(code, ns)  # noqa: S102 - the script's own cases
            for w in caught:
                print(f"warning: {w.message}", file=sys.stderr)
        except CompevalError as exc:
            print(f"error: {exc}", file=sys.stderr)
            ns["rc"] = 2
        except BaseException:  # noqa: BLE001
            traceback.print_exc()
            ns["rc"] = 99
    return int(ns["rc"]), out.getvalue(), err.getvalue()


def invoke_sub(argv: list[str], cwd: str | None, env: dict[str, str], kill_after: float | None) -> tuple[int, str, str]:
    full = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]), **env}
    proc = subprocess.Popen([sys.executable, "-m", "compeval.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd, env=full, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=kill_after if kill_after is not None else 600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # kill -9: the run's process group, as an OOM kill would
        out, err = proc.communicate()
        return -9, out, err
    return proc.returncode, out, err


# --- what the checks read ---------------------------------------------------------------------------------

def shown_scores(folder: Path) -> dict[tuple[str, str, str, str], float]:
    """What ``compeval results DIR -f csv`` shows: (model, task, subset, metric) → value."""
    rc, out, _ = invoke_cli(["results", str(folder), "-f", "csv"])
    rows = {}
    for row in csv.DictReader(io.StringIO(out)):
        try:
            value = float(row["value"])
        except (KeyError, TypeError, ValueError):
            continue
        rows[(row["model"], row["task"].split("__")[0], row["subset"], row["metric"])] = value
    return rows


def snapshot(folder: Path, suffixes: tuple[str, ...] | None = None) -> dict[str, str]:
    out = {}
    if not folder.exists():
        return out
    for p in sorted(folder.rglob("*")):
        if p.is_file() and (suffixes is None or p.name.endswith(suffixes)):
            try:
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
            except OSError:
                out[str(p)] = "unreadable"
    return out


PROTECTED = (".json", ".predictions.jsonl", ".sqlite", ".csv", ".txt")


def leaked(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def scan_secrets(folder: Path, before: dict[str, str] | None = None) -> list[str]:
    """Files (names or contents) holding a planted secret; with ``before`` (a snapshot), only those the
    step created or changed, so one leak is counted once, by the step that wrote it."""
    found = []
    now = snapshot(folder) if before is not None else None
    for p in folder.rglob("*"):
        if now is not None and p.is_file() and before.get(str(p)) == now.get(str(p)):
            continue
        if leaked(str(p.relative_to(folder))) and (now is None or str(p) not in before):
            found.append(f"{p.name} (file name)")
        if p.is_file() and p.stat().st_size < 20_000_000:
            if leaked(p.read_bytes().decode("utf-8", "replace")):
                found.append(str(p.relative_to(folder)))
    return found


def run_step(step: Step, scenario: str, here: Path, fx: dict) -> Outcome:
    data = Path(fx["data"])
    before_data = snapshot(data)
    ro = Path(step.readonly.format(**fx, here=here)) if step.readonly else None
    before_ro = snapshot(ro, PROTECTED) if ro is not None else {}
    before_here = snapshot(here)
    if step.prepare is not None:
        step.prepare(here)
    fmt = lambda s: s.format(**fx, here=here)  # noqa: E731
    cwd = fmt(step.cwd) if step.cwd else None
    env = {k: fmt(v) for k, v in step.env.items()}
    t0 = time.perf_counter()
    if step.cli is not None:
        rc, out, err = invoke_cli([fmt(a) for a in step.cli], cwd, env)
    elif step.sub is not None:
        rc, out, err = invoke_sub([fmt(a) for a in step.sub], cwd, env, step.kill_after)
    else:
        rc, out, err = invoke_py(step.py, fx, here, cwd, env)
    seconds = time.perf_counter() - t0
    problems = []
    shown = out + err
    if "Traceback" in shown:
        problems.append("traceback")
    if step.expect == "fail" and rc == 0:
        problems.append("exit-0")
    if step.expect == "ok" and rc not in (0, -9):
        problems.append("unexpected")
    after_data = snapshot(data)
    if after_data != before_data:
        changed = sorted(set(after_data.items()) ^ set(before_data.items()))
        problems.append("bad-write")
        shown += f"\n[data folder changed: {[c[0] for c in changed][:3]}]"
    if ro is not None and snapshot(ro, PROTECTED) != before_ro:
        after = snapshot(ro, PROTECTED)
        diff = sorted(k for k in set(after) | set(before_ro) if after.get(k) != before_ro.get(k))
        problems.append("bad-write")
        shown += f"\n[changed under a read-only command: {diff[:3]}]"
    written = scan_secrets(here, before_here)
    if leaked(shown) or written:
        problems.append("secret")
        shown += f"\n[secret in: {written[:3] or 'stdout/stderr'}]"
    if step.py is not None and rc == 3:  # a Python case's own check of a number (it says which)
        problems = [p for p in problems if p != "unexpected"] + ["wrong-number"]
    if step.compare:
        folder = Path(fmt(step.compare))
        now = shown_scores(folder)
        if step.compare_spec:  # every model the folder shows against one clean model
            clean = fx["clean_by_spec"][step.compare_spec]
            now = {k[1:]: v for k, v in now.items()}
        else:
            clean = fx["clean"]
        # 1e-6: a transformer's float rounding follows its batches (a task run alone batches other texts
        # than two tasks together); a wrong number differs by more
        wrong = [(k, v, clean[k]) for k, v in now.items() if k in clean and abs(v - clean[k]) > TOLERANCE]
        if step.compare_spec and not any(k in clean for k in now):
            wrong.append(("nothing shown to compare", None, None))
        if wrong:
            problems.append("wrong-number")
            shown += f"\n[shown ≠ clean: {wrong[:2]}]"
    return Outcome(scenario, step.label, rc, seconds, problems, _excerpt(shown))


def _excerpt(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    keep = [ln for ln in lines if "Traceback" in ln or "Error" in ln or "error" in ln or ln.startswith("[")]
    return " | ".join((keep or lines)[-3:])[:400]


def run_scenario(sc: Scenario, fx: dict) -> list[Outcome]:
    here = Path(fx["work"]) / "cases" / sc.name
    here.mkdir(parents=True, exist_ok=True)
    if sc.own_data:
        shutil.copytree(fx["data"], here / "data")
        fx = {**fx, "data": str(here / "data")}
    env_cache = {"COMPEVAL_CACHE_DIR": str(here / "cache")}
    outcomes = []
    with _environment(None, env_cache):
        if sc.setup is not None:
            try:
                sc.setup(here, fx)
            except Exception as exc:  # noqa: BLE001
                return [Outcome(sc.name, "setup", 99, 0.0, ["unexpected"], f"setup failed: {exc!r}")]
        if (here / "vars.json").is_file():  # names the setup found (a result file's path)
            fx = {**fx, **json.loads((here / "vars.json").read_text())}
        for step in sc.steps:
            outcomes.append(run_step(step, sc.name, here, fx))
            if not sc.own_data and snapshot(Path(fx["data"])) != fx["data_snapshot"]:
                restore_data(fx)  # a bad write into the shared data: undone, so later cases stay meaningful
    return outcomes


def restore_data(fx: dict) -> None:
    shutil.rmtree(fx["data"], ignore_errors=True)
    shutil.copytree(fx["pristine"], fx["data"])


# --- the scenarios ---------------------------------------------------------------------------------------

RUN = ["run", "--no-report", "--data-dir", "{data}"]


def _fail_run(label: str, models: list[str], tasks: list[str], extra: list[str] = ()) -> Step:
    argv = RUN + ["-o", "{here}/out"] + list(extra)
    for m in models:
        argv += ["-m", m]
    for t in tasks:
        argv += ["-t", t]
    return Step(label, cli=argv, expect="fail")


def malformed() -> list[Scenario]:
    bad_models = ["", ",", "hashbag,", "hashbag,,dim=8", "hashbag,dim=", "hashbag,dim=-1", "hashbag,dim=abc",
                  "hashbag,dim=1e999", "hashbag,dim=8,dim=9", "hashbag,dim=０", "HASHBAG", "hashbag;dim=8",
                  "random,dim=0", "random,dim=99999999999", "random,dim=8,unknown=1", "random,seed=-1",
                  "random,seed=abc", "static:", "static:/nonexistent/v.txt", "static:{work}",
                  "static:{data}/gs2011/" + GS, "static:{vec},op=bogus", "static:{vec},tok=bogus",
                  "hf:", "hf:/nonexistent/model", "hf:{data}", "nosuchfamily:x", "sbert:", "mixed:",
                  "mixed:hashbag+", "mixed:+hashbag", "api:", "api:m,base_url=notaurl", "api:m,dims=-4",
                  "hashbag\x00", "glove-6b-50d,op=tensor,tok=nope",
                  "precomputed:/nonexistent.jsonl", "static:{vec},op=mean,op=sum"]
    bad_tasks = ["", ",", "nosuchtask", "gs2011,", "gs2011,,bootstrap=50", "gs2011,bootstrap=0",
                 "gs2011,bootstrap=1", "gs2011,bootstrap=39", "gs2011,bootstrap=-5", "gs2011,bootstrap=abc",
                 "gs2011,bootstrap=1e3", "gs2011,bootstrap=99999999999", "gs2011,norm=bogus",
                 "gs2011,missing=bogus", "gs2011,unknown=1", "gs2011,bootstrap=50,bootstrap=60",
                 "invariance-qa,path=/nonexistent.jsonl,subset_model=", "invariance-qa,path={work},subset_model=",
                 "invariance-qa,path={data}/gs2011/" + GS + ",subset_model=", "invariance-qa,format=usp",
                 "invariance-qa,texts={work}", "invariance-qa,subset_model=nosuchmodel",
                 "modifiers-test2,n_resamples=5", "modifiers-test2,n_resamples=0", "sts3k,split=bogus",
                 "GS2011", "gs2011,norm=", "ks2013,missing=", "gs2011,bootstrap=50;norm=none"]
    bad_options = [["--seed", "-1"], ["--seed", "99999999999"], ["--seed", "abc"], ["--batch-size", "0"],
                   ["--batch-size", "-3"], ["--device", "cuda:7"], ["--device", "tpu"], ["--max-batch-tokens", "0"],
                   ["--model-timeout", "-3"], ["--model-timeout", "5", "--no-isolate"], ["--executor", "bogus"],
                   ["--cpus-per-job", "0"], ["--plan-device", "abacus", "--plan"], ["--models-file", "/nonexistent"],
                   ["--models", "mteb:bogus=1"], ["--data-mirror", "not a url"],
                   ["--ray-retries", "-1"], ["--api-slots", "0"], ["--output-dir", ""], ["--unknown-flag"],
                   ["--seed"], ["-m"], ["--overwrite=yes"]]
    steps = [_fail_run(f"model {m!r}", [m], [T_GS]) for m in bad_models]
    steps += [_fail_run(f"task {t!r}", ["hashbag"], [t]) for t in bad_tasks]
    steps += [_fail_run(f"options {o}", ["hashbag"], [T_GS], o) for o in bad_options]
    other = [["report"], ["report", "/nonexistent"], ["report", "{here}", "--resamples", "1"],
             ["report", "{here}", "--resamples", "0"], ["report", "{here}", "--seed", "-2"],
             ["report", "{here}", "--format", "gif", "--figures", "{here}/f"], ["results"],
             ["results", "/nonexistent"], ["results", "{here}", "-f", "yaml"], ["verify", "/nonexistent"],
             ["export", "/nonexistent", "{here}/x"], ["export", "{here}", "{here}/x", "-f", "bogus"],
             ["models", "nosuchfamily"], ["tasks", "-f", "yaml"], ["download", "-t", "nosuchtask"],
             ["data", "bogus-subcommand"], ["nosuchcommand"], ["run", "--help-me"]]
    steps += [Step(f"argv {a}", cli=a, expect="fail") for a in other]
    chunks = [steps[i:i + 20] for i in range(0, len(steps), 20)]
    return [Scenario(f"malformed-{k:02d}", chunk) for k, chunk in enumerate(chunks)]


def _clean_run(here: Path, fx: dict, models=("hashbag",), tasks=(T_GS,), out="out") -> None:
    argv = ["run", "--no-report", "--data-dir", fx["data"], "-o", str(here / out)]
    for m in models:
        argv += ["-m", m]
    for t in tasks:
        argv += ["-t", t]
    rc, o, e = invoke_cli(argv)
    if rc != 0:
        raise RuntimeError(f"clean run failed: {o} {e}")


def _result(here: Path, model: str = "hashbag", task: str = "gs2011", out: str = "out") -> Path:
    return next(p for p in (here / out).glob(f"{model}*/{task}*.json"))


def _edit_json(path: Path, change: Callable[[dict], None]) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def _bump_score(doc: dict) -> None:
    doc["main_score"] = 0.987654
    for s in doc.get("scores", []):
        if s.get("subset") == "all":
            s["value"] = 0.987654


def _readers(label: str, expect_verify: str = "fail", expect_results: str = "any") -> list[Step]:
    """results, verify, report, export, leaderboard on a folder: none may change its files; results must
    never show a number that differs from the clean run's; a damaged result makes ``results`` (and its
    leaderboard) exit non-zero (``expect_results="fail"``)."""
    return [
        Step(f"{label}: results", cli=["results", "{here}/out", "-f", "csv"], expect=expect_results,
             compare="{here}/out", readonly="{here}/out"),
        Step(f"{label}: results --leaderboard", cli=["results", "{here}/out", "--leaderboard", "-f", "csv"],
             expect=expect_results, readonly="{here}/out"),
        Step(f"{label}: verify", cli=["verify", "{here}/out", "--data-dir", "{data}"], expect=expect_verify,
             readonly="{here}/out"),
        Step(f"{label}: report", cli=["report", "{here}/out", "-o", "{here}/r.html", "--resamples", "50"],
             expect="any", readonly="{here}/out"),
    ]


def edited_results() -> list[Scenario]:
    out = []

    def edit(name: str, change: Callable[[Path], None], expect_verify="fail", rerun_compare=True,
             expect_results="any"):
        def setup(here: Path, fx: dict):
            _clean_run(here, fx, models=("hashbag", "random,dim=8"), tasks=(T_GS, T_KS))
            change(here)
        steps = _readers(name, expect_verify, expect_results)
        if rerun_compare:
            steps.append(Step(f"{name}: rerun", cli=RUN + ["-o", "{here}/out", "-m", "hashbag", "-m", "random,dim=8",
                                                           "-t", T_GS, "-t", T_KS], expect="any",
                              compare="{here}/out"))
            steps.append(Step(f"{name}: verify after rerun", cli=["verify", "{here}/out", "--data-dir", "{data}"],
                              expect="ok", readonly="{here}/out"))
        out.append(Scenario(f"edit-{name}", steps, setup))

    edit("score", lambda h: _edit_json(_result(h), _bump_score))
    edit("score-no-checksum", lambda h: _edit_json(_result(h), lambda d: (_bump_score(d), d.pop("checksum", None))))
    edit("score-null-checksum", lambda h: _edit_json(_result(h), lambda d: (_bump_score(d), d.update(checksum=None))))
    edit("no-predictions-hash", lambda h: _edit_json(_result(h), lambda d: d.pop("predictions_sha256", None)))

    def copy_as_other_task(h: Path):
        src = _result(h, task="gs2011")
        dst = _result(h, task="ks2013")
        shutil.copy(src, dst)
        sp, dp = src.with_suffix("").with_suffix(".predictions.jsonl"), dst.with_suffix("").with_suffix(".predictions.jsonl")
        sp, dp = Path(str(src)[:-5] + ".predictions.jsonl"), Path(str(dst)[:-5] + ".predictions.jsonl")
        if sp.exists():
            shutil.copy(sp, dp)
    edit("copied-under-other-task", copy_as_other_task)

    def copy_as_other_model(h: Path):
        src, dst = _result(h, "hashbag"), _result(h, "random")
        shutil.copy(src, dst)
        sp, dp = Path(str(src)[:-5] + ".predictions.jsonl"), Path(str(dst)[:-5] + ".predictions.jsonl")
        if sp.exists():
            shutil.copy(sp, dp)
    edit("copied-under-other-model", copy_as_other_model)

    def edit_predictions(h: Path):
        p = Path(str(_result(h))[:-5] + ".predictions.jsonl")
        rows = [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines()]
        for r in rows:
            for k, v in list(r.items()):
                if k in ("score", "similarity", "pred", "prediction") and isinstance(v, (int, float)):
                    r[k] = -v
        p.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    edit("edited-predictions", edit_predictions)

    def delete_predictions(h: Path):
        Path(str(_result(h))[:-5] + ".predictions.jsonl").unlink()
    edit("deleted-predictions", delete_predictions)
    edit("truncated-json", lambda h: _result(h).write_bytes(_result(h).read_bytes()[:200]), expect_results="fail")
    edit("binary-json", lambda h: _result(h).write_bytes(os.urandom(300)), expect_results="fail")
    edit("empty-json", lambda h: _result(h).write_bytes(b""), expect_results="fail")
    edit("seed-edited", lambda h: _edit_json(_result(h), lambda d: d.update(seed=5)))
    edit("n-items-edited", lambda h: _edit_json(_result(h), lambda d: d.update(n_items=3)))

    def deleted_json_kept_predictions(h: Path):
        _result(h).unlink()
    edit("deleted-json", deleted_json_kept_predictions, expect_verify="any")

    def stray_file(h: Path):
        (h / "out" / "hashbag" ).mkdir(exist_ok=True)
        (_result(h).parent / "notes.json").write_text('{"hello": 1}')
    edit("stray-json", stray_file, expect_verify="any", rerun_compare=False)
    return out


def damaged_data() -> list[Scenario]:
    out = []

    def data_case(name: str, damage: Callable[[Path], None], allow: bool, compare: bool, expect: str):
        def setup(here: Path, fx: dict):
            shutil.copytree(fx["data"], here / "data")
            damage(here / "data" / "gs2011" / GS)
        argv = ["run", "--no-report", "--data-dir", "{here}/data", "-o", "{here}/out", "-m", "hashbag", "-t", T_GS]
        if allow:
            argv.append("--allow-modified-data")
        steps = [Step(f"{name}: run", cli=argv, expect=expect, compare="{here}/out" if compare else None),
                 Step(f"{name}: verify", cli=["verify", "{here}/out", "--data-dir", "{here}/data"], expect="any",
                      readonly="{here}/out")]
        out.append(Scenario(f"data-{name}", steps, setup))

    flip = lambda p: p.write_bytes(p.read_bytes()[:100] + bytes([p.read_bytes()[100] ^ 1]) + p.read_bytes()[101:])  # noqa: E731
    data_case("one-byte", flip, False, False, "fail")
    data_case("one-byte-allowed", flip, True, False, "any")
    data_case("deleted", lambda p: p.unlink(), False, False, "fail")
    data_case("truncated", lambda p: p.write_bytes(p.read_bytes()[:777]), False, False, "fail")
    data_case("truncated-allowed", lambda p: p.write_bytes(p.read_bytes()[:777]), True, False, "any")
    data_case("bom-allowed", lambda p: p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes()), True, True, "ok")
    data_case("crlf-allowed", lambda p: p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n")), True, True, "ok")
    data_case("latin1-allowed", lambda p: p.write_bytes(p.read_bytes().replace(b"the", b"th\xe9", 1)), True, False, "fail")
    data_case("nan-score-allowed", lambda p: p.write_text(p.read_text().replace("0.8461", "nan", 1)), True, False, "fail")
    data_case("folder-instead", lambda p: (p.unlink(), p.mkdir()), True, False, "fail")
    data_case("empty-allowed", lambda p: p.write_bytes(b""), True, False, "fail")
    return out


def damaged_vectors() -> list[Scenario]:
    steps = []

    def vec_case(name: str, make: Callable[[Path, Path], None], expect: str, compare: bool):
        def prepare(here: Path, make=make, name=name):
            make(Path(FX["vec"]), here / f"{name}.txt")
        model = f"static:{{here}}/{name}.txt"
        steps.append(Step(f"vectors {name}", cli=RUN + ["-o", f"{{here}}/out-{name}", "-m", model, "-t", T_GS],
                          expect=expect, compare=f"{{here}}/out-{name}" if compare else None,
                          compare_spec="vec" if compare else None, prepare=prepare))

    text = lambda src: src.read_text(encoding="utf-8")  # noqa: E731
    vec_case("tabs", lambda s, d: d.write_text(text(s).replace(" ", "\t")), "ok", True)
    vec_case("bom", lambda s, d: d.write_bytes(b"\xef\xbb\xbf" + s.read_bytes()), "ok", True)
    vec_case("crlf", lambda s, d: d.write_bytes(s.read_bytes().replace(b"\n", b"\r\n")), "ok", True)
    vec_case("header", lambda s, d: d.write_text(f"{len(text(s).splitlines())} 6\n" + text(s)), "ok", True)
    vec_case("gz", lambda s, d: d.write_bytes(gzip.compress(s.read_bytes())), "any", False)
    vec_case("mixed-separators", lambda s, d: d.write_text(text(s).replace(" ", "\t", 14)), "fail", False)
    vec_case("truncated-line", lambda s, d: d.write_text(text(s)[: len(text(s)) // 2]), "fail", False)
    vec_case("non-utf8", lambda s, d: d.write_bytes(s.read_bytes().replace(b"the ", b"th\xe9 ", 1)), "fail", False)
    vec_case("nan", lambda s, d: d.write_text(text(s).replace(text(s).split()[1], "nan", 1)), "fail", False)
    vec_case("duplicate-word", lambda s, d: d.write_text(text(s) + text(s).splitlines()[0] + "\n"), "fail", False)
    vec_case("empty", lambda s, d: d.write_text(""), "fail", False)
    vec_case("binary-garbage", lambda s, d: d.write_bytes(os.urandom(5000)), "fail", False)
    vec_case("letters", lambda s, d: d.write_text(text(s).replace(text(s).split()[2], "abc", 1)), "fail", False)

    def edit_in_place(here: Path):
        p = here / "inplace.txt"
        lines = Path(FX["vec"]).read_text().splitlines()
        p.write_text("\n".join(lines) + "\n")
    steps.append(Step("vectors in place: first", cli=RUN + ["-o", "{here}/inplace", "-m", "static:{here}/inplace.txt",
                                                           "-t", T_GS], prepare=edit_in_place, compare="{here}/inplace",
                      compare_spec="vec"))

    def swap_to_other(here: Path):
        shutil.copy(FX["other_vec"], here / "inplace.txt")
    steps.append(Step("vectors in place: replaced, rerun into a fresh folder", cli=RUN + [
        "-o", "{here}/inplace2", "-m", "static:{here}/inplace.txt", "-t", T_GS], prepare=swap_to_other,
        compare="{here}/inplace2", compare_spec="other"))
    return [Scenario("vectors", steps)]


FX: dict = {}


def model_folder() -> list[Scenario]:
    def copy_model(here: Path, fx: dict):
        shutil.copytree(fx["model"], here / "m")

    def garbage_weights(here: Path):
        (here / "m" / "model.safetensors").write_bytes(os.urandom(4096))

    def huge_header(here: Path):
        (here / "m" / "model.safetensors").write_bytes((2**62).to_bytes(8, "little") + b"{}")

    def bad_config(here: Path):
        (here / "m" / "config.json").write_text("{not json")

    def no_tokenizer(here: Path):
        for f in ("tokenizer.json", "vocab.txt"):
            if (here / "m" / f).exists():
                (here / "m" / f).unlink()

    def fine_tune_in_place(here: Path):
        import torch
        from safetensors.torch import load_file, save_file

        w = load_file(str(here / "m" / "model.safetensors"))
        for k in w:
            if "embeddings.word_embeddings" in k:
                w[k] = w[k] * -1.0 + 0.05
        save_file(w, str(here / "m" / "model.safetensors"))

    run_m = lambda label, **kw: Step(label, cli=RUN + ["-o", "{here}/out", "-m", "hf:{here}/m", "-t", T_GS], **kw)  # noqa: E731
    plan = lambda label: Step(label, cli=RUN + ["-o", "{here}/plan", "-m", "hf:{here}/m", "-m", "hashbag", "-t", T_GS,  # noqa: E731
                                                "--plan"], expect="ok")
    return [
        Scenario("model-clean-and-tuned", [
            run_m("tiny model: clean", compare="{here}/out"),
            run_m("tiny model: fine-tuned in place, rerun", prepare=fine_tune_in_place),
            Step("tiny model: fine-tuned folder vs a fresh run", py=(
                "from compeval.results import results_frame\n"
                "from compeval.runner import run\n"
                "s = run([f'hf:{here}/m'], ['gs2011,bootstrap=50'], here / 'fresh', data_dir=fx['data'], cache_dir=None)\n"
                "a = results_frame(here / 'out'); b = results_frame(here / 'fresh')\n"
                "x = a[(a.subset == 'all') & (a.metric == 'spearman')].value.tolist()\n"
                "y = b[(b.subset == 'all') & (b.metric == 'spearman')].value.tolist()\n"
                "print('stored', x, 'fresh', y)\n"
                "rc = 0 if y and y[0] in x else 3\n"
                "if rc: print('wrong number: the rerun after fine-tuning in place reused the old score', file=__import__('sys').stderr)\n"),
                expect="ok"),
        ], copy_model),
        Scenario("model-garbage-weights", [run_m("garbage weights: run", prepare=garbage_weights, expect="fail"),
                                           plan("garbage weights: --plan")], copy_model),
        Scenario("model-huge-header", [run_m("header length 2**62: run", prepare=huge_header, expect="fail"),
                                       plan("header length 2**62: --plan")], copy_model),
        Scenario("model-bad-config", [run_m("config.json not JSON: run", prepare=bad_config, expect="fail"),
                                      plan("config.json not JSON: --plan")], copy_model),
        Scenario("model-no-tokenizer", [run_m("no tokenizer: run", prepare=no_tokenizer, expect="fail")], copy_model),
    ]


def outputs() -> list[Scenario]:
    def setup(here: Path, fx: dict):
        _clean_run(here, fx)
        (here / "afile").write_text("x")
        (here / "vars.json").write_text(json.dumps({"res": str(_result(here))}))

    res = "{res}"
    steps = [
        _fail_run("output = data folder", ["hashbag"], [T_GS], ["-o", "{data}"]),
        _fail_run("output inside data", ["hashbag"], [T_GS], ["-o", "{data}/gs2011/out"]),
        _fail_run("output = a file", ["hashbag"], [T_GS], ["-o", "{here}/afile"]),
        _fail_run("output = a result file", ["hashbag"], [T_GS], ["-o", res]),
        _fail_run("cache inside data", ["hashbag"], [T_GS], ["--cache-dir", "{data}/cache"]),
        Step("COMPEVAL_CACHE_DIR inside data", cli=RUN + ["-o", "{here}/o2", "-m", "hashbag", "-t", T_GS],
             env={"COMPEVAL_CACHE_DIR": "{data}/cache"}, expect="fail"),
        Step("report into a result file", cli=["report", "{here}/out", "-o", res], expect="fail", readonly="{here}/out"),
        Step("report into the data folder", cli=["report", "{here}/out", "-o", "{data}/r.html"], expect="fail"),
        Step("report --leaderboard into a result file", cli=["report", "{here}/out", "--leaderboard", "-o", res],
             expect="fail", readonly="{here}/out"),
        Step("report --leaderboard into data", cli=["report", "{here}/out", "--leaderboard", "-o", "{data}/gs2011/" + GS],
             expect="fail"),
        Step("report --mteb-results data -o data", cli=["report", "{here}/out", "--leaderboard", "--mteb-results",
                                                       "{data}", "-o", "{data}/x.html"], expect="fail"),
        Step("report --figures into data", cli=["report", "{here}/out", "-o", "{here}/r.html", "--figures",
                                               "{data}/figs", "--resamples", "50"], expect="fail"),
        Step("export into data", cli=["export", "{here}/out", "{data}/exp"], expect="fail"),
        Step("export into the results folder itself", cli=["export", "{here}/out", "{here}/out"], expect="any",
             readonly="{here}/out"),
        Step("empty output path", cli=RUN + ["-o", "", "-m", "hashbag", "-t", T_GS], expect="fail"),
        Step("API run() into data", py="from compeval.runner import run\n"
                                       "s = run(['hashbag'], ['gs2011,bootstrap=50'], fx['data'], data_dir=fx['data'], cache_dir=None)\n"
                                       "rc = 0", expect="fail"),
        Step("API run() output ''", py="from compeval.runner import run\n"
                                       "s = run(['hashbag'], ['gs2011,bootstrap=50'], '', data_dir=fx['data'], cache_dir=None)\n"
                                       "rc = 0", expect="fail"),
        Step("API run() cache in data", py="from compeval.runner import run\n"
                                           "s = run(['hashbag'], ['gs2011,bootstrap=50'], here / 'o3', data_dir=fx['data'], cache_dir=fx['data'] + '/c')\n"
                                           "rc = 0", expect="fail"),
        Step("API build_report into a result file", py="from compeval.report import build_report\n"
                                                       "build_report(here / 'out', Path(fx['res']))\n"
                                                       "rc = 0", expect="fail", readonly="{here}/out"),
        Step("API build_report into data", py="from compeval.report import build_report\n"
                                              "build_report(here / 'out', Path(fx['data']) / 'r.html')\n"
                                              "rc = 0", expect="fail"),
    ]
    return [Scenario("outputs", steps, setup, own_data=True)]


def secrets() -> list[Scenario]:
    api = f"api:m,base_url={SECRET_URL},max_retries=0"
    steps = [
        _fail_run("api spec with credentials", [api], [T_GS]),
        _fail_run("api spec with credentials, --isolate", [api], [T_GS], ["--isolate"]),
        Step("api spec with credentials, --plan", cli=RUN + ["-o", "{here}/plan", "-m", api, "-t", T_GS, "--plan"],
             expect="any"),
        _fail_run("api spec with credentials and a bad option", [api + ",frobnicate=1"], [T_GS]),
        _fail_run("api spec with credentials and a bad value", [api + ",dims=-1"], [T_GS]),
        _fail_run("hashbag with a base_url", [f"hashbag,base_url={SECRET_URL}"], [T_GS]),
        _fail_run("static: URL with credentials", [f"static:{SECRET_URL}"], [T_GS]),
        _fail_run("hf: URL with credentials", [f"hf:{SECRET_URL}"], [T_GS]),
        _fail_run("a URL as the model", [SECRET_URL], [T_GS]),
        _fail_run("path= URL with credentials", ["hashbag"], [f"invariance-qa,path={SECRET_URL},subset_model="]),
        _fail_run("a URL as the task", ["hashbag"], [SECRET_URL]),
        Step("api key in the environment, failing server", cli=RUN + ["-o", "{here}/envkey", "-m",
                                                                   "api:m,base_url=http://127.0.0.1:9/v1,max_retries=0",
                                                                   "-t", T_GS],
             env={"OPENAI_API_KEY": KEY, "COMPEVAL_API_KEY": KEY}, expect="fail"),
        Step("API run() with credentials", py="from compeval.runner import run\n"
                                              f"s = run([{api!r}], ['gs2011,bootstrap=50'], here / 'py', data_dir=fx['data'], cache_dir=None)\n"
                                              "print([o.error for o in s.outcomes])\n"
                                              "rc = 1 if any(o.status == 'failed' for o in s.outcomes) else 0", expect="fail"),
        Step("API check_spec with credentials", py="from compeval.models.registry import check_spec\n"
                                                   f"check_spec({(api + ',frobnicate=1')!r})\nrc = 0", expect="fail"),
        Step("API get_tasks with credentials", py="from compeval.tasks.registry import get_tasks\n"
                                                  f"t = get_tasks('invariance-qa,path={SECRET_URL},subset_model=')\n"
                                                  "t[0].load(None)\nrc = 0", expect="fail"),
        Step("models file with credentials", cli=RUN + ["-o", "{here}/mf", "--models-file", "{here}/../models.txt",
                                                        "-t", T_GS], expect="fail",
             prepare=lambda h: (h.parent / "models.txt").write_text(f"{api}\n")),  # outside the scanned folder
        Step("results of a folder after all that", cli=["results", "{here}/out"], expect="any"),
        Step("report of a folder after all that", cli=["report", "{here}/out", "-o", "{here}/r.html"], expect="any"),
    ]
    return [Scenario("secrets", steps, own_data=True)]


def kill_and_resume() -> list[Scenario]:
    out = []
    for k, after in enumerate((2.0, 5.0, 9.0, 14.0)):
        argv = ["run", "--no-report", "--data-dir", "{data}", "-o", "{here}/out", "-m", "hashbag", "-m", "random,dim=8",
                "-m", "static:{vec}", "-t", T_GS, "-t", T_KS]
        out.append(Scenario(f"kill-{k}", [
            Step(f"kill -9 after {after:.0f}s", sub=argv, kill_after=after, expect="any"),
            Step(f"resume after kill at {after:.0f}s", cli=argv, compare="{here}/out"),
            Step(f"verify after kill at {after:.0f}s", cli=["verify", "{here}/out", "--data-dir", "{data}"],
                 readonly="{here}/out"),
        ]))
    return out


def relative_paths() -> list[Scenario]:
    qa = "invariance-qa,path=qa.jsonl,subset_model=,bootstrap=50"
    base = [sys.executable, "-m", "compeval.cli"]
    steps = [
        Step("path=qa.jsonl from folder a", sub=["run", "--no-report", "-o", "{here}/out", "-m", "hashbag", "-t", qa],
             cwd=str(Path("{work}") / "inputs" / "qa_a")),
        Step("path=qa.jsonl from folder b (another file)", sub=["run", "--no-report", "-o", "{here}/out", "-m",
                                                               "hashbag", "-t", qa],
             cwd=str(Path("{work}") / "inputs" / "qa_b")),
        Step("the folder shows b's score", py=(
            "from compeval.results import results_frame\n"
            "df = results_frame(here / 'out')\n"
            "clean = fx['clean-qa_b']\n"
            "ok = any(abs(r.value - clean.get((r.model, 'invariance-qa', r.subset, r.metric), 1e9)) < 1e-9 for r in df.itertuples())\n"
            "rc = 0 if ok else 3\n"
            "if not ok: print('wrong number: folder b reused folder a\\'s result', file=__import__('sys').stderr)\n")),
        Step("static:vectors.txt from inputs", sub=["run", "--no-report", "--data-dir", "{data}", "-o", "{here}/vs",
                                                    "-m", "static:vectors.txt", "-t", T_GS],
             cwd="{work}/inputs"),
        Step("static:vectors.txt from inputs/other", sub=["run", "--no-report", "--data-dir", "{data}", "-o",
                                                          "{here}/vs", "-m", "static:vectors.txt", "-t", T_GS],
             cwd="{work}/inputs/other"),
        Step("the two static runs are two results", py=(
            "from compeval.results import results_frame\n"
            "df = results_frame(here / 'vs')\n"
            "n = df.model.nunique()\n"
            "rc = 0 if n == 2 else 3\n"
            "if rc: print(f'wrong number: {n} model(s) for two different vectors files', file=__import__('sys').stderr)\n")),
    ]
    del base
    return [Scenario("relative-paths", steps)]


def python_objects() -> list[Scenario]:
    prelude = (
        "import numpy as np\n"
        "from compeval.runner import run\n"
        "from compeval.results import results_frame\n"
        "from compeval.models.fingerprint import PROBE_TEXTS\n"
        "class Salted:\n"
        "    def __init__(self, salt): self.salt = salt\n"
        "    def encode(self, texts):\n"
        "        return np.asarray([np.random.default_rng(sum(map(ord, t)) + (0 if t in PROBE_TEXTS else 7919 * self.salt)).standard_normal(8) for t in texts], dtype=np.float32)\n"
        "class Growing:\n"
        "    n = 0\n"
        "    def encode(self, texts):\n"
        "        Growing.n += 1\n"
        "        return np.ones((len(texts), 3 + Growing.n), dtype=np.float32)\n"
        "class Nan:\n"
        "    def encode(self, texts): return np.full((len(texts), 4), np.nan)\n"
        "class Wrong:\n"
        "    def encode(self, texts): return np.ones((len(texts) + 1, 4))\n"
        "class Raises:\n"
        "    def encode(self, texts): raise RuntimeError('boom')\n"
        "class Strings:\n"
        "    def encode(self, texts): return [['a'] * 3 for _ in texts]\n"
        "def spearman(folder):\n"
        "    df = results_frame(folder)\n"
        "    return sorted(df[(df.subset == 'all') & (df.metric == 'spearman')].value.tolist())\n"
        "T = 'gs2011,bootstrap=50'\n"
    )
    steps = [
        Step("object: Salted(1) into a cache", py=prelude + "s = run([Salted(1)], [T], here / 'o1', data_dir=fx['data'], cache_dir=here / 'c')\nrc = 0"),
        Step("object: Salted(2) fresh (reference)", py=prelude + "s = run([Salted(2)], [T], here / 'fresh', data_dir=fx['data'], cache_dir=None)\nrc = 0"),
        Step("object: Salted(2) with the same cache", py=prelude + (
            "s = run([Salted(2)], [T], here / 'o2', data_dir=fx['data'], cache_dir=here / 'c')\n"
            "rc = 0 if spearman(here / 'o2') == spearman(here / 'fresh') else 3\n"
            "if rc: print('wrong number: stale cached vectors', file=__import__('sys').stderr)\n")),
        Step("object: Salted(2) into Salted(1)'s folder", py=prelude + (
            "s = run([Salted(2)], [T], here / 'o1', data_dir=fx['data'], cache_dir=here / 'c')\n"
            "rc = 0 if spearman(here / 'fresh')[0] in spearman(here / 'o1') else 3\n"
            "if rc: print('wrong number: the stored result of another object', file=__import__('sys').stderr)\n")),
        Step("object: vector size changes", py=prelude + (
            "s = run([Growing()], [T], here / 'g', data_dir=fx['data'], cache_dir=None)\n"
            "print([o.error for o in s.outcomes])\n"
            "rc = 1 if any(o.status == 'failed' for o in s.outcomes) else 0\n"
            "import pathlib\n"
            "if list(pathlib.Path(here / 'g').glob('Growing*/*.json')): rc = 0\n"), expect="fail"),
        Step("object: NaN vectors", py=prelude + "s = run([Nan()], [T], here / 'n', data_dir=fx['data'], cache_dir=None)\n"
                                                 "rc = 1 if any(o.status == 'failed' for o in s.outcomes) else 0", expect="fail"),
        Step("object: one row too many", py=prelude + "s = run([Wrong()], [T], here / 'w', data_dir=fx['data'], cache_dir=None)\n"
                                                      "rc = 1 if any(o.status == 'failed' for o in s.outcomes) else 0", expect="fail"),
        Step("object: encode raises", py=prelude + "s = run([Raises()], [T], here / 'r', data_dir=fx['data'], cache_dir=None)\n"
                                                   "rc = 1 if any(o.status == 'failed' for o in s.outcomes) else 0", expect="fail"),
        Step("object: strings", py=prelude + "s = run([Strings()], [T], here / 's', data_dir=fx['data'], cache_dir=None)\n"
                                             "rc = 1 if any(o.status == 'failed' for o in s.outcomes) else 0", expect="fail"),
        Step("object: empty compeval_digest", py=prelude + (
            "o = Salted(1); o.compeval_digest = ''\n"
            "s = run([o], [T], here / 'd', data_dir=fx['data'], cache_dir=None)\n"
            "rc = 1 if any(o.status == 'failed' for o in s.outcomes) else 0"), expect="fail"),
        Step("object: bootstrap=1", py=prelude + "s = run([Salted(1)], ['gs2011,bootstrap=1'], here / 'b', data_dir=fx['data'], cache_dir=None)\nrc = 0",
             expect="fail"),
        Step("object: reuse_objects", py=prelude + (
            "s = run([Salted(3)], [T], here / 'ro1', data_dir=fx['data'], cache_dir=here / 'c2', reuse_objects=True)\n"
            "s2 = run([Salted(3)], [T], here / 'ro2', data_dir=fx['data'], cache_dir=here / 'c2', reuse_objects=True)\n"
            "rc = 0 if spearman(here / 'ro1') == spearman(here / 'ro2') else 3")),
        Step("API: a model spec list with a bad one", py=prelude + (
            "s = run(['hashbag', 'random,dim=0'], [T], here / 'm', data_dir=fx['data'], cache_dir=None)\nrc = 0"),
             expect="fail"),
        Step("API: unknown task", py=prelude + "s = run(['hashbag'], ['nosuchtask'], here / 'm2', data_dir=fx['data'])\nrc = 0",
             expect="fail"),
        Step("API: seed -1", py=prelude + "s = run(['hashbag'], [T], here / 'm3', data_dir=fx['data'], seed=-1)\nrc = 0",
             expect="fail"),
        Step("API: data_dir missing", py=prelude + (
            "s = run(['hashbag'], [T], here / 'm4', data_dir=here / 'nodata', download=False, cache_dir=None)\n"
            "rc = 1 if any(o.status == 'failed' for o in s.outcomes) else 0"), expect="fail"),
        Step("API: results_frame of nothing", py="from compeval.results import results_frame\n"
                                                 "results_frame(here / 'nothing-here')\nrc = 0", expect="any"),
        Step("API: check_model on Growing", py=prelude + (
            "from compeval.models.conformance import check_model, ConformanceError\n"
            "from compeval.models.protocol import ModelConfig\n"
            "g = Growing(); g.config = ModelConfig(family='x', name='g', params={})\n"
            "try:\n    check_model(g); rc = 0\nexcept ConformanceError as e:\n    print(e); rc = 2\n"), expect="fail"),
    ]
    return [Scenario("python-objects", steps)]


def clean_repeats() -> list[Scenario]:
    """Careful users: the same valid commands, repeated; every shown number must equal the clean run's."""
    steps = []
    for key, m in (("hashbag", "hashbag"), ("random", "random,dim=8"), ("vec", "static:{vec}"), ("model", "hf:{model}")):
        for t in (T_GS, T_KS):
            steps.append(Step(f"clean {m} × {t}", cli=RUN + ["-o", f"{{here}}/{key}", "-m", m, "-t", t],
                              compare=f"{{here}}/{key}", compare_spec=key))
    steps.append(Step("clean run into out", cli=RUN + ["-o", "{here}/out", "-m", "hashbag", "-t", T_GS],
                      compare="{here}/out"))
    steps.append(Step("clean rerun (all skipped)", cli=RUN + ["-o", "{here}/out", "-m", "hashbag", "-t", T_GS],
                      compare="{here}/out", readonly="{here}/out"))
    steps.append(Step("clean --overwrite", cli=RUN + ["-o", "{here}/out", "-m", "hashbag", "-t", T_GS, "--overwrite"],
                      compare="{here}/out"))
    steps.append(Step("clean --seed 3 (recomputed)", cli=RUN + ["-o", "{here}/seed", "-m", "hashbag", "-t", T_GS,
                                                               "--seed", "3"]))
    steps.append(Step("clean --reuse-stale", cli=RUN + ["-o", "{here}/seed", "-m", "hashbag", "-t", T_GS,
                                                       "--reuse-stale"]))
    steps += _readers("clean", expect_verify="ok", expect_results="ok")
    steps.append(Step("clean export", cli=["export", "{here}/out", "{here}/exp"], readonly="{here}/out"))
    steps.append(Step("clean results table", cli=["results", "{here}/out"], readonly="{here}/out"))
    steps.append(Step("clean --plan", cli=RUN + ["-o", "{here}/out", "-m", "hashbag", "-m", "hf:{model}", "-t", T_GS,
                                               "--plan"], readonly="{here}/out"))
    steps.append(Step("clean models", cli=["models"]))
    steps.append(Step("clean tasks", cli=["tasks"]))
    return [Scenario("clean", steps)]

#: Names a careless or hostile user could give (issue 48, "Must show" 3): the markup of each view, paths,
#: separators, invisible and right-to-left characters, look-alikes, and names compeval gives its own scores.
#: Per name: whether compeval must take it as a task name, a subset value and a model name (else it must
#: refuse it with one line and exit 2), by the rule of ``compeval.names``.
HOSTILE_NAMES: list[tuple[str, bool, bool, bool]] = [
    ("ok-name", True, True, True), ("v2.1_b", True, True, True), ("|", False, True, True),
    ("a|b", False, True, True), ("<script>alert(1)</script>", False, False, True), ("<b>", False, True, True),
    ("$\\frac{$", False, True, True), ("$x$", False, True, True), ("négation", False, True, True),
    ("a+b", False, True, True), ("../x", False, False, True), ("a/b", False, False, True),
    ("a\nb", False, False, False), ("x" * 300, False, False, True), ("\u202eevil", False, False, False),
    ("שלום עולם", False, True, True), ("`code`", False, True, True), ("*", False, True, True),
    ("_a_", False, True, True), ("[x](javascript:alert(1))", False, True, True), ("&lt;", False, True, True),
    ("[red]x", False, True, True), ("a  b", False, False, False), ("e\u0301", False, False, False),
    ("zero\u200bwidth", False, False, False), ("a,b", False, True, True), ('q"uote', False, True, True),
    ("=1+1", False, True, True), ("all", True, False, True), ("non_minus_adv", True, False, True),
    ("a__b", False, True, True), ("..", False, True, True),
]
_NAMES_PRELUDE = (
    "import csv, io, json, hashlib\n"
    "import numpy as np\n"
    "from markdown_it import MarkdownIt\n"
    "from html.parser import HTMLParser\n"
    "from compeval.runner import run\n"
    "from compeval.models.protocol import ModelConfig\n"
    "class Named:\n"
    "    def __init__(self, name): self.config = ModelConfig(family='named.v1', name=name, params={'dim': 8})\n"
    "    def encode(self, texts):\n"
    "        return np.asarray([np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)).standard_normal(8) for t in texts], dtype=np.float32)\n"
    "class Cells(HTMLParser):\n"
    "    def __init__(self): super().__init__(); self.rows, self.tags, self.cell = [], [], None\n"
    "    def handle_starttag(self, tag, attrs):\n"
    "        self.tags.append(tag)\n"
    "        if tag == 'tr': self.rows.append([])\n"
    "        if tag in ('td', 'th'): self.cell = []\n"
    "    def handle_endtag(self, tag):\n"
    "        if tag in ('td', 'th') and self.cell is not None: self.rows[-1].append(''.join(self.cell)); self.cell = None\n"
    "    def handle_data(self, data):\n"
    "        if self.cell is not None: self.cell.append(data)\n"
    "def cells(html):\n"
    "    p = Cells(); p.feed(html); return p\n"
    "def md_cells(text):\n"
    "    return cells(MarkdownIt('commonmark').enable(['table', 'strikethrough']).render(text))\n"
    "def shown(folder):\n"
    "    return {json.loads(p.read_text(encoding='utf-8'))['model']['display'] for p in folder.glob('*/*.json')}\n"
)


def _names_data(here: Path, subsets: list[str], n: int = 4) -> Path:
    """A pairs file, ``n`` rows per subset value, deterministic."""
    words = ["lawyer", "witness", "doctor", "patient", "teacher", "student", "chef", "waiter"]
    rows = []
    for k in range(n * len(subsets)):
        a, b = words[k % 8], words[(k * 3 + 1) % 8]
        rows.append({"s1": f"the {a} saw the {b} {k}", "s2": f"the {b} saw the {a} {k}", "gold": f"{(k * 7) % 11 / 2:.1f}",
                     "kind": subsets[k % len(subsets)]})
    here.mkdir(parents=True, exist_ok=True)
    path = here / "pairs.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def round4_names() -> list[Scenario]:
    """Every hostile name as a task name, a subset value and a model name (``HOSTILE_NAMES``): refused in one
    line (exit 2, nothing computed) or taken and read back as written from every view: results JSON, ``results``
    csv / json / markdown / table, the leaderboard in markdown and as a page, the report and its figures."""
    def quoted(v: str) -> str:
        if any(ch in v for ch in ',"\\\n\t') or v != v.strip():
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'
        return v

    task = "pairs:{here}/pairs.csv,a=s1,b=s2,score=gold,bootstrap=40"
    steps = [Step(f"task name {n[:40]!r}", expect="ok" if ok else "fail",
                  cli=["run", "--no-report", "--no-cache", "-m", "hashbag", "-o", "{here}/t", "-t",
                       task + ",name=" + quoted(n).replace("{", "{{").replace("}", "}}")])
             for n, ok, _, _ in HOSTILE_NAMES]
    steps.append(Step("task named by a non-ASCII file name", expect="fail",
                      prepare=lambda here: shutil.copy(here / "pairs.csv", here / "négation.csv"),
                      cli=["run", "--no-report", "--no-cache", "-m", "hashbag", "-o", "{here}/t2", "-t",
                           "pairs:{here}/négation.csv,a=s1,b=s2,score=gold,bootstrap=40"]))
    steps.append(Step("nothing written by a refused task name", py=(
        "import pathlib\n"
        "names = sorted(p.stem for p in (here / 't').glob('*/*.json'))\n"
        "print(names)\n"
        "rc = 0 if all(n.split('__')[0] in ('ok-name', 'v2.1_b', 'all', 'non_minus_adv') for n in names) and len(names) == 4 else 1\n")))
    tasks = Scenario("round4-names-task", steps, setup=lambda here, fx: _names_data(here, ["x", "y"]))

    steps = []
    for k, (n, _, ok, _) in enumerate(HOSTILE_NAMES):
        def prepare(here: Path, n=n, k=k) -> None:
            _names_data(here / f"s{k}", [n, "plain"])
        steps.append(Step(f"subset {n[:40]!r}", expect="ok" if ok else "fail", prepare=prepare,
                          cli=["run", "--no-report", "--no-cache", "-m", "hashbag", "-o", f"{{here}}/s{k}/out", "-t",
                               f"pairs:{{here}}/s{k}/pairs.csv,a=s1,b=s2,score=gold,subset=kind,bootstrap=40"]))
    taken = [n for n, _, ok, _ in HOSTILE_NAMES if ok]
    models = [n for n, _, _, ok in HOSTILE_NAMES if ok]
    views = _NAMES_PRELUDE + (
        f"subsets, models = {taken!r}, {models!r}\n"
        "out = here / 'all' / 'out'\n"
        "labels = shown(out)\n"
        "bad = []\n"
        "from compeval.cli import main\n"
        "def view(*argv):\n"
        "    import sys, contextlib\n"
        "    buf = io.StringIO()\n"
        "    sys.argv = ['compeval', *argv]\n"
        "    with contextlib.redirect_stdout(buf):\n"
        "        try: main()\n"
        "        except SystemExit as e: assert not e.code, (argv, e.code)\n"
        "    return buf.getvalue()\n"
        "import pandas as pd\n"
        "df = pd.read_csv(io.StringIO(view('results', str(out), '-f', 'csv')), keep_default_na=False)\n"
        "bad += [('csv subsets', set(subsets) ^ set(df.subset) - {'all'})] if set(df.subset) - {'all'} != set(subsets) else []\n"
        "bad += [('csv models', set(df.model) ^ labels)] if set(df.model) != labels else []\n"
        "rows = json.loads(view('results', str(out), '-f', 'json'))\n"
        "bad += [('json', 0)] if {r['subset'] for r in rows} - {'all'} != set(subsets) or {r['model'] for r in rows} != labels else []\n"
        "page = md_cells(view('results', str(out), '-f', 'markdown'))\n"
        "head, *body = page.rows\n"
        "bad += [('markdown cells', head)] if any(len(r) != len(head) for r in body) else []\n"
        "bad += [('markdown models', {r[0] for r in body} ^ labels)] if {r[0] for r in body} != labels else []\n"
        "bad += [('markdown subsets', {r[3] for r in body} ^ set(subsets))] if {r[3] for r in body} - {'all'} != set(subsets) else []\n"
        "bad += [('markdown markup', set(page.tags))] if {'script', 'a', 'em', 'strong', 'code', 'del'} & set(page.tags) else []\n"
        "page = md_cells(view('results', str(out), '--leaderboard', '-f', 'markdown', '--no-published'))\n"
        "head, *body = page.rows\n"
        "bad += [('leaderboard markdown', {r[0] for r in body} ^ labels)] if {r[0] for r in body} != labels or any(len(r) != len(head) for r in body) else []\n"
        "view('report', str(out), '-o', str(here / 'r.html'), '--resamples', '40', '--figures', str(here / 'f'), '--format', 'png')\n"
        "page = cells((here / 'r.html').read_text(encoding='utf-8'))\n"
        "bad += [('report', labels - {c for r in page.rows for c in r})] if not labels <= {c for r in page.rows for c in r} or 'script' in page.tags else []\n"
        "view('report', str(out), '--leaderboard', '-o', str(here / 'board.html'))\n"
        "page = cells((here / 'board.html').read_text(encoding='utf-8'))\n"
        "bad += [('leaderboard page', labels - {c for r in page.rows for c in r})] if not labels <= {c for r in page.rows for c in r} or 'script' in page.tags else []\n"
        "print(f'{len(subsets)} subsets, {len(labels)} models, 7 views; mismatches: {bad}')\n"
        "rc = 1 if bad else 0\n")
    run_all = _NAMES_PRELUDE + (
        f"subsets, models = {taken!r}, {models!r}\n"
        "s = run([Named(n) for n in models], ['pairs:' + str(here / 'all' / 'pairs.csv') + ',a=s1,b=s2,score=gold,subset=kind,bootstrap=40,name=hostile'], here / 'all' / 'out', cache_dir=None)\n"
        "print(s.warnings)\n"
        "rc = 1 if s.warnings or s.report is None or any(o.status != 'done' for o in s.outcomes) else 0\n")
    steps.append(Step("every taken name: models × subsets, with the run's report", py=run_all,
                      prepare=lambda here: _names_data(here / "all", taken)))
    steps.append(Step("every taken name read back from 7 views", py=views, readonly="{here}/all/out"))
    for n, _, _, ok in HOSTILE_NAMES:
        steps.append(Step(f"model name {n[:40]!r}", expect="ok" if ok else "fail",
                          py=_NAMES_PRELUDE + f"Named({n!r})\nrc = 0\n"))
    subsets = Scenario("round4-names-views", steps)
    return [tasks, subsets]


def round4_numerics() -> list[Scenario]:
    """Issue 48's numerics and readers: Pearson on extreme scales, float noise ranked as signal (an averaging
    model on word-order swaps), JSON Lines duplicate keys and raw U+2028, labels 1 and 1.0, mixed label kinds,
    a bad declaration among several task files, a boolean for a count, the listed resample bound, and a
    Skip-Thought options pickle that unpickles to the wrong thing."""
    nouns = ["lawyer", "witness", "doctor", "patient", "teacher", "student", "chef", "waiter", "pilot"]

    def setup(here: Path, fx: dict):
        import pickle

        import numpy as np

        rng = np.random.default_rng(4)
        pairs = []
        for k, (a, b) in enumerate((a, b) for a in nouns for b in nouns if a != b):
            s1 = f"the {a} saw the {b} near the old bridge"
            s2 = f"the {b} saw the {a} near the old bridge" if k % 2 else f"a {a} met a {b} by the river"
            pairs.append({"s1": s1, "s2": s2, "gold": round(float(rng.uniform(0, 5)), 3)})
        (here / "swaps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pairs), encoding="utf-8")
        for name, scale in (("big", 1e160), ("tiny", 1e-165)):
            (here / f"{name}.jsonl").write_text("".join(json.dumps({**r, "gold": r["gold"] * scale}) + "\n"
                                                        for r in pairs), encoding="utf-8")
        lines = [json.dumps(r) for r in pairs]
        lines[2] = lines[2][:-1] + ', "gold": 4.5}'
        (here / "dup.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        sep = [dict(r) for r in pairs]
        sep[3]["s1"] = "the pilot\u2028saw the chef"
        (here / "sep.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in sep), encoding="utf-8")
        probe = []
        for k, (a, b) in enumerate((a, b) for a in nouns for b in nouns if a != b):
            late = nouns.index(a) >= 4
            probe.append({"text": f"the {a} saw the {b} at {k}", "label": (1 if k % 2 else 1.0) if late else 0})
        (here / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in probe), encoding="utf-8")
        mixed = [{**r, "label": "1" if r["label"] == 1 and k % 3 == 0 else (1 if r["label"] == 1 else 0)}
                 for k, r in enumerate(probe)]
        (here / "mixed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in mixed), encoding="utf-8")
        decl = here / "decl"
        decl.mkdir(exist_ok=True)
        good = 'kind = "pairs"\nsource = "../swaps.jsonl"\n[columns]\na = "s1"\nb = "s2"\nscore = "gold"\n'
        (decl / "a_good.toml").write_text(good)
        (decl / "b_bad.toml").write_text(good.replace('b = "s2"', 'b = "s3"').replace('"pairs"\n', '"pairs"\nname = "bad"\n', 1))
        (decl / "c_good.toml").write_text(good.replace('"pairs"\n', '"pairs"\nname = "other"\n', 1))
        (here / "boot.toml").write_text(good.replace("../swaps", "swaps") + "[options]\nbootstrap = true\n")
        st = here / "skipthought"
        st.mkdir(exist_ok=True)
        (st / "uni_skip.npz.pkl").write_bytes(b"\x80\x02ccollections\nOrderedDict\nq\x00K\x01\x85q\x01Rq\x02.")
        (st / "unhashable.pkl").write_bytes(b"\x80\x02}q\x00(]q\x01K\x01aK\x02u.")
        (st / "bool.pkl").write_bytes(pickle.dumps({"dim": True, "dim_word": 4}))

    check = (
        "import json, numpy as np, pandas as pd\n"
        "from scipy import stats\n"
        "from compeval.runner import run\n"
        "from compeval.results import results_frame\n"
        "def shown(folder, subset, metric):\n"
        "    df = results_frame(folder)\n"
        "    return float(df[(df.subset == subset) & (df.metric == metric)].value.iloc[0])\n"
        "def predictions(folder):\n"
        "    (f,) = Path(folder).rglob('*.predictions.jsonl')\n"
        "    return pd.read_json(f, lines=True, dtype=False)\n"
        "def wrong(what):\n"
        "    print('wrong number: ' + what, file=__import__('sys').stderr)\n"
        "    return 3\n"
    )
    steps = []
    for name in ("big", "tiny"):
        steps.append(Step(f"pearson: gold scores near {'1e160' if name == 'big' else '1e-165'}", py=check + (
            f"run(['hashbag'], ['pairs:' + str(here / '{name}.jsonl') + ',a=s1,b=s2,score=gold,bootstrap=40'], "
            f"here / 'p-{name}', data_dir=fx['data'], cache_dir=None)\n"
            f"p = predictions(here / 'p-{name}')\n"
            "gold = pd.read_json(here / 'swaps.jsonl', lines=True).gold  # the same golds at unit scale\n"
            "expected = stats.pearsonr(p.score, gold).statistic\n"
            f"got = shown(here / 'p-{name}', 'all', 'pearson')\n"
            "rc = 0 if abs(got - expected) < 1e-9 else wrong(f'pearson {got} against scipy {expected}')\n")))
    steps += [
        Step("spearman: an averaging model on word-order swaps ties them", py=check + (
            "run(['hashbag'], ['pairs:' + str(here / 'swaps.jsonl') + ',a=s1,b=s2,score=gold,bootstrap=40'], "
            "here / 'swaps', data_dir=fx['data'], cache_dir=None)\n"
            "p = predictions(here / 'swaps')\n"
            "same = [sorted(a.split()) == sorted(b.split()) for a, b in zip(p.sentence_1, p.sentence_2)]\n"
            "exact = np.where(same, 1.0, p.score)\n"
            "expected = stats.spearmanr(exact, p.gold).statistic\n"
            "got = shown(here / 'swaps', 'all', 'spearman')\n"
            "rc = 0 if abs(got - expected) < 1e-9 else wrong(f'spearman {got}, with the swaps tied {expected}')\n")),
        Step("spearman: verify recomputes the tied result", cli=["verify", "{here}/swaps"], readonly="{here}/swaps"),
        Step("triplets: two swaps of the anchor are a tie", py=check + (
            "rows = ['anchor,closer,farther'] + [f'the {a} saw the {b} near the old bridge,the {b} saw the {a} near "
            "the old bridge,near the old bridge the {a} saw the {b}' for a in ['chef', 'pilot', 'lawyer'] for b in "
            "['doctor', 'nurse', 'judge']]\n"
            "(here / 'trip.csv').write_text('\\n'.join(rows) + '\\n')\n"
            "run(['hashbag'], ['triplets:' + str(here / 'trip.csv') + ',bootstrap=40'], here / 'trip', "
            "data_dir=fx['data'], cache_dir=None)\n"
            "got = shown(here / 'trip', 'all', 'accuracy')\n"
            "rc = 0 if got == 0.0 else wrong(f'accuracy {got} where every ordering is a tie')\n")),
        Step("jsonl: a row gives gold twice", cli=RUN + ["-o", "{here}/out", "-m", "hashbag", "-t",
                                                         "pairs:{here}/dup.jsonl,a=s1,b=s2,score=gold"], expect="fail"),
        Step("jsonl: a raw U+2028 inside a string", cli=RUN + ["-o", "{here}/sep", "-m", "hashbag", "-t",
                                                               "pairs:{here}/sep.jsonl,a=s1,b=s2,score=gold"]),
        Step("labels: 1 and 1.0 are one label", py=check + (
            "from compeval.tasks.registry import get_tasks\n"
            "(t,) = get_tasks('probe:' + str(here / 'labels.jsonl') + ',text=text,label=label')\n"
            "rc = 0 if t.values == ['0', '1'] else wrong(f'labels {t.values}: one probe became {len(t.choices)}')\n")),
        Step("labels: text '1' beside number 1", cli=RUN + ["-o", "{here}/out", "-m", "hashbag", "-t",
                                                            "probe:{here}/mixed.jsonl,text=text,label=label"],
             expect="fail"),
        Step("toml: tasks --path with one bad file of three", cli=["tasks", "--path", "{here}/decl"], expect="fail"),
        Step("toml: the error names the bad file", py=(
            "from compeval.errors import CompevalError\n"
            "from compeval.tasks.user.listing import declared_rows\n"
            "try:\n    declared_rows(here / 'decl'); rc = 1\n"
            "except CompevalError as e:\n    print(e); rc = 0 if 'b_bad.toml' in str(e) else 1\n")),
        Step("toml: bootstrap = true", cli=RUN + ["-o", "{here}/out", "-m", "hashbag", "-t", "{here}/boot.toml"],
             expect="fail"),
        Step("toml: bootstrap = true is refused as a boolean, not read as 1", py=(
            "from compeval.errors import CompevalError\n"
            "from compeval.tasks.registry import get_tasks\n"
            "try:\n    get_tasks(str(here / 'boot.toml')); rc = 1\n"
            "except CompevalError as e:\n    print(e); rc = 0 if 'bootstrap=true' in str(e) else 1\n")),
        Step("tasks sts3k: the listed bootstrap bound is the enforced one", py=(
            "from compeval.tasks.sts.tasks import STS3k\n"
            "row = next(r for r in STS3k.Options.rows() if r['option'] == 'bootstrap')\n"
            "print(row['values']); rc = 0 if '>= 40' in row['values'] else 1\n")),
    ]
    for name in ("uni_skip.npz.pkl", "unhashable.pkl", "bool.pkl"):
        steps.append(Step(f"skipthought: options pickle {name}", py=(
            "from compeval.models.families.skipthought import read_options\n"
            f"read_options(here / 'skipthought' / '{name}', 'skipthought:X'); rc = 0\n"), expect="fail"))
    return [Scenario("round4-numerics", steps, setup)]

def round4_verify() -> list[Scenario]:
    """Issue 48, verify's part: a user task's edited score (checksum rewritten), its stale result after the
    file changed, its data file gone, dropped or repeated triplet predictions, an edited saved dataset, a
    linked sentence-transformers module replaced, and a model folder's pooling switched in place."""
    roles = [("the lawyer questioned the witness", "the witness was questioned by the lawyer",
              "the witness questioned the lawyer"),
             ("the doctor helped the patient", "the patient was helped by the doctor", "the patient helped the doctor"),
             ("the teacher called the student", "the student was called by the teacher",
              "the student called the teacher"),
             ("the chef praised the waiter", "the waiter was praised by the chef", "the waiter praised the chef"),
             ("the pilot visited the mechanic", "the mechanic was visited by the pilot",
              "the mechanic visited the pilot"),
             ("the witness helped the chef", "the chef was helped by the witness", "the chef helped the witness")]
    models = ("hashbag", "random,dim=8")
    spec = "triplets:{here}/roles.csv,bootstrap=50"

    def write_roles(here: Path, rows=roles) -> None:
        with open(here / "roles.csv", "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows([("anchor", "closer", "farther"), *rows])

    def setup(here: Path, fx: dict) -> None:
        write_roles(here)
        _clean_run(here, fx, models=models, tasks=(spec.format(here=here),))

    def resign(path: Path, change: Callable[[dict], None]) -> None:
        from compeval.results.store import content_checksum

        doc = json.loads(path.read_text(encoding="utf-8"))
        change(doc)
        doc["predictions_sha256"] = hashlib.sha256(path.with_name(doc["predictions_file"]).read_bytes()).hexdigest()
        doc["checksum"] = None
        doc["checksum"] = content_checksum(doc)
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")

    def random_result(here: Path) -> Path:
        return next((here / "out").glob("random*/roles__*.json"))

    def edit_score(here: Path) -> None:
        resign(random_result(here), _bump_score)

    def edit_rows(kind: str) -> Callable[[Path], None]:
        def prepare(here: Path) -> None:
            path = random_result(here)
            pred = path.with_name(path.stem + ".predictions.jsonl")
            lines = pred.read_text(encoding="utf-8").splitlines()
            lines = {"drop": lines[:3] + lines[4:], "repeat": lines + lines[:1],
                     "swap": lines[:3] + lines[4:] + lines[2:3]}[kind]
            pred.write_text("\n".join(lines) + "\n", encoding="utf-8")
            resign(path, lambda d: None)
        return prepare

    verify = lambda label, expect="fail": Step(label, cli=["verify", "{here}/out"], expect=expect,  # noqa: E731
                                               readonly="{here}/out")
    flagged = lambda label, words: Step(label, expect="ok", py=(  # noqa: E731
        "from compeval.cli.verify import verify_folder\n"
        "found = [p for f in verify_folder(here / 'out')[0] for p in f.problems]\n"
        f"hit = [p for p in found if all(w in p for w in {words!r})]\n"
        "print(found)\n"
        "rc = 0 if hit else 3\n"
        "if rc: print('wrong number: verify does not flag it', file=__import__('sys').stderr)\n"))
    rerun = Step("user task: re-run after the edit", cli=RUN + ["-o", "{here}/out", "-m", models[0], "-m", models[1],
                                                                 "-t", spec], expect="ok")
    one_shown = Step("user task: results shows one current 'roles' score per model", expect="ok", py=(
        "from compeval.results import results_frame\n"
        "left = []\n"
        "df = results_frame(here / 'out', left)\n"
        "rows = df[(df.task == 'roles') & (df.subset == 'all')]\n"
        "print(rows.to_string(), left)\n"
        "rc = 0 if len(rows) == 2 and rows.model.nunique() == 2 and any('stale' in r for _, r in left) else 3\n"
        "if rc: print('wrong number: a stale result is shown as current', file=__import__('sys').stderr)\n"))

    def edit_file(here: Path) -> None:
        write_roles(here, roles[:5] + [("the waiter thanked the pilot", "the pilot was thanked by the waiter",
                                        "the pilot thanked the waiter")])

    def save_dataset(here: Path, rows) -> None:
        import datasets

        shutil.rmtree(here / "ds", ignore_errors=True)
        datasets.Dataset.from_list([{"anchor": a, "closer": c, "farther": f} for a, c, f in rows]).save_to_disk(
            str(here / "ds"))

    def dataset_setup(here: Path, fx: dict) -> None:
        save_dataset(here, roles)
        _clean_run(here, fx, models=models, tasks=(f"triplets:hf-dataset:{here}/ds,bootstrap=50",))

    def pooling(config: Path, mode: str) -> None:
        doc = json.loads(config.read_text(encoding="utf-8"))
        if "pooling_mode" in doc:
            doc["pooling_mode"] = mode
        else:
            doc.update(pooling_mode_mean_tokens=mode == "mean", pooling_mode_cls_token=mode == "cls")
        config.unlink()
        config.write_text(json.dumps(doc), encoding="utf-8")

    def linked_setup(here: Path, fx: dict) -> None:
        shutil.copytree(fx["model"], here / "m")
        (module,) = [p for p in (here / "m").iterdir() if p.is_dir() and p.name.endswith("Pooling")]
        (here / "linked").mkdir()
        shutil.move(module, here / "linked" / module.name)
        module.symlink_to(here / "linked" / module.name, target_is_directory=True)
        write_roles(here)

    def replace_linked(here: Path) -> None:
        (link,) = [p for p in (here / "m").iterdir() if p.is_symlink()]
        shutil.copytree(link.resolve(), here / "linked" / "cls")
        pooling(here / "linked" / "cls" / "config.json", "cls")
        link.unlink()
        link.symlink_to(here / "linked" / "cls", target_is_directory=True)

    def snapshot_setup(here: Path, fx: dict) -> None:
        shutil.copytree(fx["model"], here / "hub" / "models--org--tiny" / "snapshots" / ("ab" * 20))
        write_roles(here)

    snap = "{here}/hub/models--org--tiny/snapshots/" + "ab" * 20
    model_run = lambda label, model: Step(label, cli=RUN + ["-o", "{here}/out", "-m", model, "-t", spec],  # noqa: E731
                                          expect="ok")
    two_ids = Step("model changed: the re-run computes under a new id", expect="ok", py=(
        "ids = sorted(p.name for p in (here / 'out').iterdir() if p.is_dir())\n"
        "print(ids)\n"
        "rc = 0 if len(ids) == 2 else 3\n"
        "if rc: print('wrong number: two models share one id', file=__import__('sys').stderr)\n"))
    out = [
        Scenario("r4v-user-score", [
            verify("user task: clean verify", expect="ok"),
            Step("user task: score edited, checksum rewritten: verify", cli=["verify", "{here}/out"], expect="fail",
                 prepare=edit_score),
            flagged("user task: verify names the recomputed value", ["recomputed from its predictions is"]),
        ], setup),
        Scenario("r4v-user-stale", [
            Step("user task: file edited: verify", cli=["verify", "{here}/out"], expect="fail", prepare=edit_file),
            rerun,
            Step("user task: results after the re-run", cli=["results", "{here}/out", "-f", "csv"], expect="fail",
                 readonly="{here}/out"),
            Step("user task: leaderboard after the re-run", cli=["results", "{here}/out", "--leaderboard", "-f",
                                                                  "csv"], expect="fail", readonly="{here}/out"),
            one_shown,
            flagged("user task: verify says what a re-run does", ["new id"]),
            Step("user task: report after the re-run", cli=["report", "{here}/out", "-o", "{here}/r.html",
                                                            "--resamples", "50"], expect="any",
                 readonly="{here}/out"),
        ], setup),
        Scenario("r4v-user-gone", [
            Step("user task: data file gone: verify", cli=["verify", "{here}/out"], expect="fail",
                 prepare=lambda here: (here / "roles.csv").unlink()),
            flagged("user task: one line says the file is gone", ["roles.csv no longer exists"]),
        ], setup),
        *(Scenario(f"r4v-triplets-{kind}", [
            Step(f"triplets predictions, rows {kind}: verify", cli=["verify", "{here}/out"], expect="fail",
                 prepare=edit_rows(kind)),
        ], setup) for kind in ("drop", "repeat", "swap")),
        Scenario("r4v-saved-dataset", [
            verify("saved dataset: clean verify", expect="ok"),
            Step("saved dataset: a row edited: verify", cli=["verify", "{here}/out"], expect="fail",
                 prepare=lambda here: save_dataset(here, roles[:5] + [("the waiter thanked the pilot",
                                                                       "the pilot was thanked by the waiter",
                                                                       "the pilot thanked the waiter")])),
            Step("saved dataset: folder gone: verify", cli=["verify", "{here}/out"], expect="fail",
                 prepare=lambda here: shutil.rmtree(here / "ds")),
        ], dataset_setup),
        Scenario("r4v-linked-module", [
            model_run("linked module: run", "{here}/m"),
            verify("linked module: clean verify", expect="ok"),
            Step("linked module replaced (cls pooling): verify", cli=["verify", "{here}/out"], expect="fail",
                 prepare=replace_linked),
            model_run("linked module replaced: re-run", "{here}/m"),
            two_ids,
        ], linked_setup),
        Scenario("r4v-snapshot-pooling", [
            model_run("snapshot folder: run", snap),
            verify("snapshot folder: clean verify", expect="ok"),
            Step("snapshot folder: pooling switched in place: verify", cli=["verify", "{here}/out"], expect="fail",
                 prepare=lambda here: pooling(next(Path(snap.format(here=here)).glob("*Pooling/config.json")), "cls")),
            flagged("snapshot folder: verify names the folder", ["now has content digest", "models--org--tiny"]),
            model_run("snapshot folder: re-run", snap),
            two_ids,
        ], snapshot_setup),
    ]
    return out


def round4_hostile_pass() -> list[Scenario]:
    """A fresh hostile pass on round four's changed surfaces, by someone who did not write them: Pearson on
    degenerate and extreme inputs (float noise around one cosine, ±1.7e308, subnormal golds), the readers (JSON
    Lines kinds and literals, CSV/TSV headers, encodings, line ends), ``bootstrap=`` values on the command line
    and in TOML, ``verify`` on hand-edited predictions (rows reordered, items as text or booleans, cells of
    another shape), folders whose every result is stale, two data files under one task name, ``cite``,
    ``models NAME``, ``tasks KIND``, ``--path``, every ``results`` format, COLUMNS from 0 to 100000, and model
    folders with a link loop, a FIFO or a dangling link."""
    nouns = ["lawyer", "witness", "doctor", "patient", "teacher", "student", "chef", "waiter", "pilot"]
    pairs_opts = ",a=s1,b=s2,score=gold,bootstrap=40"

    def rows_() -> list[dict]:
        import random

        rnd = random.Random(1)
        out = []
        for k, (a, b) in enumerate((a, b) for a in nouns for b in nouns if a != b):
            out.append({"s1": f"the {a} saw the {b}", "s2": f"the {b} saw the {a}" if k % 2 else f"a {a} met a {b}",
                        "gold": round(rnd.uniform(0, 5), 3), "kind": "swap" if k % 2 else "other"})
        return out

    def jsonl(path: Path, rows: list, raw: dict[int, str] | None = None) -> None:
        lines = [json.dumps(r, ensure_ascii=False) for r in rows]
        for i, text in (raw or {}).items():
            lines[i] = text
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def table(path: Path, rows: list, fields: list[str], delim: str = ",") -> None:
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, delimiter=delim)
            w.writerow(fields)
            w.writerows([[r.get(k, "") for k in fields] for r in rows])

    def setup(here: Path, fx: dict) -> None:
        rows = rows_()
        jsonl(here / "p.jsonl", rows)
        jsonl(here / "q.jsonl", [dict(r, gold=round(5 - r["gold"], 3)) for r in rows])
        table(here / "p.csv", rows, ["s1", "s2", "gold", "kind"])
        jsonl(here / "huge.jsonl", [dict(r, gold=1.7e308 if i % 3 else -1.7e308) for i, r in enumerate(rows)])
        jsonl(here / "subnormal.jsonl", [dict(r, gold=r["gold"] * 1e-320) for r in rows])
        jsonl(here / "const.jsonl", [dict(r, gold=2.0) for r in rows])
        jsonl(here / "boolgold.jsonl", [dict(r, gold=bool(i % 2)) for i, r in enumerate(rows)])
        jsonl(here / "nullgold.jsonl", [dict(r, gold=None if i == 5 else r["gold"]) for i, r in enumerate(rows)])
        gold5 = json.dumps(rows[5])
        for name, lit in (("e400", "1e400"), ("nanlit", "NaN"), ("inflit", "-Infinity")):
            jsonl(here / f"{name}.jsonl", rows, {5: gold5.replace(f'"gold": {rows[5]["gold"]}', f'"gold": {lit}')})
        jsonl(here / "mixsubset.jsonl", [dict(r, kind=1 if i % 2 else "1") for i, r in enumerate(rows)])
        jsonl(here / "boolsubset.jsonl", [dict(r, kind=bool(i % 2)) for i, r in enumerate(rows)])
        jsonl(here / "numsubset.jsonl", [dict(r, kind=1 if i % 2 else 1.0) for i, r in enumerate(rows)])
        jsonl(here / "reserved.jsonl", [dict(r, kind="all" if i % 2 else "x") for i, r in enumerate(rows)])
        jsonl(here / "nested-dup.jsonl", rows, {3: json.dumps(rows[3])[:-1] + ', "meta": {"a": 1, "a": 2}}'})
        jsonl(here / "case-key.jsonl", rows, {3: json.dumps(rows[3])[:-1] + ', "Gold": 1}'})
        jsonl(here / "array-line.jsonl", rows, {3: "[1, 2]"})
        (here / "crlf.jsonl").write_text("".join(json.dumps(r) + "\r\n" for r in rows), encoding="utf-8")
        table(here / "dup-head.csv", rows, ["s1", "s2", "gold", "gold"])
        table(here / "dup-head.tsv", rows, ["s1", "s2", "gold", "s1"], "\t")
        sep = [dict(r) for r in rows]
        sep[3]["s1"] = "the pilot\u2028saw the chef"
        table(here / "sep.csv", sep, ["s1", "s2", "gold"])
        (here / "cr.csv").write_text((here / "p.csv").read_text().replace("\r\n", "\r"), encoding="utf-8")
        (here / "bom.csv").write_text("\ufeff" + (here / "p.csv").read_text(), encoding="utf-8")
        (here / "latin.csv").write_bytes((here / "p.csv").read_bytes().replace(b"lawyer", "lawy\xe9r".encode("latin-1")))
        comma = [dict(r) for r in rows]
        comma[5]["gold"] = "1,5"
        table(here / "comma.csv", comma, ["s1", "s2", "gold"])
        probe = [{"text": f"the {a} saw the {b} at {k}", "label": k % 2}
                 for k, (a, b) in enumerate((a, b) for a in nouns for b in nouns if a != b)]
        jsonl(here / "probe-boolint.jsonl", [dict(r, label=bool(r["label"]) if i % 3 else r["label"])
                                             for i, r in enumerate(probe)])
        jsonl(here / "probe-huge.jsonl", [dict(r, label=10 ** 30 + r["label"]) for r in probe])
        jsonl(here / "probe-list.jsonl", [dict(r, label=[1] if i == 4 else r["label"]) for i, r in enumerate(probe)])
        decl = here / "decl"
        decl.mkdir(exist_ok=True)
        good = 'kind = "pairs"\nsource = "../p.jsonl"\nname = "same"\n[columns]\na = "s1"\nb = "s2"\nscore = "gold"\n'
        (decl / "a.toml").write_text(good)
        (decl / "b.toml").write_text(good.replace("p.jsonl", "q.jsonl"))
        for tag, value in (("1e3", "1e3"), ("40.5", "40.5"), ("list", "[40]"), ("inf", "inf"), ("str", '"40"')):
            (here / f"boot-{tag}.toml").write_text(good.replace("../p", "p").replace('"same"', '"boot"')
                                                   + f"[options]\nbootstrap = {value}\n")
        (here / "empty").mkdir(exist_ok=True)
        _clean_run(here, fx, tasks=(f"pairs:{here}/p.jsonl{pairs_opts},subset=kind",), out="base")
        shutil.copy(here / "p.jsonl", here / "s.jsonl")  # the file a stale result is computed from
        _clean_run(here, fx, tasks=(f"pairs:{here}/s.jsonl{pairs_opts}",), out="stalebase")
        shutil.copytree(fx["model"], here / "loop")
        (here / "loop" / "back").symlink_to(here / "loop", target_is_directory=True)
        shutil.copytree(fx["model"], here / "fifo")
        os.mkfifo(here / "fifo" / "pipe")
        shutil.copytree(fx["model"], here / "dangling")
        (here / "dangling" / "gone").symlink_to(here / "nowhere")

    def run_(label: str, task: str, expect: str = "ok", out: str = "{here}/o", extra: list[str] = (),
             env: dict | None = None) -> Step:
        return Step(label, cli=["run", "--no-report", "--no-cache", "-m", "hashbag", "-o", out, "-t", task, *extra],
                    expect=expect, env=env or {})

    steps = []
    for name, expect in (("huge", "ok"), ("subnormal", "ok"), ("const", "fail"), ("boolgold", "fail"),
                         ("nullgold", "fail"), ("e400", "fail"), ("nanlit", "fail"), ("inflit", "fail"),
                         ("mixsubset", "fail"), ("boolsubset", "ok"), ("numsubset", "ok"), ("reserved", "fail"),
                         ("nested-dup", "fail"), ("case-key", "ok"), ("array-line", "fail"), ("crlf", "ok")):
        steps.append(run_(f"jsonl {name}", f"pairs:{{here}}/{name}.jsonl{pairs_opts},subset=kind"
                          if "subset" in name or name == "reserved" else f"pairs:{{here}}/{name}.jsonl{pairs_opts}",
                          expect, out=f"{{here}}/o-{name}"))
    exact = (
        "import json\n"
        "from fractions import Fraction as F\n"
        "from decimal import Decimal, getcontext\n"
        "from compeval.results import results_frame\n"
        "getcontext().prec = 40\n"
        "def exact(x, y):\n"
        "    x, y = [F(v) for v in x], [F(v) for v in y]\n"
        "    mx, my = sum(x) / len(x), sum(y) / len(y)\n"
        "    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))\n"
        "    r2 = sxy * sxy / (sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))\n"
        "    return float((Decimal(r2.numerator) / Decimal(r2.denominator)).sqrt()) * (1 if sxy > 0 else -1)\n"
    )
    for name in ("huge", "subnormal"):
        steps.append(Step(f"pearson on {name} golds is the exact value", py=exact + (
            f"(pf,) = (here / 'o-{name}').glob('*/*.predictions.jsonl')\n"
            "pred = [json.loads(l) for l in pf.read_text().splitlines()]\n"
            f"gold = [json.loads(l)['gold'] for l in (here / '{name}.jsonl').read_text().splitlines()]\n"
            "want = exact([r['score'] for r in pred], gold)\n"
            f"df = results_frame(here / 'o-{name}')\n"
            "got = float(df[(df.subset == 'all') & (df.metric == 'pearson')].value.iloc[0])\n"
            "print(got, want)\n"
            "rc = 0 if abs(got - want) < 1e-12 else 3\n")))
    steps.append(Step("pearson over float noise (swaps of an averaging model) is undefined", py=(
        "from compeval.results import results_frame\n"
        "df = results_frame(here / 'base')\n"
        "got = df[(df.subset == 'swap')].set_index('metric').value\n"
        "print(got.to_dict())\n"
        "rc = 0 if got.isna().all() else 3\n"
        "if rc: print('wrong number: pearson of float noise', file=__import__('sys').stderr)\n")))
    for name, expect in (("dup-head.csv", "fail"), ("dup-head.tsv", "fail"), ("sep.csv", "ok"), ("cr.csv", "ok"),
                         ("bom.csv", "ok"), ("latin.csv", "fail"), ("comma.csv", "fail")):
        steps.append(run_(f"table {name}", f"pairs:{{here}}/{name}{pairs_opts}", expect, out=f"{{here}}/o-{name}"))
    for name, expect in (("boolint", "fail"), ("huge", "ok"), ("list", "fail")):
        steps.append(run_(f"probe labels {name}", f"probe:{{here}}/probe-{name}.jsonl,text=text,label=label", expect,
                          out=f"{{here}}/o-probe-{name}"))
    for value, expect in (("true", "fail"), ("39", "fail"), ("40", "ok"), ("1e3", "fail"), ("-1", "fail"),
                          ("0x28", "fail"), ("", "fail"), ("nan", "fail"), ("40.0", "ok"), ("1000000000", "fail")):
        steps.append(Step(f"bootstrap={value!r} (plan)", expect=expect, cli=[
            "run", "--plan", "-m", "hashbag", "-o", "{here}/plan", "-t",
            f"pairs:{{here}}/p.jsonl,a=s1,b=s2,score=gold,bootstrap={value}"]))
    for tag, expect in (("1e3", "ok"), ("40.5", "fail"), ("list", "fail"), ("inf", "fail"), ("str", "ok")):
        steps.append(Step(f"toml bootstrap {tag} (plan)", expect=expect,
                          cli=["run", "--plan", "-m", "hashbag", "-o", "{here}/plan", "-t", f"{{here}}/boot-{tag}.toml"]))
    steps += [
        Step("tasks --path: two files, one name", cli=["tasks", "--path", "{here}/decl"]),
        Step("run: two data files under one task name", expect="fail",
             cli=["run", "--no-report", "--no-cache", "-m", "hashbag", "-o", "{here}/o-same", "-t",
                  "{here}/decl/a.toml", "-t", "{here}/decl/b.toml"]),
        Step("run: two data files under one name=", expect="fail", cli=[
            "run", "--no-report", "--no-cache", "-m", "hashbag", "-o", "{here}/o-same2", "-t",
            f"pairs:{{here}}/p.jsonl{pairs_opts},name=foo", "-t", f"pairs:{{here}}/q.jsonl{pairs_opts},name=foo"]),
        Step("run: one file under two option sets, one name=", cli=[
            "run", "--no-report", "--no-cache", "-m", "hashbag", "-o", "{here}/o-same3", "-t",
            f"pairs:{{here}}/p.jsonl{pairs_opts},name=foo", "-t", f"pairs:{{here}}/p.jsonl{pairs_opts},name=foo,norm=center"]),
    ]

    def edited(fn: Callable[[list], list]) -> Callable[[Path], None]:
        def prepare(here: Path) -> None:
            from compeval.results.store import content_checksum

            shutil.rmtree(here / "out", ignore_errors=True)
            shutil.copytree(here / "base", here / "out")
            (path,) = (here / "out").glob("*/*.json")
            pred = path.with_name(path.stem + ".predictions.jsonl")
            rows = fn([json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines()])
            pred.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            doc = json.loads(path.read_text(encoding="utf-8"))
            doc["predictions_sha256"] = hashlib.sha256(pred.read_bytes()).hexdigest()
            doc["checksum"] = None
            doc["checksum"] = content_checksum(doc)
            path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        return prepare

    def cell(key: str, value: Any, row: int = 1) -> Callable[[list], list]:
        def fn(rows: list) -> list:
            rows[row][key] = value
            return rows
        return fn

    attacks = [
        ("rows reversed", lambda r: r[::-1], "ok"),
        ("gold of two rows swapped", lambda r: [dict(x, gold=r[(i + 2) % 4]["gold"]) if i in (0, 2) else x
                                                for i, x in enumerate(r)], "fail"),
        ("sentence edited", cell("sentence_1", "the lawyer saw a witness"), "fail"),
        ("a new item", lambda r: r + [dict(r[0], item=len(r))], "fail"),
        ("one row twice, another dropped", lambda r: r[:1] + r[:1] + r[2:], "fail"),
        ("no rows", lambda r: [], "fail"),
        ("item 1 as text", cell("item", "1"), "fail"),
        ("item 1 as true", cell("item", True), "fail"),
        ("item 1 as [1]", cell("item", [1]), "fail"),
        ("item 1 as 1.5", cell("item", 1.5), "fail"),
        ("gold as a list", cell("gold", [1.0]), "fail"),
        ("score as an object", cell("score", {"a": 1}), "fail"),
        ("a row that is a JSON list", lambda r: r[:-1] + [[1, 2]], "fail"),
        ("every cell as text", lambda r: [{k: str(v) for k, v in x.items()} for x in r], "fail"),
    ]
    # (a prepared step's read-only check would see its own edit: the last state is verified once more, read-only)
    steps += [Step(f"verify: predictions {label}", cli=["verify", "{here}/out"], expect=expect,
                   prepare=edited(fn)) for label, fn, expect in attacks]
    steps.append(Step("verify: the last edit again, read-only", cli=["verify", "{here}/out"], expect="fail",
                      readonly="{here}/out"))

    def stale(here: Path) -> None:
        shutil.rmtree(here / "stale", ignore_errors=True)
        shutil.copytree(here / "stalebase", here / "stale")
        text = (here / "s.jsonl").read_text(encoding="utf-8")
        (here / "s.jsonl").write_text(text.replace('"gold": ', '"gold": 1', 1), encoding="utf-8")

    said = lambda argv, label: Step(label, expect="ok", py=(  # noqa: E731
        "from compeval.cli import main\n"
        "import sys, io, contextlib\n"
        "err = io.StringIO()\n"
        f"sys.argv = ['compeval', {argv[0]!r}, str(here / 'stale'), *{argv[1:]!r}]\n"
        "code = None\n"
        "with contextlib.redirect_stderr(err):\n"
        "    try: main()\n"
        "    except SystemExit as e: code = e.code\n"
        "print(err.getvalue())\n"
        "rc = 0 if code == 2 and 'left out' in err.getvalue() and 'stale' in err.getvalue() else 1\n"))
    steps += [
        Step("stale only: results", cli=["results", "{here}/stale"], expect="fail", prepare=stale),
        Step("stale only: --leaderboard", cli=["results", "{here}/stale", "--leaderboard"], expect="fail"),
        said(["results", "--leaderboard"], "stale only: the leaderboard says why"),
        said(["cite"], "stale only: cite says why"),
        Step("stale only: report", cli=["report", "{here}/stale", "-o", "{here}/r.html"], expect="fail"),
        Step("stale only: cite", cli=["cite", "{here}/stale"], expect="fail"),
        Step("stale only: verify", cli=["verify", "{here}/stale"], expect="fail", readonly="{here}/stale"),
        Step("cite: a folder that does not exist", cli=["cite", "{here}/nope"], expect="fail"),
        Step("cite: an empty folder", cli=["cite", "{here}/empty"], expect="fail"),
        Step("cite: a file", cli=["cite", "{here}/p.csv"], expect="fail"),
        Step("cite: a folder with a user task", cli=["cite", "{here}/base"]),
        Step("cite: everything", cli=["cite"]),
        Step("models: a typo of a packaged name", cli=["models", "all-MiniLM-L6-v3"], expect="fail"),
        Step("models: upper case", cli=["models", "HASHBAG"], expect="fail"),
        Step("models: a spec with options", cli=["models", "random,dim=8"], expect="fail"),
        Step("models: packaged glove-6b-50d", cli=["models", "glove-6b-50d"]),
        Step("models: packaged all-MiniLM-L6-v2", cli=["models", "all-MiniLM-L6-v2"]),
        Step("models: a family", cli=["models", "hashbag"]),
        *(Step(f"tasks {kind}", cli=["tasks", kind]) for kind in ("pairs", "triplets", "probe", "modifiers")),
        Step("tasks Pairs", cli=["tasks", "Pairs"], expect="fail"),
        Step("tasks with a data file", cli=["tasks", "{here}/p.jsonl"], expect="fail"),
        Step("tasks --path: not there", cli=["tasks", "--path", "{here}/nope"], expect="fail"),
        Step("tasks --path: a file", cli=["tasks", "--path", "{here}/p.csv"], expect="fail"),
        *(Step(f"results -f {f}", cli=["results", "{here}/base", "-f", f], readonly="{here}/base")
          for f in ("table", "csv", "json", "markdown", "latex")),
        Step("results -f bogus", cli=["results", "{here}/base", "-f", "bogus"], expect="fail"),
        Step("results --leaderboard -f markdown", cli=["results", "{here}/base", "--leaderboard", "-f", "markdown"]),
        Step("results --leaderboard -f csv", cli=["results", "{here}/base", "--leaderboard", "-f", "csv"]),
        Step("results --wide", cli=["results", "{here}/base", "--wide"]),
        run_("run --wide", f"pairs:{{here}}/p.jsonl{pairs_opts},subset=kind", out="{here}/base", extra=["--wide"]),
    ]
    for cols in ("0", "1", "20", "-5", "abc", "100000"):  # subprocesses: the terminal width is read at start
        steps.append(Step(f"run with COLUMNS={cols}", env={"COLUMNS": cols}, sub=[
            "run", "--no-report", "--no-cache", "-m", "hashbag", "-o", "{here}/base", "-t",
            f"pairs:{{here}}/p.jsonl{pairs_opts},subset=kind"]))
        steps.append(Step(f"results with COLUMNS={cols}", sub=["results", "{here}/base"], env={"COLUMNS": cols}))
    steps.append(Step("results with COLUMNS=0 names the model", py=(
        "import os, sys, subprocess, compeval\n"
        "src = os.path.dirname(os.path.dirname(compeval.__file__))\n"
        "r = subprocess.run([sys.executable, '-m', 'compeval.cli', 'results', str(here / 'base')], text=True,\n"
        "                   capture_output=True, env={**os.environ, 'COLUMNS': '0', 'PYTHONPATH': src})\n"
        "print(r.stdout)\n"
        "rc = 0 if any(l.strip() == 'hashbag' for l in r.stdout.splitlines()) else 1\n")))
    for folder, expect in (("loop", "fail"), ("fifo", "ok"), ("dangling", "ok")):
        steps.append(Step(f"model folder with {folder}", expect=expect, kill_after=300, sub=[
            "run", "--no-report", "--no-cache", "-m", f"hf:{{here}}/{folder}", "-o", "{here}/o-models", "-t",
            f"pairs:{{here}}/p.jsonl{pairs_opts}"]))
    return [Scenario("round4-hostile-pass", steps, setup)]

def round4_first_hour() -> list[Scenario]:
    """Issues 51 and 47 as a careless user meets them: quick results into their own folder (and a file in its
    way), ``--plan`` writing nothing under a fresh HOME, ``verify`` after the data folder the run read is
    renamed (its line names that folder), a non-default headline named in the ranking, and the between-type
    test's permutation count given as -1, true and 0."""
    real = os.environ.get("COMPEVAL_DATA_DIR", "/work/shared/data")
    quick = ["run", "--quick", "--no-report", "--no-cache", "-m", "hashbag", "--data-dir", real]

    def mkdirs(*names: str) -> Callable[[Path], None]:
        return lambda here: [(here / n).mkdir(parents=True, exist_ok=True) for n in names]

    def file_in_the_way(here: Path) -> None:
        (here / "f").mkdir(exist_ok=True)
        (here / "f" / "results-quick").write_text("")

    def own_data(here: Path, fx: dict) -> None:
        shutil.copytree(Path(fx["data"]) / "gs2011", here / "mydata" / "gs2011")

    first_hour = Scenario("round4-first-hour", [
        Step("quick into results-quick", cli=quick, cwd="{here}/q", prepare=mkdirs("q")),
        Step("quick wrote results-quick only", py=(
            "rc = 0 if (here / 'q' / 'results-quick').is_dir() and not (here / 'q' / 'results').exists() else 1\n")),
        Step("quick with a file named results-quick", expect="fail", cli=quick, cwd="{here}/f",
             prepare=file_in_the_way),
        Step("--plan --quick under a fresh HOME", cli=["run", "--plan", "--quick", "-m", "hashbag"],
             cwd="{here}/p", env={"HOME": "{here}/p/home", "COMPEVAL_DATA_DIR": "", "COMPEVAL_CACHE_DIR": ""},
             prepare=mkdirs("p/home")),
        Step("--plan wrote nothing", py="rc = 0 if list((here / 'p').rglob('*')) == [here / 'p' / 'home'] else 1\n"),
        Step("centred sts3k", cli=["run", "--no-report", "--no-cache", "-m", "hashbag", "-t", "sts3k,norm=center",
                                   "--data-dir", real, "-o", "{here}/c"]),
        Step("the ranking names norm=center", py=(
            "from compeval.report.loading import ResultsIndex\n"
            "from compeval.report.ranking import ranking\n"
            "labels = [r.label for r in ranking(ResultsIndex(here / 'c'))]\n"
            "print(labels)\n"
            "rc = 0 if labels and all('norm=center' in x for x in labels) else 3\n")),
        Step("modifiers-test3 permutations=-1", expect="fail",
             cli=["run", "--no-report", "-m", "hashbag", "-t", "modifiers-test3,permutations=-1", "--data-dir", real,
                  "-o", "{here}/m"]),
        Step("modifiers-test3 permutations=true", expect="fail",
             cli=["run", "--no-report", "-m", "hashbag", "-t", "modifiers-test3,permutations=true",
                  "--data-dir", real, "-o", "{here}/m"]),
        Step("modifiers-test3 permutations=0", cli=["run", "--no-report", "-m", "hashbag", "-t",
                                                    "modifiers-test3,permutations=0", "--data-dir", real,
                                                    "-o", "{here}/m"]),
    ])
    recorded = Scenario("round4-first-hour-verify", [
        Step("run from mydata", cli=["run", "--no-report", "--no-cache", "-m", "hashbag", "-t", "gs2011",
                                     "--data-dir", "{here}/mydata", "-o", "{here}/r"]),
        Step("verify reads the recorded folder", cli=["verify", "{here}/r", "--no-cache"],
             env={"COMPEVAL_DATA_DIR": ""}),
        Step("verify after it is renamed names it", py=(
            "import subprocess, sys, os\n"
            "(here / 'mydata').rename(here / 'moved')\n"
            "env = {**os.environ, 'COMPEVAL_DATA_DIR': '', 'PYTHONPATH': os.pathsep.join(sys.path)}\n"
            "p = subprocess.run([sys.executable, '-m', 'compeval', 'verify', str(here / 'r'), '--no-cache'],\n"
            "                   capture_output=True, text=True, env=env)\n"
            "print(p.stdout + p.stderr)\n"
            "rc = 0 if p.returncode == 1 and str(here / 'mydata') in p.stdout + p.stderr else 3\n")),
    ], setup=own_data)
    return [first_hour, recorded]


def round4_settings() -> list[Scenario]:
    """Run settings declared once (issue 49): a misspelt keyword, settings given twice, a file for a folder on
    both routes, and the keyword form and the RunContext form giving the same numbers."""
    api = "from compeval.context import RunContext\nfrom compeval.runner import run\n"

    def a_file(here: Path) -> None:
        here.mkdir(parents=True, exist_ok=True)
        (here / "bnc.xml").write_text("")

    return [Scenario("round4-settings", [
        Step("API run() sed=1", expect="fail", py=api + f"run(['hashbag'], [{T_GS!r}], here / 'a', sed=1)\nrc = 0\n"),
        Step("API run() RunContext and seed=", expect="fail", py=api + (
            f"run(['hashbag'], [{T_GS!r}], RunContext.for_run(here / 'a'), seed=1)\nrc = 0\n")),
        Step("API run() bnc_dir a file", expect="fail", prepare=a_file, py=api + (
            f"run(['hashbag'], [{T_GS!r}], here / 'a', bnc_dir=here / 'bnc.xml', cache_dir=None)\nrc = 0\n")),
        Step("--bnc-dir a file", expect="fail", prepare=a_file,
             cli=RUN + ["-m", "hashbag", "-t", T_GS, "-o", "{here}/b", "--no-cache", "--bnc-dir", "{here}/bnc.xml"]),
        Step("keywords and RunContext agree", py=api + (
            f"a = run(['hashbag'], [{T_GS!r}], here / 'k', data_dir=fx['data'], cache_dir=None, seed=2)\n"
            f"b = run(['hashbag'], [{T_GS!r}], RunContext.for_run(here / 'c', data_dir=fx['data'], cache_dir=None,\n"
            "                                                  seed=2))\n"
            "print(a.outcomes[0].main_score, b.outcomes[0].main_score)\n"
            "rc = 0 if a.outcomes[0].main_score == b.outcomes[0].main_score is not None else 3\n")),
    ])]


def round5_h49() -> list[Scenario]:
    """Issue 49's new surfaces, attacked: run settings of the wrong type or range on both routes, a RunContext
    built directly with folders compeval must not write to, plug-in factories of the old shape, a misspelt
    ``unrecorded``, an object adapter that raises, a result copied under another file name read through
    ``results_frame``, and a user task's file edited after the task was built."""
    api = "from compeval.context import RunContext\nfrom compeval.runner import run\n"
    base = ["-m", "hashbag", "-t", T_GS, "--no-cache"]

    def a_file(here: Path) -> None:
        here.mkdir(parents=True, exist_ok=True)
        (here / "afile").write_text("")

    def kw(setting: str) -> Step:
        return Step(f"API run() {setting}", expect="fail", py=api + (
            f"run(['hashbag'], [{T_GS!r}], here / 'a', data_dir=fx['data'], cache_dir=None, {setting})\nrc = 0\n"))

    def ctx(label: str, args: str) -> Step:
        return Step(f"API RunContext({label}) given whole", expect="fail", cwd="{here}", py=api + (
            f"run(['hashbag'], [{T_GS!r}], RunContext({args}))\nrc = 0\n"))  # cwd: '' and '.' write nowhere else

    old_factory = ("from compeval.models.registry import register_model\n"
                   "@register_model('oldshape', 1, 'old', ('oldshape',))\n"
                   "def _old(spec, builder, opts):\n    return None\nrc = 0\n")
    typo = ("from compeval.models.options import ModelOptions\nfrom compeval.models.registry import register_model\n"
            "class TypoOptions(ModelOptions):\n    scale: float = 1.0\n    unrecorded = ('scal',)\n"
            "register_model('typo', 1, 'typo', ('typo',), options=TypoOptions)\nrc = 0\n")
    adapter = api + ("import numpy as np\n"
                     "from compeval.models.protocol import OBJECT_ADAPTERS, register_object_adapter\n"
                     "OBJECT_ADAPTERS.load()\nstate = OBJECT_ADAPTERS.snapshot()\n"
                     "register_object_adapter('fragile')(lambda obj: obj.not_there)\n"
                     "class Mine:\n    def encode(self, texts):\n"
                     "        return np.ones((len(texts), 2), dtype=np.float32)\n"
                     f"try:\n    s = run([Mine()], [{T_GS!r}], here / 'o', data_dir=fx['data'], cache_dir=None)\n"
                     "finally:\n    OBJECT_ADAPTERS.restore(state)\n"
                     "print(s.outcomes[0].error)\nrc = 0 if s.outcomes[0].status == 'failed' else 3\n")
    copied = api + (
        "import shutil\nfrom compeval.results import results_frame\n"
        f"s = run(['hashbag'], [{T_GS!r}], here / 'o', data_dir=fx['data'], cache_dir=None)\n"
        "clean = results_frame(here / 'o')\np = s.outcomes[0].path\n"
        "shutil.copy(p, p.with_name('gs2011.json'))\n"
        "shutil.copy(p.with_suffix('.predictions.jsonl'), p.with_name('gs2011.predictions.jsonl'))\n"
        "shown = results_frame(here / 'o')\nprint(len(clean), len(shown))\nrc = 0 if shown.equals(clean) else 3\n")
    edited = api + (
        "from compeval.tasks.registry import get_tasks\n"
        "rows = ['a,b,score'] + [f'w{i} x{i % 3},w{i % 5} y,{i % 7}' for i in range(30)]\n"
        "(here / 'p.csv').write_text('\\n'.join(rows) + '\\n')\n"
        "[task] = get_tasks(f'pairs:{here}/p.csv')\n"
        "(here / 'p.csv').write_text('\\n'.join(rows[:1] + [r.rsplit(',', 1)[0] + ',1' for r in rows[1:]]) + '\\n')\n"
        "a = run(['hashbag'], [task], here / 'o1', cache_dir=None, report=False)\n"
        "(here / 'p.csv').write_text('\\n'.join(rows) + '\\n')\n"
        "b = run(['hashbag'], [f'pairs:{here}/p.csv'], here / 'o2', cache_dir=None, report=False)\n"
        "print(a.outcomes[0].main_score, b.outcomes[0].main_score)\n"
        "rc = 0 if a.outcomes[0].main_score == b.outcomes[0].main_score is not None else 3\n")
    return [Scenario("round5-h49-settings", [
        Step("--model-timeout nan", expect="fail", cli=RUN + base + ["-o", "{here}/a", "--model-timeout", "nan"]),
        Step("--model-timeout inf", expect="fail", cli=RUN + base + ["-o", "{here}/a", "--model-timeout", "inf"]),
        Step("--model-timeout 0", expect="fail", cli=RUN + base + ["-o", "{here}/a", "--model-timeout", "0"]),
        Step("--isolate --no-isolate --model-timeout 5", expect="fail",
             cli=RUN + base + ["-o", "{here}/a", "--isolate", "--no-isolate", "--model-timeout", "5"]),
        Step("--no-offline", expect="fail", cli=RUN + base + ["-o", "{here}/a", "--no-offline"]),
        Step("--batch-size 1.5", expect="fail", cli=RUN + base + ["-o", "{here}/a", "--batch-size", "1.5"]),
        Step("$COMPEVAL_BNC_DIR a file", expect="fail", prepare=a_file, env={"COMPEVAL_BNC_DIR": "{here}/afile"},
             cli=RUN + base + ["-o", "{here}/a"]),
        Step("$COMPEVAL_CACHE_DIR a file", expect="fail", prepare=a_file, env={"COMPEVAL_CACHE_DIR": "{here}/afile"},
             cli=RUN + ["-m", "hashbag", "-t", T_GS, "-o", "{here}/a"]),
        kw("overwrite='false'"), kw("download='no'"), kw("isolate='no'"), kw("batch_size='8'"), kw("batch_size=2.5"),
        kw("model_timeout=0"), kw("model_timeout=float('nan')"), kw("seed='1'"), kw("output_dir=here / 'b'"),
        ctx("no output_dir", "data_dir=fx['data']"),
        ctx("output inside the data folder", "output_dir=Path(fx['data']) / 'gs2011' / 'out', data_dir=fx['data']"),
        ctx("cache inside the data folder", "output_dir=here / 'o', cache_dir=fx['data'], data_dir=fx['data']"),
        ctx("output_dir ''", "output_dir='', data_dir=fx['data']"),
        ctx("output_dir .", "output_dir='.', data_dir=fx['data']"),
        Step("API RunContext(seed=numpy int) given whole", py=api + (
            "import numpy as np\n"
            f"a = run(['hashbag'], [{T_GS!r}], RunContext(output_dir=here / 'n', data_dir=fx['data'],\n"
            "                                               seed=np.int64(2)))\n"
            f"b = run(['hashbag'], [{T_GS!r}], here / 'm', data_dir=fx['data'], cache_dir=None, seed=2)\n"
            "rc = 0 if a.outcomes[0].main_score == b.outcomes[0].main_score is not None else 3\n")),
    ]), Scenario("round5-h49-plugins", [
        Step("register_model: a factory (spec, builder, opts)", expect="fail", py=old_factory),
        Step("register_model: unrecorded names no option", expect="fail", py=typo),
        Step("an object adapter that raises fails its model alone", py=adapter),
        Step("results_frame: a result copied under the default options' name", py=copied),
        Step("a user task's file edited after the task was built", py=edited),
    ])]


def round6_h50() -> list[Scenario]:
    """Issue 50's new surfaces, attacked: ``--threads`` out of range on every route (CLI, ``run()``, a RunContext,
    with ``--isolate`` and ``--executor ray``), a garbage OMP_NUM_THREADS, and a user task whose ``staged``
    returns no call, a rest that returns no TaskOutput or calls the model, and two runs in two threads."""
    api = "from compeval.context import RunContext\nfrom compeval.runner import run\n"
    base = ["-m", "hashbag", "-t", T_GS, "--no-cache"]
    staging = api + (
        "import json, threading\nfrom compeval.results.schema import Score\n"
        "from compeval.tasks.base import Task, TaskMetadata, TaskOutput\n"
        "def out():\n    return TaskOutput(scores=[Score(subset='all', metric='x', value=1.0, n=2)], n_items=2)\n"
        "def task(name, staged):\n"
        "    class T(Task):\n"
        "        metadata = TaskMetadata(name=name, suite='test', description='hostile', main_metric='x')\n"
        "        def texts(self):\n            return ['a dog runs', 'a cat sleeps']\n"
        "        def evaluate(self, model, *, seed):\n            return self.staged(model, seed=seed)()\n"
        "    T.staged = lambda self, model, *, seed: staged(model)\n    return T()\n"
        "def fine(model):\n    model.encode(['a dog runs'])\n    return out\n")

    def one_job_fails(label: str, staged: str, error: str) -> Step:
        return Step(label, py=staging + (
            f"s = run(['hashbag'], [task('bad', {staged}), task('fine', fine)], here / {label!r}, cache_dir=None)\n"
            "by = {o.task: o for o in s.outcomes}\nprint(by['bad'].error)\n"
            f"rc = 0 if by['fine'].status == 'done' and (by['bad'].error or '').startswith({error!r}) else 3\n"))

    def kw(setting: str) -> Step:
        return Step(f"API run() {setting}", expect="fail", py=api + (
            f"run(['hashbag'], [{T_GS!r}], here / 'a', data_dir=fx['data'], cache_dir=None, {setting})\nrc = 0\n"))

    two_runs = staging + (
        "meet = threading.Barrier(2)\n"
        "def both(model):\n    meet.wait(10)\n    return lambda: meet.wait(10) and out() or out()\n"
        "got = {}\n"
        "def one(setting):\n"
        "    s = run(['hashbag'], [task('meet', both)], here / setting, cache_dir=None, threads=setting)\n"
        "    got[setting] = json.loads(s.outcomes[0].path.read_text())['environment']['threads_setting']\n"
        "ts = [threading.Thread(target=one, args=(x,)) for x in ('1', 'auto')]\n"
        "[t.start() for t in ts]\n[t.join(20) for t in ts]\nprint(got)\n"
        "rc = 0 if got == {'1': '1', 'auto': 'auto'} else 3\n")
    return [Scenario("round6-h50-threads", [
        *[Step(f"--threads {v!r}", expect="fail", cli=RUN + base + ["-o", "{here}/a", "--threads", v])
          for v in ("0", "-1", "abc", "1.5", "", "1025", "99999999999999999999")],
        Step("--threads 0 --isolate", expect="fail",
             cli=RUN + base + ["-o", "{here}/a", "--threads", "0", "--isolate"]),
        Step("--threads x --executor ray", expect="fail",
             cli=RUN + base + ["-o", "{here}/a", "--threads", "x", "--executor", "ray"]),
        Step("--threads 1 --isolate", cli=RUN + base + ["-o", "{here}/i", "--threads", "1", "--isolate"],
             compare="{here}/i"),
        Step("OMP_NUM_THREADS=garbage", sub=RUN + base + ["-o", "{here}/g"], env={"OMP_NUM_THREADS": "garbage"},
             compare="{here}/g"),
        kw("threads=0"), kw("threads=True"), kw("threads=2.5"), kw("threads=10 ** 30"), kw("threads=None"),
        Step("API RunContext(threads='nope') given whole", expect="fail", py=api + (
            f"run(['hashbag'], [{T_GS!r}], RunContext(output_dir=here / 'r', data_dir=fx['data'], threads='nope'))\n"
            "rc = 0\n")),
    ]), Scenario("round6-h50-staged", [
        one_job_fails("staged() returns no call", "lambda model: 5", "task bad: staged() returned a int"),
        one_job_fails("a rest returns no TaskOutput", "lambda model: (lambda: {'scores': []})",
                      "task bad: its evaluation returned a dict, not a TaskOutput"),
        one_job_fails("a rest calls the model", "lambda model: (lambda: (model.encode(['a zebra']), out())[1])",
                      "task bad: its staged() rest called the model"),
        Step("two runs in two threads record their own --threads", py=two_runs),
    ])]


def all_scenarios() -> list[Scenario]:
    return (malformed() + edited_results() + damaged_data() + damaged_vectors() + model_folder() + outputs()
            + secrets() + kill_and_resume() + relative_paths() + python_objects() + clean_repeats()
            + round4_numerics() + round4_verify() + round4_names() + round4_hostile_pass() + round4_first_hour()
            + round4_settings() + round5_h49() + round6_h50())


# --- driver -----------------------------------------------------------------------------------------------

def _worker(names: list[str], fx: dict, queue) -> None:
    FX.update(fx)
    by_name = {sc.name: sc for sc in all_scenarios()}
    for name in names:
        try:
            for outcome in run_scenario(by_name[name], fx):
                queue.put(outcome)
        except Exception as exc:  # noqa: BLE001 - the harness itself
            queue.put(Outcome(name, "harness", 99, 0.0, ["unexpected"], f"harness error: {exc!r}"))
    queue.put(None)


def main() -> None:
    global SRC
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", default="", help="run only scenarios whose name starts with this")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--src", type=Path, default=SRC, help="the compeval source tree to attack (default: "
                        "this checkout's src/; another branch's for a before/after count)")
    args = parser.parse_args()
    SRC = args.src.resolve()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ["HF_HUB_OFFLINE"] = "1"
    sys.path.insert(0, str(SRC))
    work = args.workdir or Path(tempfile.mkdtemp(prefix="compeval-hostile-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["COMPEVAL_CACHE_DIR"] = str(work / "cache")
    t0 = time.perf_counter()
    fx = build_fixtures(work)
    FX.update(fx)
    print(f"fixtures ready in {time.perf_counter() - t0:.0f}s ({work})", flush=True)
    names = [sc.name for sc in all_scenarios() if sc.name.startswith(args.only)]
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    shares = [names[i::args.workers] for i in range(args.workers)]
    procs = [ctx.Process(target=_worker, args=(share, fx, queue)) for share in shares if share]
    for p in procs:
        p.start()
    outcomes: list[Outcome] = []
    running = len(procs)
    while running:
        item = queue.get()
        if item is None:
            running -= 1
            continue
        outcomes.append(item)
        mark = "ok " if not item.problems else "BAD"
        print(f"  {mark} [{item.scenario}] {item.label} (rc {item.rc}, {item.seconds:.1f}s)"
              + (f" {','.join(item.problems)}" if item.problems else ""), flush=True)
    for p in procs:
        p.join()
    counts = {c: sum(c in o.problems for o in outcomes) for c in CATEGORIES}
    print(f"\n{len(outcomes)} invocations in {time.perf_counter() - t0:.0f}s; "
          f"{sum(not o.problems for o in outcomes)} clean")
    for c in CATEGORIES:
        print(f"  {c:13} {counts[c]}")
    bad = [o for o in outcomes if o.problems]
    if bad:
        print("\nnon-clean cases:")
        for o in sorted(bad, key=lambda o: (o.scenario, o.label)):
            print(f"  [{','.join(o.problems)}] {o.scenario}: {o.label} (rc {o.rc}) — {o.excerpt}")
    if not args.keep and args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
