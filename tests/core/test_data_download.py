"""Data on a fresh machine: the real download code against a local mirror of the upstream files (through
``COMPEVAL_DATA_MIRROR``), derived files rebuilt from the real upstream spreadsheet and notebook, failures
that leave nothing partial, and a model prefetched from a fake Hub endpoint then used offline."""
from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from data_mirror import FakeHub, Mirror, free_port, upstream_layout

from compeval.data import download as dl
from compeval.data.registry import SOURCES, DataContext, DataFile, DataSource, get_source, register_source
from compeval.errors import DataError, MissingDataError

REV = "c310abbe8a50f38135a67939d3e71a878ef359bb"
SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    """No data folder, no mirror (and whatever a test's CLI code sets, e.g. --data-mirror, undone after)."""
    monkeypatch.delenv("COMPEVAL_DATA_DIR", raising=False)
    monkeypatch.setenv(dl.MIRROR_ENV, "")  # recorded, so that the teardown restores the variable's absence
    monkeypatch.delenv(dl.MIRROR_ENV)
    dl.forget_unreachable()
    yield
    dl.forget_unreachable()


def _leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


# -- derivation ---------------------------------------------------------------------------------------------

def test_derivation_from_real_upstream_files_reproduces_shared_files_byte_for_byte(data_dir):
    built = {}
    for f in get_source("sts3k-ratings").files:
        inputs = [data_dir / "sts3k" / u.path for u in f.derived.inputs]
        assert [hashlib.sha256(p.read_bytes()).hexdigest() for p in inputs] == [u.sha256 for u in f.derived.inputs]
        built[f.path] = f.derived.build(inputs)
        assert built[f.path] == (data_dir / "sts3k" / f.path).read_bytes()
        assert hashlib.sha256(built[f.path]).hexdigest() == f.sha256
    assert built["STS3k_ratings_long.tsv"].count(b"\n") == 60_121  # header + 60,120 ratings
    assert sum(map(len, json.loads(built["STS3k_only_mod_modifier_type_indices.json"])["indices"].values())) == 242


def test_notebook_lists_are_read_as_literals_never_run(tmp_path):
    from compeval.tasks.structure.sources import TYPES_CELL, modifier_type_indices

    cells = [{"cell_type": "code", "source": ""} for _ in range(TYPES_CELL)]
    code = "import os\nplaces = [1, 2]\n" + "\n".join(
        f"{v} = [3]" for v in ("times", "manner", "IOBJ", "SUBJ_adj", "DOBJ_adj", "IOBJ_adj"))
    nb = tmp_path / "nb.ipynb"
    nb.write_text(json.dumps({"cells": cells + [{"cell_type": "code", "source": code + "\npassive = [4]"}]}))
    out = json.loads(modifier_type_indices([nb]))
    assert out["indices"]["PLACE"] == [1, 2] and out["indices"]["PASSIVE"] == [4]
    nb.write_text(json.dumps({"cells": cells + [{"cell_type": "code", "source": code + "\npassive = os.system('x')"}]}))
    with pytest.raises(ValueError):  # a call is not a literal: rejected, not executed
        modifier_type_indices([nb])


