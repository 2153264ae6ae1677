"""Fixtures of the report tests: small results folders made by the real runner, and headless Chromium
driven over the Chrome DevTools Protocol (to see console errors and every network request)."""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from compeval.runner import run

#: Cheap options per suite: one or two tasks each. STS3k (4,428 sentences) is most of MiniLM's encoding time,
#: and is kept: its figures are the ones the STS paper is known for.
REAL_MODELS = ["glove-6b-50d", "all-MiniLM-L6-v2"]
REAL_TASKS = [
    "sts3k,bootstrap=300",
    "sts3k-types,bootstrap=300",
    "sts3k-reliability,splits=20",
    "minimal-pairs,n_bases=12,bootstrap=300",
    "modifiers-test2,n_resamples=300",
    "modifiers-test3,n_resamples=300",
    "probe-has-x,words=school,n_train=200,n_test=100,classifiers=logreg",
    "probe-x-as-agent,words=school,n_train=200,n_test=100,classifiers=logreg",
    "invariance-relation,pairs_per_relation=2,bootstrap=300",
    "invariance-qa,pairs_per_relation=2,bootstrap=300",
]
#: lexcomp trains on token vectors of ~1,300 sentences: seconds for GloVe, about 30-45 s for MiniLM on two
#: shared cores, which the fixture cannot afford on top of STS3k; GloVe alone stands for the suite.
LEXCOMP_MODELS = ["glove-6b-50d"]
LEXCOMP_TASKS = ["lexcomp-an-attributes,encoders=none,layers=top,max_epochs=5,patience=2"]
#: Generated tasks only, toy models: a folder in seconds, no data or packaged weights needed.
TOY_MODELS = ["hashbag", "random,dim=32"]
TOY_TASKS = ["invariance-relation,bootstrap=200", "invariance-qa,subset_model=,bootstrap=200",
             "minimal-pairs,n_bases=8,bootstrap=200", "modifiers-test3,n_resamples=200"]


def _cache_dir(tmp: Path) -> Path:
    return Path(os.environ["COMPEVAL_CACHE_DIR"]) if os.environ.get("COMPEVAL_CACHE_DIR") else tmp / "cache"


@pytest.fixture(scope="session")
def toy_results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("toy-results")
    summary = run(TOY_MODELS, TOY_TASKS, out, cache_dir=None, download=False)
    assert not summary.failed, [o.error for o in summary.failed]
    return out


@pytest.fixture(scope="session")
def real_results(tmp_path_factory, data_dir) -> Path:
    """glove-6b-50d and all-MiniLM-L6-v2 on one or two tasks of every suite, through ``compeval.runner.run``.

    ``COMPEVAL_REPORT_RESULTS`` points the tests at an existing folder instead (e.g. a full run).
    """
    given = os.environ.get("COMPEVAL_REPORT_RESULTS")
    if given:
        return Path(given)
    pytest.importorskip("sentence_transformers", reason="the packaged MiniLM model needs sentence-transformers (a core dependency)")
    out = tmp_path_factory.mktemp("real-results")
    started = time.perf_counter()
    jobs = 0
    for models, tasks in ((REAL_MODELS, REAL_TASKS), (LEXCOMP_MODELS, LEXCOMP_TASKS)):
        summary = run(models, tasks, out, data_dir=data_dir, cache_dir=_cache_dir(out), download=False)
        assert not summary.failed, [(o.model, o.task, o.error) for o in summary.failed]
        jobs += len(summary.outcomes)
    print(f"\nreal results: {jobs} jobs in {time.perf_counter() - started:.1f}s -> {out}")
    return out


@pytest.fixture()
def artifact_dir(tmp_path) -> Path:
    """Where screenshots go: $COMPEVAL_ARTIFACT_DIR when set (kept), else the test's tmp folder."""
    d = Path(os.environ["COMPEVAL_ARTIFACT_DIR"]) if os.environ.get("COMPEVAL_ARTIFACT_DIR") else tmp_path
    d.mkdir(parents=True, exist_ok=True)
    return d


# ------------------------------------------------------------------------------------------- browser

