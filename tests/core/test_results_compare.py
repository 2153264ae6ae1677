"""Two results folders compare equal when only timings, dates, cache counters and environment differ."""
import json

from compeval.results.compare import differences


def _write(root, result, predictions=b'{"item":0}\n'):
    d = root / "m"
    d.mkdir(parents=True)
    (d / "t.json").write_text(json.dumps(result))
    (d / "t.predictions.jsonl").write_bytes(predictions)


def test_only_volatile_fields_may_differ(tmp_path):
    base = {"main_score": 0.5, "scores": [{"value": 0.5}], "seed": 0, "duration_seconds": 1.0,
            "started_at": "2026-01-01", "environment": {"numpy": "2"}, "cache": {"encoded": 3}}
    _write(tmp_path / "a", base)
    _write(tmp_path / "b", {**base, "duration_seconds": 9.0, "started_at": "2026-02-02",
                            "environment": {"numpy": "3"}, "cache": {"encoded": 0}})
    assert differences(tmp_path / "a", tmp_path / "b") == []
    _write(tmp_path / "c", {**base, "scores": [{"value": 0.6}]})
    _write(tmp_path / "d", {**base, "seed": 1})
    _write(tmp_path / "e", base, predictions=b'{"item":1}\n')
    assert differences(tmp_path / "a", tmp_path / "c") == ["m/t.json: main_score or scores differ"]
    assert differences(tmp_path / "a", tmp_path / "d") == ["m/t.json: differs outside timings/cache/environment"]
    assert differences(tmp_path / "a", tmp_path / "e") == ["m/t.predictions.jsonl: predictions differ"]
