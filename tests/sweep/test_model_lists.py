"""Model lists: a file of specs, mteb registry queries (checked against mteb's own metadata), the pinned
sweep shipped with compeval."""
from __future__ import annotations

import re

import pytest

from compeval.errors import CompevalError, SpecError
from compeval.models.model_lists import expand_models, model_metadata, read_models_file, select_mteb

mteb = pytest.importorskip("mteb")


def test_models_file_skips_comments_and_blank_lines(tmp_path):
    f = tmp_path / "models.txt"
    f.write_text("# a sweep\nglove-6b-50d\n\n  all-MiniLM-L6-v2   # packaged\nhf:all-MiniLM-L6-v2,layer=0\n"
                 "glove-6b-50d\n")
    assert read_models_file(f) == ["glove-6b-50d", "all-MiniLM-L6-v2", "hf:all-MiniLM-L6-v2,layer=0",
                                   "glove-6b-50d"]
    assert expand_models(["glove-6b-50d", *read_models_file(f)]) == [
        "glove-6b-50d", "all-MiniLM-L6-v2", "hf:all-MiniLM-L6-v2,layer=0"]
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with pytest.raises(CompevalError, match="no model specs"):
        read_models_file(tmp_path / "empty.txt")
    with pytest.raises(CompevalError, match="(?i)no such file"):
        read_models_file(tmp_path / "missing.txt")


def test_an_mteb_query_selects_what_mteb_metadata_says():
    got = select_mteb("lang=eng,max_params=8e9,min_params=2e7,open_weights=true")
    want = [m.name for m in mteb.get_model_metas(languages=["eng"], open_weights=True,
                                                 n_parameters_range=(20_000_000, 8_000_000_000))
            if "dense" in (m.model_type or [])]
    assert sorted(m.name for m in got) == sorted(want) and len(want) > 100
    specs = expand_models(["mteb:lang=eng,max_params=8e9,min_params=2e7,open_weights=true"])
    for m, spec in zip(got, specs):
        assert spec.split(",")[0] == m.name
        if m.revision and re.fullmatch(r"[0-9a-f]{40}", m.revision):
            assert spec.endswith(f",revision={m.revision}")
    small = select_mteb("lang=eng,max_params=3e7,open_weights=true,name=MiniLM")
    assert small and all(m.n_parameters <= 3e7 and "MiniLM" in m.name for m in small)
    # mteb:ORG/NAME stays a model spec (the mteb family), a query has key=value
    assert expand_models(["mteb:sentence-transformers/all-MiniLM-L6-v2"]) == ["mteb:sentence-transformers/all-MiniLM-L6-v2"]


def test_bad_queries_are_one_line_errors():
    with pytest.raises(SpecError, match="unknown key 'size'"):
        expand_models(["mteb:size=3"])
    with pytest.raises(SpecError, match="not a number"):
        expand_models(["mteb:max_params=big"])
    with pytest.raises(SpecError, match="selects no model"):
        expand_models(["mteb:name=^no-such-model-anywhere$"])
    with pytest.raises(SpecError, match="no such list"):
        expand_models(["compeval:nope"])


def test_the_pinned_sweep_holds_fifty_open_english_models_at_mtebs_revisions():
    specs = expand_models(["compeval:sweep"])
    hub = [s for s in specs if "/" in s.split(",")[0]]
    assert "glove-6b-50d" in specs and "all-MiniLM-L6-v2" in specs  # the papers' models
    assert len(hub) == 50
    metas = {m.name: m for m in mteb.get_model_metas()}
    for spec in hub:
        name, _, rev = spec.partition(",revision=")
        m = metas[name]
        assert rev == m.revision and re.fullmatch(r"[0-9a-f]{40}", rev)
        assert m.open_weights and 20e6 <= m.n_parameters <= 8e9
        assert any(str(lang).startswith("eng") for lang in m.languages)
    facts = model_metadata("BAAI/bge-small-en-v1.5")
    assert facts.n_parameters == metas["BAAI/bge-small-en-v1.5"].n_parameters and facts.license == "mit"
    assert model_metadata("all-MiniLM-L6-v2").mteb_name == "sentence-transformers/all-MiniLM-L6-v2"
    assert model_metadata("nobody/nothing").n_parameters is None