def _need(reason: str):
    if os.environ.get("COMPEVAL_REQUIRE_BROWSER") == "1":
        pytest.fail(f"COMPEVAL_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    _need("no Chromium on PATH (Debian: apt-get install chromium)")


@pytest.fixture(scope="session")
def websocket_module():
    try:
        import websocket
    except ImportError:
        _need("websocket-client is not installed (pip install 'compeval[test]')")
    return websocket


@dataclass
class PageLoad:
    """What a page did when Chromium opened it."""

    url: str
    requests: list[str] = field(default_factory=list)
    console: list[dict] = field(default_factory=list)  # level, text, source
    dom: dict = field(default_factory=dict)
    screenshot: Path | None = None

    def errors(self) -> list[dict]:
        return [c for c in self.console if c["level"] in ("error", "assert")]


DOM_PROBE = r"""(() => {
  const box = el => { const r = el.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; };
  return {
    title: document.title,
    height: document.documentElement.scrollHeight,
    sections: [...document.querySelectorAll('section[id]')].map(s => s.id),
    figures: [...document.querySelectorAll('figure.figure')].map(f => {
      const svg = f.querySelector('svg');
      return {id: f.id, svg: !!svg, size: svg ? box(svg) : [0, 0], caption: !!f.querySelector('figcaption')};
    }),
    boards: [...document.querySelectorAll('table.board')].map(t => t.id),
    publishedRows: document.querySelectorAll('table.board tr.published').length,
    computedRows: document.querySelectorAll('table.board tr.computed').length,
    hoverProvenance: [...document.querySelectorAll('table.board td[title]')].filter(td => td.title.includes('seed ')).length,
    pairedRows: [...document.querySelectorAll('#table-paired tbody tr')].map(tr => tr.innerText),
    provenanceBlocks: document.querySelectorAll('details.model-provenance').length,
    links: [...document.querySelectorAll('[src],[href]')].map(e => e.getAttribute('src') || e.getAttribute('href')),
    scripts: document.querySelectorAll('script').length,
    overflowing: [...document.querySelectorAll('#leaderboard .scroll')].filter(d => d.scrollWidth > d.clientWidth)
      .map(d => { const t = d.querySelector('table'); return [(t && t.id) || 'published rows', d.scrollWidth, d.clientWidth,
                   (d.closest('.board-block') || d).querySelector('h3') ? d.closest('.board-block').querySelector('h3').innerText : '']; }),
  };
})()"""


class _CDP:
    """A minimal DevTools client: commands by id, everything else kept as events."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            data = json.loads(self.ws.recv())
            if data.get("id") == self.next_id:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                return data.get("result", {})
            self.events.append(data)
        raise TimeoutError(method)

    def wait_for(self, method: str, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        for e in self.events:
            if e.get("method") == method:
                return e
        while time.monotonic() < deadline:
            data = json.loads(self.ws.recv())
            self.events.append(data)
            if data.get("method") == method:
                return data
        raise TimeoutError(method)

    def drain(self, seconds: float) -> None:
        import websocket

        self.ws.settimeout(0.2)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                continue
        self.ws.settimeout(60)


@pytest.fixture()
def open_in_chromium(chromium, websocket_module):
    """``load(html_path, screenshot_path) -> PageLoad``: open a file in headless Chromium, record console
    messages and network requests, probe the DOM, and take a full-page screenshot."""
    procs = []

    def load(html: Path, screenshot: Path | None = None, width: int = 1400) -> PageLoad:
        profile = Path(tempfile.mkdtemp(prefix="compeval-chromium-"))
        log = open(profile / "stderr.log", "wb")
        proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
             "--disable-extensions", "--disable-sync", "--no-first-run", "--no-default-browser-check",
             "--hide-scrollbars", "--mute-audio", f"--user-data-dir={profile}", "--remote-debugging-port=0",
             f"--window-size={width},1000", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=log)
        procs.append((proc, profile, log))
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and len(port_file.read_text().split()) >= 2):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Chromium did not start: {(profile / 'stderr.log').read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)
        port, path = port_file.read_text().split()[:2]
        ws = websocket_module.create_connection(f"ws://127.0.0.1:{port}{path}", timeout=60, suppress_origin=True)
        cdp = _CDP(ws)
        try:
            target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Network", "Runtime", "Log"):
                cdp.send(f"{domain}.enable", session=session)
            cdp.send("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": False}, session)
            cdp.events.clear()  # about:blank is not the page under test
            url = html.resolve().as_uri()
            cdp.send("Page.navigate", {"url": url}, session)
            cdp.wait_for("Page.loadEventFired")
            cdp.drain(1.0)  # late console messages or fetches
            dom = cdp.send("Runtime.evaluate", {"expression": DOM_PROBE, "returnByValue": True}, session)
            page = PageLoad(url=url, dom=dom["result"]["value"])
            if screenshot is not None:
                height = min(int(page.dom["height"]), 16000)
                cdp.send("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
                cdp.drain(0.5)
                shot = cdp.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session)
                screenshot.write_bytes(base64.b64decode(shot["data"]))
                page.screenshot = screenshot
            for e in cdp.events:
                if e.get("sessionId") not in (None, session):
                    continue
                m, p = e.get("method"), e.get("params", {})
                if m == "Network.requestWillBeSent":
                    page.requests.append(p["request"]["url"])
                elif m == "Runtime.consoleAPICalled":
                    text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                    page.console.append({"level": "error" if p["type"] in ("error", "assert") else p["type"],
                                         "text": text, "source": "console"})
                elif m == "Runtime.exceptionThrown":
                    page.console.append({"level": "error", "text": json.dumps(p.get("exceptionDetails", {}))[:500],
                                         "source": "exception"})
                elif m == "Log.entryAdded":
                    entry = p["entry"]
                    page.console.append({"level": entry["level"], "text": entry.get("text", ""),
                                         "source": entry.get("source", "log")})
                elif m == "Network.loadingFailed":
                    page.console.append({"level": "error", "text": f"loading failed: {p.get('errorText')}",
                                         "source": "network"})
            return page
        finally:
            try:
                cdp.send("Browser.close", timeout=10)
            except Exception:
                pass
            ws.close()

    yield load
    for proc, profile, log in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()
        shutil.rmtree(profile, ignore_errors=True)
