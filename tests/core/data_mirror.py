"""Local HTTP servers on 127.0.0.1 for the download tests.

``Mirror`` serves files at URL paths (the raw-URL layout ``OWNER/REPO/COMMIT/PATH`` of GitHub's raw host)
with range requests, and can misbehave per path: ``404``, ``corrupt`` (one byte flipped), ``cut`` (the
connection closes halfway through every time), ``cut_once`` (only the first time). ``FakeHub`` answers the
few Hugging Face Hub routes ``snapshot_download`` uses (repo info, tree, resolve) for folders on disk.
"""
from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


def upstream_layout(data_root: Path) -> dict[str, Path]:
    """URL path of every registered upstream file -> its copy in the shared data folder (the originals
    of derived files are under ``NAME/upstream/``)."""
    from compeval.data.registry import SOURCES, get_source

    get_source("sts3k")
    out = {}
    for name, src in SOURCES.items():
        for f in src.files:
            for u in f.upstream:
                local = data_root / (src.folder or name) / u.path
                if local.is_file():
                    out[unquote(urlsplit(u.url).path)] = local
    return out


class _Server:
    def __init__(self, handler):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Mirror(_Server):
    def __init__(self, files: dict[str, Path | bytes]):
        self.files = dict(files)
        self.faults: dict[str, str] = {}
        self.requests: list[tuple[str, str | None]] = []  # (path, Range header)
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                path = unquote(urlsplit(self.path).path)
                rng = self.headers.get("Range")
                mirror.requests.append((path, rng))
                fault = mirror.faults.get(path)
                if path not in mirror.files or fault == "404":
                    self.send_error(404)
                    return
                body = mirror.files[path]
                body = body if isinstance(body, bytes) else Path(body).read_bytes()
                if fault == "corrupt":
                    body = body[:-1] + bytes([body[-1] ^ 1])
                start = int(re.match(r"bytes=(\d+)-", rng).group(1)) if rng else 0
                if start >= len(body) and start:
                    self.send_response(416)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(206 if start else 200)
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                part = body[start:]
                if fault == "cut" or (fault == "cut_once" and not start):
                    self.wfile.write(part[: len(part) // 2])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.wfile.write(part)

        super().__init__(Handler)


def free_port() -> int:
    """A port nothing listens on (a server that is down)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FakeHub(_Server):
    """``repos``: repo id -> (commit, folder). Serves any revision name as that commit."""

    def __init__(self, repos: dict[str, tuple[str, Path]]):
        self.repos = repos
        self.requests: list[str] = []
        hub = self

        def files(folder: Path) -> dict[str, Path]:
            return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _json(self, data):
                payload = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _missing(self):
                self.send_response(404)
                self.send_header("X-Error-Code", "RepoNotFound")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _route(self, head: bool):
                path = unquote(urlsplit(self.path).path)
                hub.requests.append(f"{self.command} {path}")
                m = re.match(r"^/api/models/([^/]+/[^/]+)/(revision|tree)/([^/]+)", path)
                if m:
                    if m[1] not in hub.repos:
                        return self._missing()
                    commit, folder = hub.repos[m[1]]
                    listing = files(folder)
                    if m[2] == "revision":
                        return self._json({"id": m[1], "modelId": m[1], "sha": commit, "private": False,
                                           "siblings": [{"rfilename": f} for f in listing]})
                    return self._json([{"type": "file", "path": f, "size": p.stat().st_size,
                                        "oid": hashlib.sha1(p.read_bytes()).hexdigest()}
                                       for f, p in listing.items()])
                m = re.match(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
                if not m or m[1] not in hub.repos:
                    return self._missing()
                commit, folder = hub.repos[m[1]]
                target = files(folder).get(m[3])
                if target is None:
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = target.read_bytes()
                self.send_response(200)
                self.send_header("X-Repo-Commit", commit)
                self.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def do_GET(self):
                self._route(False)

            def do_HEAD(self):
                self._route(True)

        super().__init__(Handler)