def test_derived_file_in_data_dir_is_accepted_or_names_the_upstream_file(data_dir, tmp_path):
    ok = DataContext(data_dir, download=False, cache_dir=tmp_path / "c")
    assert ok.path("sts3k-ratings", "STS3k_only_mod_modifier_type_indices.json").parent == data_dir / "sts3k"
    # a derived file that does not match: one line naming the upstream file to put there
    mine = tmp_path / "mine"
    (mine / "sts3k").mkdir(parents=True)
    (mine / "sts3k" / "STS3k_only_mod_modifier_type_indices.json").write_text("{}")
    with pytest.raises(DataError, match=r"derives from upstream.*Check_split_half_reliability\.ipynb at "
                                        r".*sts3k/upstream/Check_split_half_reliability\.ipynb") as err:
        DataContext(mine, download=False, cache_dir=tmp_path / "c").path(
            "sts3k-ratings", "STS3k_only_mod_modifier_type_indices.json")
    assert "\n" not in str(err.value)
    # absent, offline, no upstream file either: says which upstream file to put where
    (mine / "sts3k" / "STS3k_only_mod_modifier_type_indices.json").unlink()
    with pytest.raises(MissingDataError, match=r"built from upstream upstream/Check_split_half_reliability\.ipynb.*"
                                               r"--offline.*raw\.githubusercontent\.com.*"):
        DataContext(mine, download=False, cache_dir=tmp_path / "c").path(
            "sts3k-ratings", "STS3k_only_mod_modifier_type_indices.json")
    # the upstream notebook put there: derived into the cache, offline, and verified
    (mine / "sts3k" / "upstream").mkdir()
    nb = data_dir / "sts3k" / "upstream" / "Check_split_half_reliability.ipynb"
    (mine / "sts3k" / "upstream" / nb.name).write_bytes(nb.read_bytes())
    ctx = DataContext(mine, download=False, cache_dir=tmp_path / "c")
    got = ctx.path("sts3k-ratings", "STS3k_only_mod_modifier_type_indices.json")
    assert got == tmp_path / "c" / "sts3k" / "STS3k_only_mod_modifier_type_indices.json"
    assert ctx.used["sts3k-ratings"].verified is True


# -- the full default data set through the mirror ------------------------------------------------------------

@pytest.fixture(scope="module")
def mirror():
    root = os.environ.get("COMPEVAL_DATA_DIR")
    if not root or not Path(root).is_dir():
        pytest.skip("COMPEVAL_DATA_DIR is not set to the shared data folder")
    server = Mirror(upstream_layout(Path(root)))
    yield server
    server.stop()


