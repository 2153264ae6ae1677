"""Secrets out of every line compeval prints or writes (API keys, URL credentials, key-like query values).
Redact before truncating, and redact every 8+ character prefix of a known secret: a cut key leaks nothing."""
from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
#: Shortest prefix of a known secret that is redacted on its own (a truncated key).
MIN_PREFIX = 8

_CREDENTIAL = re.compile(r"(?i)(bearer|api[-_ ]?key|authorization)([\s:=\"']+)[^\s\"'<>,;&#]+")
# scheme://user:password@host or scheme://token@host
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@\"'<>]+@")
# ?key=…, &access_token=…, ;sig=… (query parameters that carry a credential)
_KEY_PARAM = re.compile(r"(?i)([?&;](?:api[-_]?key|key|access[-_]?token|token|auth|secret|password|passwd|pwd|"
                        r"sig|signature|client[-_]?secret)=)[^&#\s\"'<>,;]+")


def _redact_prefixes(text: str, secret: str) -> str:
    """Each run of ``text`` that is a prefix of ``secret`` of at least ``MIN_PREFIX`` characters → MASK."""
    head = secret[:MIN_PREFIX]
    out, i = [], 0
    while True:
        j = text.find(head, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        k = j + MIN_PREFIX
        while k < len(text) and k - j < len(secret) and text[k] == secret[k - j]:
            k += 1
        out.append(text[i:j] + MASK)
        i = k


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every given secret (and its prefixes of 8+ characters), URL user information, key-like
    query values and credential shapes (``Bearer …``, ``api_key=…``, ``Authorization: …``) replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= MIN_PREFIX:
            text = _redact_prefixes(text, secret)
        elif secret:
            text = text.replace(secret, MASK)
    text = _URL_USERINFO.sub(lambda m: f"{m.group(1)}{MASK}@", text)
    text = _KEY_PARAM.sub(lambda m: f"{m.group(1)}{MASK}", text)
    return _CREDENTIAL.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)


def clip(text: str, limit: int, secrets: Iterable[str | None] = ()) -> str:
    """``text`` redacted, then cut to ``limit`` characters (with an ellipsis)."""
    text = redact(text, secrets)
    return text if len(text) <= limit else text[:limit] + "…"
