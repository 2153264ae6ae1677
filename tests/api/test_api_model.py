"""The OpenAI-compatible API family against a local fake server (127.0.0.1 only, nothing leaves it).

The server returns a fixed unit vector per text (a hash of the text seeds numpy), answers in reversed
order (so the client must reorder by ``index``) and can be told to fail: a schedule of 429 / 5xx
responses before it succeeds, a slow answer, NaNs, a missing row. Every test runs under a socket
guard that refuses and records any connection to an address other than 127.0.0.1.
"""
from __future__ import annotations

import hashlib
import json
import random
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from compeval.cache import EmbeddingCache
from compeval.errors import InputTextError, ModelOutputError, SpecError
from compeval.models.families.api import ApiEncoder, ApiError, RateLimiter, _retry_after
from compeval.models.conformance import check_model, check_rejects_empty_text
from compeval.models.registry import list_models, load_model

DIM = 12
SECRET = "sk-test-NOT-A-REAL-KEY-123"


def server_vector(text: str, dim: int = DIM) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim)
    return v / np.linalg.norm(v)


class FakeEmbeddingServer:
    """Records every request; ``schedule`` holds (status, headers, body) answers to give first."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests: list[dict] = []
        self.schedule: list[tuple[int, dict, object]] = []
        self.nan_for: set[str] = set()
        self.drop_last = False
        self.delay_first = 0.0  # seconds the first request waits before answering
        state = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with state.lock:
                    state.requests.append({"path": self.path, "auth": self.headers.get("Authorization"),
                                           "body": body})
                    n = len(state.requests)
                    planned = state.schedule.pop(0) if state.schedule else None
                if n == 1 and state.delay_first:
                    time.sleep(state.delay_first)
                if planned is not None:
                    status, headers, payload = planned
                    return self._send(status, payload, headers)
                if self.path != "/v1/embeddings":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                dim = body.get("dimensions", DIM)
                texts = body["input"]
                data = []
                for i, t in enumerate(texts):
                    vec = [float("nan")] * dim if t in state.nan_for else server_vector(t, dim).tolist()
                    data.append({"object": "embedding", "index": i, "embedding": vec})
                if state.drop_last:
                    data.pop()
                data.reverse()  # clients must reorder by index
                self._send(200, {"object": "list", "data": data, "model": body["model"],
                                 "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)}})

            def _send(self, status, payload, headers=None):
                raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def count(self) -> int:
        with self.lock:
            return len(self.requests)

    def inputs(self) -> list[list[str]]:
        return [r["body"]["input"] for r in self.requests if "input" in r["body"]]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(autouse=True)
def only_localhost(monkeypatch):
    """Refuse (and record) any connection to an address other than 127.0.0.1; fail the test if tripped."""
    tripped: list[object] = []
    real_connect, real_create = socket.socket.connect, socket.create_connection

    def host_of(address):
        return address[0] if isinstance(address, tuple) else address

    def guarded_connect(self, address):
        if host_of(address) != "127.0.0.1":
            tripped.append(address)
            raise OSError(f"test guard: refused connection to {address!r}")
        return real_connect(self, address)

    def guarded_create(address, *args, **kwargs):
        if host_of(address) != "127.0.0.1":
            tripped.append(address)
            raise OSError(f"test guard: refused connection to {address!r}")
        return real_create(address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "create_connection", guarded_create)
    for var in ("COMPEVAL_API_BASE_URL", "OPENAI_BASE_URL", "COMPEVAL_API_KEY", "OPENAI_API_KEY",
                "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    yield tripped
    assert tripped == [], f"a request tried to leave 127.0.0.1: {tripped}"


@pytest.fixture
def server():
    s = FakeEmbeddingServer()
    yield s
    s.close()


class FakeTime:
    """An injectable clock: ``sleep`` records and advances time instantly."""

    def __init__(self):
        self.now, self.sleeps = 1000.0, []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


def make(server, fake=None, **kw):
    fake = fake or FakeTime()
    kw.setdefault("rpm", 0)
    return ApiEncoder("test-embed-small", base_url=server.url, api_key=SECRET, clock=fake.clock,
                      sleep=fake.sleep, rng=random.Random(0), **kw)


def expected(texts, dim=DIM):
    return np.stack([server_vector(t, dim) for t in texts]).astype(np.float32)


TEXTS = [f"sentence number {i} about a dog" for i in range(8)]


def test_guard_refuses_other_addresses(only_localhost):
    with pytest.raises(OSError, match="test guard"):
        socket.create_connection(("10.255.255.1", 443), timeout=0.1)
    # The model's own HTTP path (urllib → http.client) goes through the guard too.
    model = ApiEncoder("m", base_url="http://10.255.255.1:8080/v1", max_retries=0, rpm=0)
    with pytest.raises(ApiError, match="test guard"):
        model.encode(["hello"])
    assert only_localhost == [("10.255.255.1", 443), ("10.255.255.1", 8080)]
    only_localhost.clear()  # it worked; do not fail this test's teardown


def test_vectors_order_batches_and_duplicates(server):
    model = make(server, batch=3)
    texts = TEXTS + [TEXTS[2], TEXTS[0]]
    got = model.encode(texts)
    assert got.dtype == np.float32 and got.shape == (10, DIM)
    assert np.array_equal(got, expected(texts))  # exactly the server's numbers, in input order
    assert server.inputs() == [TEXTS[0:3], TEXTS[3:6], TEXTS[6:8]]  # duplicates sent once, batches of 3
    req = server.requests[0]
    assert req["path"] == "/v1/embeddings" and req["auth"] == f"Bearer {SECRET}"
    assert req["body"] == {"model": "test-embed-small", "input": TEXTS[0:3], "encoding_format": "float"}
    st = model.api_stats
    assert (st.requests, st.batches, st.retries, st.texts_sent, st.tokens) == (3, 3, 0, 8, 8)
    assert model.encode([]).shape == (0, DIM)


def test_retries_429_and_500_then_succeeds(server):
    server.schedule = [(429, {"Retry-After": "0"}, {"error": {"message": "slow down"}}),
                       (500, {}, b"internal oops"), (503, {}, b"busy")]
    fake = FakeTime()
    model = make(server, fake, backoff=1.0)
    got = model.encode(TEXTS[:2])
    assert np.array_equal(got, expected(TEXTS[:2]))
    assert server.count == 4
    st = model.api_stats
    assert st.retries == 3 and st.requests == 4 and st.batches == 1
    assert fake.sleeps[0] == 0.0  # Retry-After: 0 honoured
    assert 0.5 * 2 <= fake.sleeps[1] <= 2 and 0.5 * 4 <= fake.sleeps[2] <= 4  # exponential backoff + jitter
    assert len(st.retry_log) == 3
    assert "HTTP 429" in st.retry_log[0] and "HTTP 500" in st.retry_log[1] and "internal oops" in st.retry_log[1]


def test_retry_after_is_honoured_and_parsed(server):
    server.schedule = [(429, {"Retry-After": "7"}, b"{}")]
    fake = FakeTime()
    make(server, fake).encode(TEXTS[:1])
    assert fake.sleeps == [7.0]
    assert _retry_after({"retry-after-ms": "250"}) == 0.25
    assert _retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=lambda: 1445412480.0 - 5) == 5.0
    assert _retry_after({}) is None


def test_retries_exhausted_give_a_clear_error(server):
    server.schedule = [(503, {}, b"overloaded right now")] * 5
    fake = FakeTime()
    model = make(server, fake, max_retries=2)
    with pytest.raises(ApiError, match=r"gave up after 3 attempts.*HTTP 503: overloaded right now"):
        model.encode(TEXTS[:1])
    assert server.count == 3 and len(fake.sleeps) == 2 and model.api_stats.retries == 2


def test_permanent_400_fails_fast_with_server_message(server):
    server.schedule = [(400, {}, {"error": {"message": "'input' is too long for model xyz", "type": "invalid"}})]
    fake = FakeTime()
    model = make(server, fake)
    with pytest.raises(ApiError, match=r"HTTP 400: 'input' is too long for model xyz"):
        model.encode(TEXTS[:1])
    assert server.count == 1 and fake.sleeps == [] and model.api_stats.retries == 0


def test_error_messages_never_show_the_key(server):
    server.schedule = [(401, {}, {"error": {"message": f"Incorrect API key provided: {SECRET}"}})]
    with pytest.raises(ApiError) as info:
        make(server).encode(TEXTS[:1])
    assert SECRET not in str(info.value) and "***" in str(info.value) and "COMPEVAL_API_KEY" in str(info.value)


def test_connection_errors_and_timeouts_are_retried(server):
    server.delay_first = 1.0
    fake = FakeTime()
    model = make(server, fake, timeout=0.2)
    assert np.array_equal(model.encode(TEXTS[:1]), expected(TEXTS[:1]))
    assert model.api_stats.retries == 1 and "connection error" in model.api_stats.retry_log[0]

    dead = FakeEmbeddingServer()
    url = dead.url
    dead.close()  # nothing listens on that port any more
    model = ApiEncoder("m", base_url=url, max_retries=1, sleep=fake.sleep, rpm=0)
    with pytest.raises(ApiError, match="gave up after 2 attempts.*connection error"):
        model.encode(["hello"])


def test_rate_limit_spaces_requests_without_real_waiting(server):
    fake = FakeTime()
    model = make(server, fake, batch=2, rpm=60)  # one request a second
    model.encode(TEXTS[:6])
    assert server.count == 3 and fake.sleeps == [1.0, 1.0]
    assert model.api_stats.rate_limit_wait_seconds == 2.0
    limiter = RateLimiter(0)
    assert limiter.wait() == 0.0 and limiter.wait() == 0.0


def test_truncation_policies(server):
    long = "word " * 50
    model = make(server, max_chars=20)
    got = model.encode([long, "short text"])
    assert server.inputs() == [[long[:20], "short text"]]
    assert np.array_equal(got, expected([long[:20], "short text"])) and model.api_stats.truncated == 1

    strict = make(server, max_chars=20, truncate="error")
    with pytest.raises(InputTextError, match="max_chars=20"):
        strict.encode(["short text", long])
    assert server.count == 1  # the strict model sent nothing
    assert strict.config.id != model.config.id
    assert strict.config.params["truncate"] == "error" and model.config.params["truncate"] == "end"


@pytest.mark.parametrize("fault, match", [("nan", "NaN or infinite"), ("drop", "got 2 embeddings back")])
def test_bad_responses_are_rejected(server, fault, match):
    if fault == "nan":
        server.nan_for = {TEXTS[1]}
    else:
        server.drop_last = True
    with pytest.raises(ModelOutputError, match=match):
        make(server).encode(TEXTS[:3])


def test_dims_are_sent_checked_and_identify_the_model(server):
    model = make(server, dims=5)
    assert model.encode(TEXTS[:2]).shape == (2, 5)
    assert server.requests[0]["body"]["dimensions"] == 5
    server.schedule = [(200, {}, {"data": [{"index": 0, "embedding": [0.1] * 7}]})]
    with pytest.raises(ModelOutputError, match="7 dimensions, expected dims=5"):
        model.encode(["another text"])
    assert model.config.id != make(server).config.id


def test_config_id_names_the_model_and_never_the_key(server, monkeypatch):
    monkeypatch.setenv("COMPEVAL_API_KEY", SECRET)
    spec = f"api:text-embedding-3-small,base_url={server.url}/,batch=7,rpm=100"
    cfg = load_model(spec).config
    dump = cfg.model_dump_json()
    assert cfg.family == "api.v1" and cfg.name == "text-embedding-3-small"
    assert "text-embedding-3-small" in cfg.id and "text-embedding-3-small" in dump
    assert cfg.params["base_url"] == server.url  # host and path, trailing slash dropped
    assert SECRET not in dump and SECRET not in cfg.id and SECRET not in repr(load_model(spec))
    monkeypatch.setenv("COMPEVAL_API_KEY", "sk-another-key")
    assert load_model(spec).config.id == cfg.id  # the key does not change the id
    assert load_model(f"api:text-embedding-3-small,base_url={server.url}").config.id == cfg.id  # nor batch/rpm
    for other in ("api:text-embedding-3-large", "api:text-embedding-3-small,dims=256",
                  "api:text-embedding-3-small,truncate=error"):
        assert load_model(f"{other},base_url={server.url}").config.id != cfg.id
    creds = load_model("api:m,base_url=http://user:pw@127.0.0.1:9/v1?key=abc").config
    assert creds.params["base_url"] == "http://127.0.0.1:9/v1" and "pw" not in creds.model_dump_json()


def test_base_url_and_key_come_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/ignored")
    monkeypatch.setenv("COMPEVAL_API_BASE_URL", server.url)  # takes precedence
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-openai-var")
    model = load_model("api:test-embed-small")
    assert model.config.params["base_url"] == server.url
    model.encode(["hello there"])
    assert server.requests[-1]["auth"] == "Bearer sk-from-openai-var"
    monkeypatch.delenv("COMPEVAL_API_BASE_URL")
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert load_model("api:x").config.params["base_url"] == "https://api.openai.com/v1"


def test_missing_key_fails_at_first_encode_not_at_build(server):
    model = load_model("api:text-embedding-3-small,base_url=https://api.example.invalid/v1")  # builds fine
    assert model.config.name == "text-embedding-3-small"
    with pytest.raises(ApiError, match="no API key.*COMPEVAL_API_KEY"):
        model.encode(["hello"])
    local = load_model(f"api:test-embed-small,base_url={server.url}")  # a local server needs no key
    local.encode(["hello"])
    assert server.requests[-1]["auth"] is None


def test_bad_specs_are_rejected():
    for bad, match in [("api", "model name"), ("api:m,truncate=middle", "truncate"), ("api:m,batch=0", "batch"),
                       ("api:m,base_url=ftp://host", "base URL"), ("api:m,colour=red", "unknown option"),
                       ("api:m,dims=0", "dims")]:
        with pytest.raises(SpecError, match=match):
            load_model(bad)
    assert any(row["name"] == "api.v1" for row in list_models())


def test_conforms(server, monkeypatch):
    monkeypatch.setenv("COMPEVAL_API_KEY", SECRET)
    spec = f"api:test-embed-small,base_url={server.url},batch=4"
    check_model(load_model(spec), rebuild=lambda: load_model(spec))
    check_rejects_empty_text(load_model(spec, cache=EmbeddingCache(None)))
    assert server.count > 0


def test_runner_writes_results_and_cached_rerun_sends_nothing(server, monkeypatch, tmp_path):
    from compeval.runner import run
    from compeval.tasks.modifiers.tasks import ModifierNonSubsectivity

    monkeypatch.setenv("COMPEVAL_API_BASE_URL", server.url)
    monkeypatch.setenv("COMPEVAL_API_KEY", SECRET)
    server.schedule = [(429, {"Retry-After": "0"}, b"{}"), (502, {}, b"bad gateway")]
    spec = "api:test-embed-small,batch=256,backoff=0.01"
    out, cache_dir = tmp_path / "results", tmp_path / "cache"

    summary = run([spec], [ModifierNonSubsectivity(n_resamples=40)], out, cache_dir=cache_dir)
    assert not summary.failed, summary.failed
    (outcome,) = summary.outcomes
    assert outcome.status == "done" and outcome.path.is_file() and outcome.n_items == 732
    n_texts = summary.encoded
    first = server.count
    assert first == 2 + -(-n_texts // 256)  # two failures, then one request per batch of 256
    sent = [t for batch in server.inputs()[2:] for t in batch]  # the two failed requests resent batch 1
    assert len(sent) == len(set(sent)) == n_texts
    written = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file() and p.suffix == ".json")
    assert "test-embed-small" in written and SECRET not in written

    again = run([spec], [ModifierNonSubsectivity(n_resamples=40)], tmp_path / "results2", cache_dir=cache_dir)
    assert not again.failed and again.outcomes[0].status == "done"
    assert server.count == first  # every vector came from the disk cache
    assert again.encoded == 0 and again.from_cache == n_texts


class RecordingServer:
    """Another origin (its own port): records the method and Authorization header of every request."""

    def __init__(self):
        self.seen: list[tuple[str, str | None]] = []
        state = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _record(self):
                state.seen.append((self.command, self.headers.get("Authorization")))
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = _record

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_to_another_origin_never_gets_the_key(server, status):
    """urllib's default opener turned a redirected POST into a GET to wherever the server pointed and copied
    the Authorization header along: a server (or anyone able to make it redirect) collected the key."""
    elsewhere = RecordingServer()
    try:
        server.schedule = [(status, {"Location": elsewhere.url + "/embeddings"}, b"")]
        model = make(server, max_retries=3)
        with pytest.raises(ApiError, match=f"HTTP {status} redirect to .* was not followed") as info:
            model.encode(TEXTS[:2])
        assert elsewhere.seen == [] and SECRET not in str(info.value)
        assert server.count == 1  # a refused redirect is not retried
    finally:
        elsewhere.close()


def test_same_origin_redirect_keeps_the_post_and_its_body(server):
    server.schedule = [(307, {"Location": server.url + "/embeddings"}, b"")]
    model = make(server)
    assert np.array_equal(model.encode(TEXTS[:3]), expected(TEXTS[:3]))
    assert server.count == 2 and all(r["auth"] == f"Bearer {SECRET}" for r in server.requests)
    assert server.requests[1]["body"]["input"] == TEXTS[:3]


def test_a_failing_api_job_is_retried_in_one_place_only(server, monkeypatch, tmp_path):
    """The runner asks again task by task after the union of texts failed; the model must not start its
    retries over for each task (before: (1 + tasks) × (max_retries + 1) requests)."""
    from compeval.runner import run
    from compeval.tasks.modifiers.tasks import ModifierNonSubsectivity

    monkeypatch.setenv("COMPEVAL_API_KEY", SECRET)
    server.schedule = [(503, {}, b"down for maintenance")] * 100
    spec = f"api:test-embed-small,base_url={server.url},max_retries=2,backoff=0.001"
    tasks = [ModifierNonSubsectivity(n_resamples=40), ModifierNonSubsectivity(n_resamples=41)]
    summary = run([spec], tasks, tmp_path / "out", cache_dir=None)
    assert [o.status for o in summary.outcomes] == ["failed", "failed"]
    assert all("gave up after 3 attempts" in o.error for o in summary.outcomes)
    assert server.count == 3


def test_a_server_echoing_the_key_never_gets_it_printed_or_logged(server, tmp_path, data_dir):
    """Every answer echoes the Authorization header (200 with HTML, 500, 401): the key appears in no output,
    log, result, report or cache file of the run."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import compeval

    echo = f"<html>Hello Bearer {SECRET}; your key is {SECRET}</html>".encode()
    server.schedule = ([(200, {}, echo)] * 2 + [(200, {}, {"data": f"Authorization: Bearer {SECRET}"})] * 2
                       + [(500, {}, echo)] * 4 + [(401, {}, echo)])
    src = str(Path(compeval.__file__).resolve().parents[1])
    env = {**os.environ, "COMPEVAL_API_KEY": SECRET, "PYTHONPATH": src, "COMPEVAL_CACHE_DIR": str(tmp_path / "c")}
    out = tmp_path / "out"
    runs = []
    for extra in ([], ["--verbose"], ["--no-report"], ["--no-report"], ["--no-report"]):
        if not server.schedule:
            break
        runs.append(subprocess.run([sys.executable, "-m", "compeval.cli", "run", "-m",
                                    f"api:test-embed-small,base_url={server.url},max_retries=1,backoff=0", "-t",
                                    "gs2011,bootstrap=40", "-o", str(out), "--data-dir", str(data_dir), *extra],
                                   capture_output=True, text=True, env=env, timeout=120))
    assert all(r.returncode == 1 for r in runs), [r.stderr for r in runs]
    assert server.schedule == []  # every echoing answer was read and reported
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    logs = [p for p in files if "logs" in p.parts]
    texts = [r.stdout + r.stderr for r in runs] + [p.read_bytes().decode("utf-8", "replace") for p in files]
    assert not [t for t in texts if SECRET in t]
    assert any("***" in r.stderr for r in runs)  # the body was quoted, scrubbed
    print(f"\nsecret grep: {len(runs)} runs' stdout+stderr and {len(files)} files ({len(logs)} logs) searched "
          f"for the key: 0 hits")
