"""SIGKILL the driver of a Ray run midway; the re-run completes only the missing jobs, with the local results.

The cluster is a ``ray start --head`` subprocess (so it outlives the killed driver); the run is the CLI.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from grid_support import GRID, MODELS, N_JOBS, require_ray

from compeval.results.compare import differences

pytestmark = pytest.mark.integration
ray = require_ray()  # skips this module without Ray (fails instead with COMPEVAL_REQUIRE_RAY=1)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        for c in children.get(pid, []):
            out.append(c)
            todo.append(c)
    return out


def _task_workers(head_pid: int) -> list[str]:
    """Titles of the cluster's worker processes busy with (or holding) a task of some driver."""
    titles = []
    for pid in _descendants(head_pid):
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        if title.startswith("ray::") and "Agent" not in title and "IDLE" not in title:
            titles.append(title)
    return titles


def _results(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.glob("*/*.json")}


@pytest.fixture()
def ray_head(tmp_path):
    temp_dir = tempfile.mkdtemp(prefix="ce-ray-", dir="/tmp")  # Ray's socket paths must stay short
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "COLUMNS": "400", "RAY_USAGE_STATS_ENABLED": "0"}
    log = open(tmp_path / "ray_head.log", "w")
    head = subprocess.Popen(
        [sys.executable, "-c", "from ray.scripts.scripts import main; main()", "start", "--head", "--block",
         f"--port={_free_port()}", "--num-cpus=2", "--include-dashboard=false", f"--temp-dir={temp_dir}",
         "--disable-usage-stats"],
        stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        address = None
        while address is None:
            text = (tmp_path / "ray_head.log").read_text()
            found = re.search(r"--address='([^']+)'", text)
            address = found.group(1) if found else None
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start --head did not come up:\n{text}")
            time.sleep(0.2)
        yield head, address, env
    finally:
        head.send_signal(signal.SIGTERM)  # `ray start --block` stops its cluster on SIGTERM
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(head.pid, signal.SIGKILL)  # whatever of that cluster is left (our process group only)
        except (ProcessLookupError, PermissionError):
            pass
        log.close()
        shutil.rmtree(temp_dir, ignore_errors=True)


def _cli(out: Path, cache: Path, data_dir: Path, address: str) -> list[str]:
    args = [sys.executable, "-m", "compeval.cli", "run", "-o", str(out), "--cache-dir", str(cache),
            "--data-dir", str(data_dir), "--executor", "ray", "--ray-address", address,
            "--verbose", "--no-report"]  # --verbose: a line per job (done / skipped), which this test reads
    for m in MODELS:
        args += ["-m", m]
    for t in GRID:
        args += ["-t", t]
    return args


def test_killed_driver_resumes_only_missing_jobs(local_grid, ray_head, data_dir, tmp_path):
    head, address, env = ray_head
    out, cache = tmp_path / "results", tmp_path / "cache"
    args = _cli(out, cache, data_dir, address)

    with open(tmp_path / "killed.log", "w") as log:
        driver = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 600
        while not _results(out):
            if driver.poll() is not None or time.monotonic() > deadline:
                driver.kill()
                pytest.fail(f"the run ended (or hung) before any result:\n{(tmp_path / 'killed.log').read_text()}")
            time.sleep(0.05)
        driver.send_signal(signal.SIGKILL)
        driver.wait()

    # The cluster outlives the driver but stops that driver's workers; wait for them, then for the folder.
    deadline = time.monotonic() + 120
    while Path("/proc").is_dir() and _task_workers(head.pid):
        assert time.monotonic() < deadline, f"workers of the killed driver still run: {_task_workers(head.pid)}"
        time.sleep(0.5)
    finished = _results(out)
    time.sleep(2)
    assert _results(out) == finished, "results kept appearing after the driver was killed"
    assert 0 < len(finished) < N_JOBS, finished
    print(f"driver killed with {len(finished)} of {N_JOBS} jobs finished")
    mtimes = {f: (out / f).stat().st_mtime_ns for f in finished}

    rerun = subprocess.run(args, capture_output=True, text=True, env=env, timeout=900)
    assert rerun.returncode == 0, rerun.stderr
    skipped = set(re.findall(r"skipped (\S+) × (\S+): result exists", rerun.stderr))
    done = set(re.findall(r"done (\S+) × (\S+) \(", rerun.stderr))
    # Results live in <display name>-<configuration id hash>/<task>.json; the screen shows the display name.
    finished_jobs = {(Path(f).parent.name.rsplit("-", 1)[0], Path(f).stem) for f in finished}
    assert skipped == finished_jobs
    assert len(done) == N_JOBS - len(finished) and not done & finished_jobs
    summary = " ".join(rerun.stderr.split())
    assert f"{N_JOBS - len(finished)} job(s) done, {len(finished)} skipped" in summary and " 0 failed" in summary
    assert {f: (out / f).stat().st_mtime_ns for f in finished} == mtimes  # finished jobs were not redone
    assert differences(local_grid[0], out) == []
