"""Fetching one pinned file over HTTP into a hidden ``.NAME.part`` file: resumed by range requests (within a
call and across killed processes), renamed into place only with the pinned SHA-256, and deleted on every
reported failure, so only complete, verified files remain. No network raises ``NoNetworkError`` and the host
is remembered for the process, so a run learns it once."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from ..errors import DataError, MissingDataError

MIRROR_ENV = "COMPEVAL_DATA_MIRROR"
CONNECT_TIMEOUT = 5.0  # seconds to reach a host: beyond this, "no network"
READ_TIMEOUT = 60.0  # seconds without a byte before a transfer counts as broken off
ATTEMPTS = 3  # tries of one file whose connection breaks off mid-transfer (each resumes the last)

_UNREACHABLE: dict[str, str] = {}  # host -> why it could not be reached (this process)


class NoNetworkError(MissingDataError):
    """The data's host cannot be reached (no DNS, refused, timed out): a default run skips the task."""

    def __init__(self, message: str, host: str = "", reason: str = ""):
        super().__init__(message)
        self.host, self.reason = host, reason


class DownloadProgress(Protocol):
    """What a download reports to a progress display: ``start`` once (size None when unknown), ``advance``
    per block, ``finish`` at the end whether it succeeded or not."""

    def start(self, label: str, total: int | None, done: int) -> None: ...
    def advance(self, n: int) -> None: ...
    def finish(self) -> None: ...


class _Silent(DownloadProgress):
    """Reports nothing."""


def check_mirror(mirror: str | None) -> str | None:
    """The mirror base URL without a trailing slash, or a one-line error when it is not an http(s) URL."""
    if mirror is None or not str(mirror).strip():
        return None
    text = str(mirror).strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise DataError(f"data mirror {text!r} (--data-mirror / {MIRROR_ENV}) is not an http(s) URL; give it "
                        f"with its scheme, e.g. https://{text.split('://')[-1].lstrip('/') or 'mirror.example.org'}")
    return text.rstrip("/")


def mirrored(url: str, mirror: str | None) -> str:
    """``url`` with its scheme and host replaced by the mirror's base: the path (owner/repo/commit/file for
    GitHub raw URLs) is kept, and so are the pins and hashes."""
    if not mirror:
        return url
    parts = urlsplit(url)
    return mirror + parts.path + (f"?{parts.query}" if parts.query else "")


def forget_unreachable() -> None:
    """Let the next download try every host again (tests; a long-lived process whose network came back)."""
    _UNREACHABLE.clear()


def _mb(n: int | None) -> str:
    return "unknown size" if n is None else f"{n / 1e6:.2f} MB"


def fetch(url: str, dest: Path, sha256: str, *, label: str, progress: DownloadProgress | None = None,
          display: str | None = None) -> int:
    """Download ``url`` to ``dest`` atomically, resuming a partial file, and check its SHA-256; return the bytes
    transferred. ``label`` starts every error: ``NoNetworkError`` for an unreachable host, else ``DataError``."""
    import httpx

    progress = progress or _Silent()
    host = urlsplit(url).netloc
    if host in _UNREACHABLE:
        raise NoNetworkError(f"{label}: cannot reach {host} ({_UNREACHABLE[host]})", host, _UNREACHABLE[host])
    dest = Path(dest)
    part = dest.parent / f".{dest.name}.part"
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(f"{label}: cannot create {dest.parent}: {exc.strerror or exc}") from None
    timeout = httpx.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT)
    transferred, total, started = 0, None, False
    try:
        for attempt in range(1, ATTEMPTS + 1):
            offset = part.stat().st_size if part.exists() else 0
            headers = {"Accept-Encoding": "identity", **({"Range": f"bytes={offset}-"} if offset else {})}
            try:
                with httpx.stream("GET", url, headers=headers, timeout=timeout, follow_redirects=True) as resp:
                    if resp.status_code == 416:  # the partial file is not a prefix of this file: restart
                        part.unlink(missing_ok=True)
                        continue
                    if resp.status_code == 404:
                        raise DataError(f"{label}: {url} answered 404 Not Found; the file is not at its pinned "
                                        "location (moved upstream, or missing from the mirror)")
                    if resp.status_code not in (200, 206):
                        raise DataError(f"{label}: {url} answered HTTP {resp.status_code} "
                                        f"{resp.reason_phrase}".rstrip())
                    resumed = resp.status_code == 206
                    if not resumed:
                        offset = 0  # the server ignored the range: start over
                    length = resp.headers.get("Content-Length")
                    total = offset + int(length) if length is not None and length.isdigit() else None
                    if not started:
                        progress.start(display or f"{label}: {dest.name}", total, offset)
                        started = True
                    with open(part, "ab" if resumed else "wb") as f:
                        for block in resp.iter_raw():  # as received: a cut keeps every byte that came
                            f.write(block)
                            transferred += len(block)
                            progress.advance(len(block))
                break
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                reason = _reason(exc)
                _UNREACHABLE[host] = reason
                raise NoNetworkError(f"{label}: cannot reach {host} ({reason})", host, reason) from None
            except (httpx.ReadError, httpx.ReadTimeout, httpx.RemoteProtocolError) as exc:
                if attempt == ATTEMPTS:
                    got = part.stat().st_size if part.exists() else 0
                    raise DataError(f"{label}: the download of {url} broke off {ATTEMPTS} times (last at "
                                    f"{_mb(got)} of {_mb(total)}: {_reason(exc)}); nothing was kept, try again "
                                    "later") from None
            except httpx.HTTPError as exc:
                raise DataError(f"{label}: cannot download {url} ({_reason(exc)})") from None
        else:
            raise DataError(f"{label}: {url} refused to resume and to restart the download")
        digest = _sha256(part)
        if digest != sha256:
            raise DataError(f"{label}: {url} has SHA-256 {digest[:16]}…, not the pinned {sha256[:16]}…; the file "
                            "changed upstream or the download was corrupted. Nothing was saved")
        os.replace(part, dest)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise DataError(f"{label}: cannot write {dest}: {exc.strerror or exc}"
                        + (f" (the file is {_mb(total)})" if total else "")) from None
    except DataError:
        part.unlink(missing_ok=True)
        raise
    finally:
        if started:
            progress.finish()
    return transferred


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
