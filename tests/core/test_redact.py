"""Secrets never leave the process: known keys (and any 8+-character prefix of one, as a truncation leaves
it), URL credentials and key-like query values are redacted before any text is cut."""
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from compeval.models.families.api import _excerpt, _server_message
from compeval.redact import MIN_PREFIX, clip, redact

KEY = "sk-live-0123456789abcdefghijklmnopqrstuvwxyz"


def test_a_key_cut_at_the_truncation_point_keeps_none_of_its_characters():
    body = ("x" * 290 + " " + KEY).encode()  # the excerpt's 300-character cut falls inside the key
    text = _excerpt(body, 300, [KEY])
    assert KEY[:MIN_PREFIX] not in text and "sk-live" not in text and "***" in text
    # The same for an OpenAI-style error message cut at 500 characters.
    msg = _server_message(b'{"error": {"message": "%s %s"}}' % (b"y" * 495, KEY.encode()), [KEY])
    assert KEY[:MIN_PREFIX] not in msg


@given(st.integers(min_value=MIN_PREFIX, max_value=len(KEY)), st.text(max_size=20), st.text(max_size=20))
def test_every_prefix_of_eight_or_more_characters_is_redacted(n, before, after):
    text = redact(before + KEY[:n] + after, [KEY])
    assert KEY[:MIN_PREFIX] not in text


def test_url_credentials_and_key_like_query_values_are_stripped():
    line = ("api:m,base_url=https://alice:s3cr3t-pass@embed.example.org/v1?api_key=abcd1234&mode=x "
            "and http://tok3n@h:8080/v1?key=zzz9&token=t0k;sig=qq")
    out = redact(line)
    for secret in ("alice", "s3cr3t-pass", "abcd1234", "tok3n", "zzz9", "t0k", "qq"):
        assert secret not in out, (secret, out)
    assert "https://***@embed.example.org/v1?api_key=***&mode=x" in out and "http://***@h:8080" in out


def test_clip_redacts_before_it_cuts():
    assert clip("Bearer " + KEY, 12) == "Bearer ***"
    assert clip("a" * 20, 5) == "aaaaa…"


def test_a_spec_error_and_a_worker_log_never_show_url_credentials(tmp_path):
    import compeval

    src = str(Path(compeval.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": src, "COMPEVAL_CACHE_DIR": str(tmp_path / "c")}
    spec = "api:m,base_url=https://bob:hunter22hunter22@10.9.9.9/v1?key=qwertyuiop,frobnicate=1"
    r = subprocess.run([sys.executable, "-m", "compeval.cli", "run", "-m", spec, "-t", "gs2011",
                        "-o", str(tmp_path / "o")], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and "frobnicate" in r.stderr + r.stdout
    assert "hunter22" not in r.stderr + r.stdout and "qwertyuiop" not in r.stderr + r.stdout
