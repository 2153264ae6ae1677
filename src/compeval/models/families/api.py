"""Embeddings from an OpenAI-compatible HTTP API (``POST {base_url}/embeddings``) through the standard library
(docs/architecture.md § Embedding APIs). The key is read at the first request and never enters the
configuration; a server has no card, so ``prompt_name=`` and ``instruction=`` are refused.
"""
from __future__ import annotations

import http.client
import ipaddress
import json
import logging
import math
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Callable, ClassVar, Literal, Mapping, Sequence

import numpy as np
from pydantic import Field

from ...errors import CompevalError, InputTextError, ModelOutputError, SpecError
from ...options import setting
from ...redact import clip, redact
from ..options import MAX_DIM, KeepsConfig, ModelOptions, identity_field
from ..prompts import PROMPT_HELP
from ..registry import register_model

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_ENV = ("COMPEVAL_API_BASE_URL", "OPENAI_BASE_URL")
KEY_ENV = ("COMPEVAL_API_KEY", "OPENAI_API_KEY")
TRUNCATE = ("end", "error")
DEFAULTS = {"batch": 64, "rpm": 3000, "max_chars": 8000, "truncate": "end", "max_retries": 5,
            "timeout": 60.0, "backoff": 1.0, "max_backoff": 60.0}


class ApiError(CompevalError):
    """The embedding API refused a request or kept failing; the message says what the server said."""


@dataclass
class ApiStats:
    """What talking to the API cost: every HTTP attempt, every retry and every wait."""

    requests: int = 0  # HTTP attempts, retries included
    batches: int = 0  # requests that returned vectors
    retries: int = 0
    texts_sent: int = 0
    truncated: int = 0  # texts cut to max_chars
    tokens: int = 0  # usage.total_tokens (or prompt_tokens) as the server reported it
    rate_limit_wait_seconds: float = 0.0
    backoff_wait_seconds: float = 0.0
    retry_log: list[str] = field(default_factory=list)  # one line per retry: attempt, failure, delay


