"""Data registry: local folders, verified downloads into the cache, and what a miss says."""
import hashlib

import pytest

from data_mirror import Mirror

from compeval.data.registry import SOURCES, DataContext, DataFile, DataSource, register_source
from compeval.errors import DataError, MissingDataError


@pytest.fixture()
def fake_source(tmp_path):
    """A one-file data set whose URL is served by an HTTP server on 127.0.0.1 (files under ``remote``)."""
    remote = tmp_path / "remote"
    remote.mkdir()
    payload = b"a;b;0.5\n"
    (remote / "pairs.txt").write_bytes(payload)
    server = Mirror({"/org/repo/abc123/pairs.txt": remote / "pairs.txt"})
    src = DataSource("fake-test-source", "test", "https://example.org", "abc123", "none",
                     (DataFile("pairs.txt", f"{server.url}/org/repo/abc123/pairs.txt",
                               hashlib.sha256(payload).hexdigest()),))
    register_source(src)
    yield src, remote
    SOURCES.pop("fake-test-source")
    server.stop()


def test_download_verifies_hash_and_caches(tmp_path, fake_source, monkeypatch):
    monkeypatch.delenv("COMPEVAL_DATA_DIR", raising=False)
    ctx = DataContext(cache_dir=tmp_path / "dl")
    path = ctx.path("fake-test-source", "pairs.txt")
    assert path.read_bytes() == b"a;b;0.5\n" and path.is_relative_to(tmp_path / "dl")
    assert ctx.used["fake-test-source"].verified is True


def test_download_with_wrong_hash_saves_nothing(tmp_path, fake_source, monkeypatch):
    monkeypatch.delenv("COMPEVAL_DATA_DIR", raising=False)
    src, remote = fake_source
    (remote / "pairs.txt").write_bytes(b"tampered\n")
    ctx = DataContext(cache_dir=tmp_path / "dl")
    with pytest.raises(DataError, match="SHA-256 .*, not the pinned .*Nothing was saved"):
        ctx.path("fake-test-source", "pairs.txt")
    assert not (tmp_path / "dl" / "fake-test-source" / "pairs.txt").exists()


def test_missing_data_directory_is_a_clear_error(tmp_path):
    with pytest.raises(MissingDataError, match="does not exist"):
        DataContext(tmp_path / "nope")


def test_missing_file_in_data_dir_offline_says_what_and_how(tmp_path):
    (tmp_path / "sts3k").mkdir()
    ctx = DataContext(tmp_path, download=False, cache_dir=tmp_path / "cache")
    with pytest.raises(MissingDataError, match=r"sts3k.*STS3k_all.txt is not in .*sts3k or .*cache/sts3k.*--offline.*"
                                               r"copy https://raw.githubusercontent.com/bmmlab/.*compeval download"):
        ctx.path("sts3k", "STS3k_all.txt")


def test_data_dir_falls_back_to_the_cache_and_download(tmp_path, fake_source, monkeypatch):
    """A data folder that lacks a data set: the file comes from the cache (downloaded there), not an error."""
    (tmp_path / "mine").mkdir()
    ctx = DataContext(tmp_path / "mine", cache_dir=tmp_path / "dl")
    assert ctx.path("fake-test-source", "pairs.txt") == tmp_path / "dl" / "fake-test-source" / "pairs.txt"
    assert ctx.used["fake-test-source"].verified is True and not list((tmp_path / "mine").iterdir())


def test_env_variable_is_used(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPEVAL_DATA_DIR", str(tmp_path))
    assert DataContext().data_dir == tmp_path


def test_local_copy_is_checked_against_pinned_hashes(data_dir):
    ctx = DataContext(data_dir)
    ctx.path("sts3k", "STS3k_all.txt")
    assert ctx.used["sts3k"].verified is True


def test_each_result_lists_only_the_files_its_task_read(data_dir, tmp_path):
    """Two tasks of one source in one run: each result names its own files (as on the Ray executor, where
    every job has its own process), and the shared hash table hashes each file once."""
    from compeval.results.store import ResultStore
    from compeval.runner import run

    ctx = DataContext(data_dir)
    a, b = ctx.for_task(), ctx.for_task()
    a.path("sts3k", "STS3k_all.txt")
    b.path("sts3k", "pilot/Fodor_pilot_2022.txt")
    assert set(a.used["sts3k"].files) == {"STS3k_all.txt"} and set(b.used["sts3k"].files) == {
        "pilot/Fodor_pilot_2022.txt"}
    assert not ctx.used and len(ctx.digests) == 2 and a.digests is ctx.digests

    run(["hashbag"], ["sts3k-pilot", "sts3k"], tmp_path, data_dir=data_dir, cache_dir=None)
    store = ResultStore(tmp_path)
    pilot = store.load(next(tmp_path.glob("hashbag-*/sts3k-pilot.json"))).data[0].files
    full = store.load(next(tmp_path.glob("hashbag-*/sts3k.json"))).data[0].files
    assert set(pilot) == {"pilot/Fodor_pilot_2022.txt"}
    assert "STS3k_all.txt" in full and "pilot/Fodor_pilot_2022.txt" not in full


def test_available_means_on_disk_or_derivable_from_upstream_files_on_disk(data_dir, tmp_path):
    empty = DataContext(tmp_path / "empty" if (tmp_path / "empty").mkdir() is None else None, download=False,
                        cache_dir=tmp_path / "cache")
    assert not empty.available("sts3k") and not empty.available("sts3k-ratings")
    assert DataContext(data_dir, download=False, cache_dir=tmp_path / "cache").available("sts3k-ratings")
    only_upstream = tmp_path / "up"
    (only_upstream / "sts3k" / "upstream").mkdir(parents=True)
    for name in ("STS3k_all_participant_data.xlsx", "Check_split_half_reliability.ipynb"):
        (only_upstream / "sts3k" / "upstream" / name).symlink_to(data_dir / "sts3k" / "upstream" / name)
    assert DataContext(only_upstream, download=False, cache_dir=tmp_path / "cache").available("sts3k-ratings")
