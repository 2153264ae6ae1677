"""Two results folders compare equal when only timings, dates, cache counters and environment differ, and
floats agree within FLOAT_TOLERANCE (thread counts move float32 reductions; docs/architecture.md)."""
import json

from compeval.results.compare import FLOAT_TOLERANCE, differences, same


def _write(root, result, predictions=b'{"item":0}\n'):
    d = root / "m"
    d.mkdir(parents=True)
    (d / "t.json").write_text(json.dumps(result))
    (d / "t.predictions.jsonl").write_bytes(predictions)


def test_only_volatile_fields_may_differ(tmp_path):
    base = {"main_score": 0.5, "scores": [{"value": 0.5}], "seed": 0, "duration_seconds": 1.0,
            "started_at": "2026-01-01", "environment": {"numpy": "2"}, "cache": {"encoded": 3},
            "predictions_sha256": "aa"}
    _write(tmp_path / "a", base)
    _write(tmp_path / "b", {**base, "duration_seconds": 9.0, "started_at": "2026-02-02",
                            "environment": {"numpy": "3", "torch_threads": "1"}, "cache": {"encoded": 0},
                            "predictions_sha256": "bb"})
    assert differences(tmp_path / "a", tmp_path / "b") == []
    _write(tmp_path / "c", {**base, "scores": [{"value": 0.6}]})
    _write(tmp_path / "d", {**base, "seed": 1})
    _write(tmp_path / "e", base, predictions=b'{"item":1}\n')
    assert differences(tmp_path / "a", tmp_path / "c") == ["m/t.json: main_score or scores differ"]
    assert differences(tmp_path / "a", tmp_path / "d") == ["m/t.json: differs outside timings/cache/environment"]
    assert differences(tmp_path / "a", tmp_path / "e") == ["m/t.predictions.jsonl: predictions differ"]


def test_floats_agree_within_the_tolerance_and_nothing_else_is_loosened(tmp_path):
    # The local and Ray MiniLM distances of the failing fresh clone: 0.345039680 against 0.345039645.
    base = {"main_score": 0.345039680, "scores": [{"value": 0.345039680, "n": 732}], "seed": 0}
    near = {"main_score": 0.345039645, "scores": [{"value": 0.345039645, "n": 732}], "seed": 0}
    rows = b'{"item":0,"d":0.345039680}\n{"item":1,"d":1.0}\n'
    _write(tmp_path / "a", base, predictions=rows)
    _write(tmp_path / "b", near, predictions=b'{"item":0,"d":0.345039645}\n{"item":1,"d":1}\n')
    assert differences(tmp_path / "a", tmp_path / "b") == []
    # One step past the tolerance, an integer count, a label, a missing row: all differences.
    far = 0.345039680 + 3 * FLOAT_TOLERANCE
    _write(tmp_path / "c", {**base, "scores": [{"value": far, "n": 732}]}, predictions=rows)
    _write(tmp_path / "d", {**base, "scores": [{"value": 0.345039680, "n": 731}]}, predictions=rows)
    _write(tmp_path / "e", base, predictions=b'{"item":0,"d":0.345039680}\n')
    _write(tmp_path / "f", base, predictions=b'{"item":"0","d":0.345039680}\n{"item":1,"d":1.0}\n')
    assert differences(tmp_path / "a", tmp_path / "c") == ["m/t.json: main_score or scores differ"]
    assert differences(tmp_path / "a", tmp_path / "d") == ["m/t.json: main_score or scores differ"]
    assert differences(tmp_path / "a", tmp_path / "e") == ["m/t.predictions.jsonl: predictions differ"]
    assert differences(tmp_path / "a", tmp_path / "f") == ["m/t.predictions.jsonl: predictions differ"]


def test_same_treats_booleans_and_missing_values_exactly():
    assert same(True, True) and not same(True, 1.0) and not same(None, 0.0)
    assert same(float("nan"), float("nan")) and not same(float("nan"), 0.0)
    assert not same({"a": 1.0}, {"a": 1.0, "b": 2}) and not same([1.0], [1.0, 2.0])