def _cli(args: list[str], env: dict[str, str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("COMPEVAL_DATA_DIR", dl.MIRROR_ENV)}
    full.update(env, PYTHONPATH=str(SRC), COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "compeval", *args], env=full, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def test_default_data_downloads_verifies_and_runs_structure_tasks_offline(mirror, data_dir, tmp_path):
    env = {dl.MIRROR_ENV: mirror.url, "COMPEVAL_CACHE_DIR": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}
    r = _cli(["download", "-m", "random"], env, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "MB downloaded now" in r.stdout and "downloading sts3k-ratings: upstream/STS3k_all_participant_data.xlsx" in r.stderr
    # every default data set is in the cache, byte for byte the shared copy (derived files included)
    from compeval.cli.data import default_tasks, task_sources

    names = {s for t in default_tasks(Console(file=io.StringIO())) for s in task_sources(t)}
    assert {"sts3k", "sts3k-ratings", "sts3k-parses", "stsb", "sick", "ettinger2018_compeval"} <= names
    for name in names:
        src = SOURCES[name]
        for f in src.files:
            cached = tmp_path / "cache" / "data" / (src.folder or name) / f.path
            assert cached.read_bytes() == (data_dir / (src.folder or name) / f.path).read_bytes(), cached
    assert not [p for p in (tmp_path / "cache" / "data").rglob(".*.part")]
    # the same run offline, no mirror: equal to the run on the shared data folder
    run_args = ["run", "-m", "random", "-t", "sts3k-reliability", "-t", "sts3k-types", "--no-report"]
    offline = _cli([*run_args, "--offline", "-o", str(tmp_path / "a")],
                   {"COMPEVAL_CACHE_DIR": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}, tmp_path)
    assert offline.returncode == 0, offline.stderr
    from compeval.runner import run

    run(["random"], ["sts3k-reliability", "sts3k-types"], tmp_path / "b", data_dir=data_dir, cache_dir=None)
    for task in ("sts3k-reliability", "sts3k-types"):
        a = json.loads(next((tmp_path / "a").glob(f"*/{task}.json")).read_text())
        b = json.loads(next((tmp_path / "b").glob(f"*/{task}.json")).read_text())
        assert a["scores"] == b["scores"] and a["counts"] == b["counts"]
        assert all(d["verified"] for d in a["data"])
        assert "sts3k-ratings" in {d["source"] for d in a["data"]}
        for d in a["data"]:
            assert d["files"] and all(SOURCES[d["source"]].file(rel).sha256 == sha for rel, sha in d["files"].items())


# -- failures: one line, nothing partial ---------------------------------------------------------------------

@pytest.fixture()
def tiny(tmp_path):
    """A registered one-file data set served by its own mirror."""
    payload = bytes(range(256)) * 40
    server = Mirror({f"/org/repo/{REV}/pairs.bin": payload})
    src = DataSource("tiny-test-source", "test", "https://example.org", REV, "none",
                     (DataFile("pairs.bin", f"https://raw.githubusercontent.com/org/repo/{REV}/pairs.bin",
                               hashlib.sha256(payload).hexdigest()),))
    register_source(src)
    yield server, payload, DataContext(cache_dir=tmp_path / "c", mirror=server.url)
    SOURCES.pop("tiny-test-source")
    server.stop()


def test_mirror_download_and_a_resumed_partial_file(tiny, tmp_path):
    server, payload, ctx = tiny
    dest = tmp_path / "c" / "tiny-test-source" / "pairs.bin"
    dest.parent.mkdir(parents=True)
    (dest.parent / ".pairs.bin.part").write_bytes(payload[:1000])  # a killed earlier download
    assert ctx.path("tiny-test-source", "pairs.bin").read_bytes() == payload
    assert server.requests == [(f"/org/repo/{REV}/pairs.bin", "bytes=1000-")]
    assert ctx.downloaded == len(payload) - 1000 and _leftovers(dest.parent) == [dest]


def test_connection_cut_once_resumes(tiny, tmp_path):
    server, payload, ctx = tiny
    server.faults[f"/org/repo/{REV}/pairs.bin"] = "cut_once"
    assert ctx.path("tiny-test-source", "pairs.bin").read_bytes() == payload
    assert [r for _, r in server.requests] == [None, f"bytes={len(payload) // 2}-"]


@pytest.mark.parametrize("fault, message", [
    ("corrupt", r"has SHA-256 .*, not the pinned .*changed upstream or the download was corrupted"),
    ("404", r"answered 404 Not Found"),
    ("cut", r"broke off 3 times .*nothing was kept"),
])
def test_bad_downloads_give_one_line_and_leave_nothing(tiny, tmp_path, fault, message):
    server, payload, ctx = tiny
    server.faults[f"/org/repo/{REV}/pairs.bin"] = fault
    with pytest.raises(DataError, match=message) as err:
        ctx.path("tiny-test-source", "pairs.bin")
    assert "\n" not in str(err.value) and "tiny-test-source" in str(err.value)
    assert _leftovers(tmp_path / "c") == []


def test_server_down_is_no_network_within_seconds(tmp_path, tiny):
    _, _, _ = tiny
    ctx = DataContext(cache_dir=tmp_path / "c", mirror=f"http://127.0.0.1:{free_port()}")
    t0 = time.perf_counter()
    with pytest.raises(dl.NoNetworkError, match=r"cannot reach 127\.0\.0\.1:\d+ .*compeval download"):
        ctx.path("tiny-test-source", "pairs.bin")
    with pytest.raises(dl.NoNetworkError):  # the host is remembered: no second wait
        ctx.path("tiny-test-source", "pairs.bin")
    assert time.perf_counter() - t0 < 5
    assert _leftovers(tmp_path / "c") == []


def test_full_disk_gives_one_line_and_leaves_nothing(tiny, tmp_path, monkeypatch):
    _, payload, ctx = tiny

    class Full(io.BytesIO):
        def write(self, b):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    real_open = open

    def full_open(path, mode="r", *a, **k):
        real_open(path, mode, *a, **k).close()  # the partial file exists, as on a real disk
        return Full()

    monkeypatch.setattr(dl, "open", full_open, raising=False)
    with pytest.raises(DataError, match=r"cannot write .*pairs\.bin: No space left on device \(the file is "):
        ctx.path("tiny-test-source", "pairs.bin")
    assert _leftovers(tmp_path / "c") == []


def test_a_cached_file_with_the_wrong_hash_is_fetched_again(tiny, tmp_path):
    server, payload, ctx = tiny
    dest = tmp_path / "c" / "tiny-test-source" / "pairs.bin"
    dest.parent.mkdir(parents=True)
    dest.write_bytes(b"damaged")
    with pytest.warns(UserWarning, match="wrong SHA-256; fetching it again"):
        assert ctx.path("tiny-test-source", "pairs.bin").read_bytes() == payload


def test_mirror_without_scheme_is_one_line(tmp_path):
    with pytest.raises(DataError, match=r"'mirror\.example\.org/gh' .*is not an http\(s\) URL.*https://mirror"):
        DataContext(cache_dir=tmp_path, mirror="mirror.example.org/gh")
    r = _cli(["run", "-m", "random", "-t", "gs2011", "--data-mirror", "mirror.example.org"], {}, tmp_path, 60)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "not an http(s) URL" in r.stderr


# -- the run's data step without network ---------------------------------------------------------------------

def test_default_run_skips_what_it_cannot_get_and_named_tasks_fail(tmp_path, monkeypatch):
    from compeval.cli.data import prepare_run

    monkeypatch.setenv("COMPEVAL_CACHE_DIR", str(tmp_path / "cache"))
    buf = io.StringIO()
    console = Console(file=buf, width=300)
    t0 = time.perf_counter()
    got = prepare_run(["random"], None, None, offline=False, mirror=f"http://127.0.0.1:{free_port()}",
                      console=console)
    assert time.perf_counter() - t0 < 30
    lines = [x for x in buf.getvalue().splitlines() if x.startswith("skipped")]
    assert len(lines) == 1 and "no network: cannot reach 127.0.0.1" in lines[0] and "compeval download" in lines[0]
    slugs = [t.slug for t in got.tasks]  # the tasks, built once from their specs
    assert "sts3k-reliability" in lines[0] and "sts3k" not in slugs and "minimal-pairs" in slugs
    assert got.failed == [] and [str(m) for m in got.models] == ["random"]
    # counted at the end of the run by a short reason (issue 36), the full line kept beside it
    [sts3k] = [n for n in got.not_run if n.task == "sts3k"]
    assert sts3k.reason.startswith("without their data (no network: cannot reach 127.0.0.1") and sts3k.detail in lines[0]
    named = prepare_run(["random"], ["sts3k", "minimal-pairs"], None, offline=True, mirror=None, console=console)
    assert [t.slug for t in named.tasks] == ["minimal-pairs"] and [t for t, _ in named.failed] == ["sts3k"]
    assert "--offline" in named.failed[0][1]
    # a suite named whose tasks partly lack data: the others still run, the rest fail by name
    suite = prepare_run(["random"], ["structure"], None, offline=True, mirror=None, console=console)
    kept = {t.slug for t in suite.tasks}
    assert "minimal-pairs" in kept and "sts3k-types" in {t for t, _ in suite.failed}
    assert not kept & {t for t, _ in suite.failed}


# -- model prefetch through a fake Hub endpoint ---------------------------------------------------------------

def test_download_prefetches_a_hub_model_then_runs_with_hf_hub_offline(mirror, tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
    from hub_fakes import build_sbert

    repo, commit = "org/tiny-sbert", "1" * 40
    hub = FakeHub({repo: (commit, build_sbert(tmp_path / "model"))})
    try:
        env = {"HF_ENDPOINT": hub.url, "HF_HUB_CACHE": str(tmp_path / "hub"), dl.MIRROR_ENV: mirror.url,
               "COMPEVAL_CACHE_DIR": str(tmp_path / "cache")}
        r = _cli(["download", "-t", "gs2011", "-m", repo], {**env, "HF_HUB_OFFLINE": "0"}, tmp_path)
        assert r.returncode == 0, r.stderr
        snapshot = tmp_path / "hub" / "models--org--tiny-sbert" / "snapshots" / commit
        assert f"model {repo}: " in r.stdout and str(snapshot) in r.stdout and "total: " in r.stdout
        assert any(q.startswith("GET /org/tiny-sbert/resolve/") for q in hub.requests)
    finally:
        hub.stop()
    offline = {**env, "HF_HUB_OFFLINE": "1", dl.MIRROR_ENV: f"http://127.0.0.1:{free_port()}"}
    r = _cli(["run", "-t", "gs2011", "-m", repo, "--no-report", "-o", str(tmp_path / "out")], offline, tmp_path)
    assert r.returncode == 0, r.stderr
    result = json.loads(next((tmp_path / "out").glob("*/gs2011.json")).read_text())
    assert result["model"]["params"]["weights"] == f"hf:{repo}@{commit}" and result["data"][0]["verified"]