class RateLimiter:
    """At most ``rpm`` request starts a minute, evenly spaced (``rpm=0``: no limit); tests inject the clock."""

    def __init__(self, rpm: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.interval = 60.0 / rpm if rpm > 0 else 0.0
        self.clock, self.sleep = clock, sleep
        self._next: float | None = None

    def wait(self) -> float:
        """Block until the next request may start; return the seconds waited."""
        if self.interval <= 0:
            return 0.0
        now = self.clock()
        waited = 0.0
        if self._next is not None and self._next > now:
            waited = self._next - now
            self.sleep(waited)
            now = self._next
        self._next = now + self.interval
        return waited


def is_local(host: str | None) -> bool:
    """Loopback or private-network host: a self-hosted server that may need no key."""
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return False
    return addr.is_loopback or addr.is_private


def clean_base_url(url: str) -> str:
    """``scheme://host[:port]/path`` without credentials, query, fragment or trailing slash."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SpecError(f"API base URL {url!r} must look like https://host/v1 (http or https)")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def default_base_url() -> str:
    return next((os.environ[k] for k in BASE_URL_ENV if os.environ.get(k)), DEFAULT_BASE_URL)


def _excerpt(body: bytes, limit: int = 300, secrets: Sequence[str | None] = ()) -> str:
    """The body on one line, redacted, then cut to ``limit`` characters (redacting after the cut would let
    a key cut in half keep its first characters)."""
    return clip(" ".join(body.decode("utf-8", errors="replace").split()), limit, secrets)


def _server_message(body: bytes, secrets: Sequence[str | None] = ()) -> str:
    """The ``error.message`` of an OpenAI-style error body, else a short excerpt of the body; redacted."""
    try:
        err = json.loads(body).get("error")
        msg = err.get("message") if isinstance(err, dict) else err
        if isinstance(msg, str) and msg.strip():
            return clip(msg.strip(), 500, secrets)
    except (ValueError, AttributeError):
        pass
    return _excerpt(body, secrets=secrets) or "(empty body)"


def _retry_after(headers: dict[str, str], now: Callable[[], float] = time.time) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms``, ``Retry-After`` seconds or HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        return max(parsedate_to_datetime(value).timestamp() - now(), 0.0)
    except (TypeError, ValueError, IndexError):
        return None


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or default


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only within the request's origin, keeping the POST and its body, and never send the
    ``Authorization`` header elsewhere (urllib's default turns the POST into a GET and forwards every header)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if _origin(newurl) != _origin(req.full_url) or code not in (301, 302, 307, 308):
            return None  # urllib then raises HTTPError with the 3xx status: the caller reports it
        return urllib.request.Request(newurl, data=req.data, headers=dict(req.header_items()),
                                      method=req.get_method(), origin_req_host=req.origin_req_host)


class _Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.reason, self.retry_after = reason, retry_after


class ApiEncoder(KeepsConfig):
    """An OpenAI-compatible embeddings endpoint as an Encoder (see the module docstring)."""

    #: One ``api`` slot per job (``DeclaresResources``): a Ray cluster caps concurrent API jobs with it.
    resources = {"api": 1}

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 batch: int = DEFAULTS["batch"], rpm: float = DEFAULTS["rpm"],
                 max_chars: int = DEFAULTS["max_chars"], truncate: str = DEFAULTS["truncate"],
                 dims: int | None = None, max_retries: int = DEFAULTS["max_retries"],
                 timeout: float = DEFAULTS["timeout"], backoff: float = DEFAULTS["backoff"],
                 max_backoff: float = DEFAULTS["max_backoff"], prompt: str = "",
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None, options: "ApiOptions | None" = None):
        if not model or not model.strip():
            raise SpecError("api: give the model name, e.g. api:text-embedding-3-small")
        if truncate not in TRUNCATE:
            raise SpecError(f"api: truncate={truncate!r} must be one of {', '.join(TRUNCATE)}")
        for label, value, low in (("batch", batch, 1), ("max_chars", max_chars, 1), ("rpm", rpm, 0),
                                  ("max_retries", max_retries, 0), ("backoff", backoff, 0),
                                  ("max_backoff", max_backoff, 0)):
            if value < low:
                raise SpecError(f"api: {label}={value} must be at least {low}")
        if timeout <= 0:
            raise SpecError(f"api: timeout={timeout} must be positive (seconds)")
        if dims is not None and dims < 1:
            raise SpecError(f"api: dims={dims} must be a positive number of dimensions")
        self.model = model.strip()
        self.base_url = clean_base_url(base_url or default_base_url())
        self.url = self.base_url + "/embeddings"
        self.host = urllib.parse.urlsplit(self.base_url).hostname
        self.batch, self.max_chars, self.truncate, self.dims = batch, max_chars, truncate, dims
        self.prompt = prompt
        self.max_retries, self.timeout = max_retries, timeout
        self.backoff, self.max_backoff = backoff, max_backoff
        self.sleep = sleep
        self.limiter = RateLimiter(rpm, clock=clock, sleep=sleep)
        self.rng = rng or random.Random()
        self.api_stats = ApiStats()
        self._api_key = api_key  # never part of the configuration, a message or the repr
        self._dim: int | None = dims
        self._opener = None
        self._broken: str | None = None  # why the endpoint is unusable (retries exhausted, bad key or URL)
        if options is None:  # made directly: the options its arguments amount to (checked above)
            options = ApiOptions.model_construct(base_url=base_url, dims=dims, truncate=truncate,
                                                 max_chars=max_chars, prompt=prompt)
        # the key is no option: it never enters the configuration
        self._config = options.to_model_config(self.model, resolved={"base_url": self.base_url})

    def __repr__(self) -> str:
        return f"ApiEncoder({self.model!r}, base_url={self.base_url!r})"

    # -- texts ---------------------------------------------------------------------------------
    def _prepare(self, texts: Sequence[str]) -> list[str]:
        out = []
        for i, t in enumerate(texts):
            if not isinstance(t, str) or not t.strip():
                raise InputTextError(f"text #{i} is empty or not a string ({t!r}); the API cannot embed it")
            t = self.prompt + t  # max_chars counts the prompt; truncate=end cuts the text's end, never the prompt
            if len(t) > self.max_chars and len(self.prompt) >= self.max_chars:
                raise InputTextError(f"prompt= has {len(self.prompt)} characters, at least max_chars="
                                     f"{self.max_chars}: no room for the text; raise max_chars")
            if len(t) > self.max_chars:
                if self.truncate == "error":
                    raise InputTextError(
                        f"text #{i} has {len(t)} characters, over max_chars={self.max_chars} "
                        f"({t[:60]!r}…); shorten it, raise max_chars, or use truncate=end")
                t = t[: self.max_chars]
                self.api_stats.truncated += 1
            out.append(t)
        return out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if self._broken is not None:
            # One retry policy, here: once the endpoint has failed for good, later calls (the runner asks
            # again task by task after a failed batch) fail at once instead of retrying all over.
            raise ApiError(self._broken)
        prepared = self._prepare(list(texts))
        if not prepared:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        unique = list(dict.fromkeys(prepared))  # each distinct text is sent (and paid for) once
        headers = self._headers()
        vectors: dict[str, np.ndarray] = {}
        for start in range(0, len(unique), self.batch):
            chunk = unique[start : start + self.batch]
            vectors.update(zip(chunk, self._embed_batch(chunk, headers)))
        return np.stack([vectors[t] for t in prepared])

    # -- HTTP ----------------------------------------------------------------------------------
    def _key(self) -> str | None:
        if self._api_key:
            return self._api_key
        return next((os.environ[k] for k in KEY_ENV if os.environ.get(k)), None)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": "compeval"}
        key = self._key()
        if key:
            if urllib.parse.urlsplit(self.base_url).scheme == "http" and not is_local(self.host):
                warnings.warn(f"compeval: sending the API key over plain http to {self.host}", stacklevel=3)
            headers["Authorization"] = f"Bearer {key}"
        elif not is_local(self.host):
            raise ApiError(f"no API key for {self.base_url}: set COMPEVAL_API_KEY (or OPENAI_API_KEY); "
                           "a local server without authentication needs none")
        return headers

    def _scrub(self, text: str) -> str:
        return redact(text, [self._key()])

    def _post(self, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        """One POST; returns (status, lower-cased headers, body). Network failures raise OSError etc."""
        if self._opener is None:
            # Loopback and private servers are reached directly, never through an environment proxy.
            handlers = [urllib.request.ProxyHandler({})] if is_local(self.host) else []
            self._opener = urllib.request.build_opener(*handlers, _SameOriginRedirects())
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.timeout) as resp:
                return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
        except urllib.error.HTTPError as exc:  # a status the server chose: the caller decides
            try:
                body = exc.read() if exc.fp is not None else b""
            finally:
                exc.close()
            return exc.code, {k.lower(): v for k, v in (exc.headers or {}).items()}, body

    def _embed_batch(self, texts: list[str], headers: dict[str, str]) -> list[np.ndarray]:
        payload: dict[str, Any] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.dims is not None:
            payload["dimensions"] = self.dims
        body = json.dumps(payload).encode("utf-8")
        stats = self.api_stats
        for attempt in range(self.max_retries + 1):
            stats.rate_limit_wait_seconds += self.limiter.wait()
            stats.requests += 1
            try:
                try:
                    status, resp_headers, resp_body = self._post(body, headers)
                except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                    reason = getattr(exc, "reason", None) or exc
                    raise _Retryable(f"connection error ({type(exc).__name__}: {reason})") from exc
                if status == 429 or 500 <= status < 600:
                    raise _Retryable(f"HTTP {status}: {_excerpt(resp_body, secrets=[self._key()])}",
                                     _retry_after(resp_headers))
            except _Retryable as failure:
                reason = self._scrub(failure.reason)
                if attempt == self.max_retries:
                    self._broken = (f"{self.model} at {self.url}: gave up after {attempt + 1} attempts "
                                    f"({self.max_retries} retries); last failure: {reason}")
                    raise ApiError(self._broken) from None
                delay = failure.retry_after
                if delay is None:
                    delay = self.backoff * 2 ** attempt * (0.5 + 0.5 * self.rng.random())
                delay = min(delay, self.max_backoff)
                stats.retries += 1
                line = f"attempt {attempt + 1} of {self.max_retries + 1}: {reason}; retrying in {delay:.2f} s"
                stats.retry_log.append(line)
                log.warning("compeval api %s: %s", self.model, line)
                self.sleep(delay)
                stats.backoff_wait_seconds += delay
                continue
            if 300 <= status < 400:
                where = resp_headers.get("location", "another address")
                self._broken = (f"{self.model} at {self.url}: HTTP {status} redirect to {self._scrub(where)} was not "
                                "followed (another origin, or one that would drop the request body), so the key "
                                "was not sent there; set base_url to the server's final address")
                raise ApiError(self._broken)
            if status >= 400 or status < 200:
                hint = {401: " (check COMPEVAL_API_KEY / OPENAI_API_KEY)",
                        404: " (check base_url and the model name)"}.get(status, "")
                message = f"{self.model} at {self.url}: HTTP {status}: {_server_message(resp_body, [self._key()])}{hint}"
                if status in (401, 403, 404):  # the key or the address is wrong for every text
                    self._broken = message
                raise ApiError(message)
            return self._parse(texts, resp_body)
        raise AssertionError("unreachable")  # pragma: no cover

    def _parse(self, texts: list[str], body: bytes) -> list[np.ndarray]:
        where = f"{self.model} at {self.url}"
        try:
            data = json.loads(body)
            items = data["data"]
            if not isinstance(items, list):
                raise TypeError("'data' is not a list")
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelOutputError(self._scrub(f"{where}: response is not an embeddings list ({exc}): "
                                               f"{_excerpt(body, 200, [self._key()])}")) from None
        if len(items) != len(texts):
            raise ModelOutputError(f"{where}: sent {len(texts)} texts, got {len(items)} embeddings back")
        rows: list[np.ndarray | None] = [None] * len(texts)
        for pos, item in enumerate(items):
            index = item.get("index", pos) if isinstance(item, dict) else None
            emb = item.get("embedding") if isinstance(item, dict) else None
            if not isinstance(index, int) or not 0 <= index < len(texts) or rows[index] is not None:
                raise ModelOutputError(f"{where}: embedding #{pos} has a missing, repeated or out-of-range "
                                       f"index {index!r} (batch of {len(texts)})")
            if isinstance(emb, str):
                raise ModelOutputError(f"{where}: got a base64 string, not floats; the server ignored "
                                       "encoding_format=float")
            try:
                vec = np.asarray(emb, dtype=np.float64)
            except (TypeError, ValueError):
                raise ModelOutputError(f"{where}: embedding for text {index} is not a list of numbers") from None
            if vec.ndim != 1 or vec.size == 0:
                raise ModelOutputError(f"{where}: embedding for text {index} has shape {vec.shape}")
            if self._dim is None:
                self._dim = int(vec.size)
            if vec.size != self._dim:
                expected = f"dims={self.dims}" if self.dims else f"{self._dim} as before"
                raise ModelOutputError(f"{where}: embedding for text {index} has {vec.size} dimensions, "
                                       f"expected {expected}")
            if not np.isfinite(vec).all():
                raise ModelOutputError(f"{where}: NaN or infinite values in the embedding of "
                                       f"{texts[index][:60]!r}; nothing was kept")
            rows[index] = vec.astype(np.float32)
        usage = data.get("usage") if isinstance(data, dict) else None
        if isinstance(usage, dict):
            tokens = usage.get("total_tokens", usage.get("prompt_tokens"))
            if isinstance(tokens, (int, float)) and math.isfinite(tokens):
                self.api_stats.tokens += int(tokens)
        self.api_stats.batches += 1
        self.api_stats.texts_sent += len(texts)
        return rows  # type: ignore[return-value]


class ApiOptions(ModelOptions):
    """Identity: the base URL as the model resolves it (environment, then OpenAI's; without credentials or
    query), shown where it is not OpenAI's; ``dims`` (null when not asked: ids written before the rule
    record it so), ``truncate``, ``max_chars``; ``prompt`` only where given (earlier ids stay valid)."""

    base_url: str | None = identity_field(None, show="never", description="server URL (else "
                                          "$COMPEVAL_API_BASE_URL, $OPENAI_BASE_URL, OpenAI)")
    dims: int | None = identity_field(None, record="null", ge=1, le=MAX_DIM,
                                      description="ask the API for N dimensions")
    truncate: Literal[TRUNCATE] = Field(DEFAULTS["truncate"], description="over-long texts: cut or fail")  # type: ignore[valid-type]
    max_chars: int = Field(DEFAULTS["max_chars"], ge=1)
    batch: int = setting(DEFAULTS["batch"], ge=1)
    rpm: float = setting(DEFAULTS["rpm"], ge=0, description="requests per minute at most")
    max_retries: int = setting(DEFAULTS["max_retries"], ge=0)
    timeout: float = setting(DEFAULTS["timeout"], ge=0.001)
    backoff: float = setting(DEFAULTS["backoff"], ge=0)
    prompt: str = identity_field("", record="changed", description=PROMPT_HELP["prompt"])

    refused = {k: "the api family reads no repo files or card template; give the whole text before each input "
                  'with prompt="…"' for k in ("prompt_name", "instruction")}

    shown_order: ClassVar[tuple[str, ...]] = ("base_url",)

    def shown(self, params: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str, ...]:
        """The base URL where it is not OpenAI's, however it was given (spec, environment)."""
        return ("base_url",) * (params["base_url"] != DEFAULT_BASE_URL) + names


@register_model(
    "api", 1, "OpenAI-compatible embedding API (POST {base_url}/embeddings; key from $COMPEVAL_API_KEY)",
    ("api:MODEL",),
    options=ApiOptions,
)
def _api(resolved, builder):
    opts = resolved.options
    if not resolved.arg:
        raise SpecError(f"{resolved.spec}: give the API model name, e.g. api:text-embedding-3-small")
    return ApiEncoder(resolved.arg, base_url=opts.base_url, batch=opts.batch, rpm=opts.rpm, max_chars=opts.max_chars,
                      truncate=opts.truncate, dims=opts.dims, max_retries=opts.max_retries, timeout=opts.timeout,
                      backoff=opts.backoff, prompt=opts.prompt, options=opts)
