"""Options declared once per family, on the one options base: every family takes the common ones, torch
families the torch ones; run settings never enter the id; spec quoting round-trips; a bad model spec fails
its own jobs only."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from compeval.errors import SpecError
from compeval.models.options import ModelOptions, TorchOptions
from compeval.models.registry import FAMILIES, discover, list_models, load_model
from compeval.results.store import model_folder
from compeval.specs import Spec, parse_spec


def _families():
    discover()
    return [versions[max(versions)] for versions in FAMILIES.values()]


def test_every_family_declares_the_common_options_and_torch_ones_where_torch_backed():
    fams = _families()
    assert len(fams) >= 12
    for fam in fams:
        assert issubclass(fam.options, ModelOptions), fam.name
        assert "name" in fam.options.model_fields and "norm" not in fam.options.model_fields, fam.name
        if fam.torch:
            assert set(TorchOptions.model_fields) <= set(fam.options.model_fields), fam.name
    assert {f.name for f in fams if f.torch} >= {"sbert", "hf", "roles", "amr-cn"}


def test_models_listing_is_derived_from_the_declarations():
    rows = {r["name"]: r["spec"] for r in list_models()}
    assert "[,pool=mean|cls|mean-nospecial|max|last]" in rows["hf.v1"]
    assert "[,dtype=float32|float16|bfloat16]" in rows["sbert.v1"] and "[,batch=64]" in rows["sbert.v1"]
    assert "norm" not in rows["random.v1"] and "[,name=NAME]" in rows["overlap.v1"]


def test_name_renames_any_family_and_enters_the_identity():
    plain, named = load_model("hashbag,dim=8"), load_model("hashbag,dim=8,name=my-bag")
    assert named.config.name == "my-bag" and named.config.id != plain.config.id
    assert named.encode(["a b"]).tolist() == plain.encode(["a b"]).tolist()


@pytest.mark.parametrize("spec, message", [
    ("hashbag,dim=0", "dim='0' must be a whole number, at least 1 and at most 65536"),
    ("hashbag,dim=many", "dim='many' must be a whole number"),
    ("random,colour=red", r"unknown option 'colour'; options: name, dim, seed"),
    ("hashbag,norm=whiten", "norm is a task option now: --task sts3k,norm=whiten"),
    ("roles:glove-6b-50d,align=maybe", "align='maybe' must be true or false"),
    ("hashbag,seed=4294967296", "seed=4294967296 must be at most 4,294,967,295"),
    ("sbert:org/x,batch=4,batch_size=8", "option batch given twice"),
    ("api:m,rpm=nan", "rpm='nan' must be a number, at least 0"),
    ("roles:glove-6b-50d,dtype=bfloat16", "apply to a torch-backed inner model"),
    ("mixed:hashbag+random,norm=zscore", "norm is a task option now"),
])
def test_option_errors_name_the_spec_and_the_fix(spec, message):
    with pytest.raises(SpecError, match=message) as err:
        load_model(spec)
    assert str(err.value).startswith(spec) and "\n" not in str(err.value)


def test_quoted_prompt_keeps_comma_and_trailing_space():
    s = parse_spec('sbert:org/x,prompt="Given a claim, find: ",batch=8')
    assert s.options == {"prompt": "Given a claim, find: ", "batch": "8"} and s.arg == "org/x"
    assert parse_spec(str(s)) == s
    assert parse_spec('m,prompt="a \\"b\\"\\nc"').options["prompt"] == 'a "b"\nc'
    for bad in ['m,prompt="open', 'm,prompt="a"b', 'm,prompt=a"b"']:
        with pytest.raises(SpecError):
            parse_spec(bad)


@pytest.mark.parametrize("spec, flag", [(f"roles:glove-6b-50d,align={v}", v.lower() in ("true", "yes", "on", "1"))
                                        for v in ("true", "false", "YES", "no", "on", "Off", "1", "0")])
def test_bool_options_take_the_usual_spellings(spec, flag):
    from compeval.models.registry import resolve_family

    assert resolve_family("roles").options.parse(parse_spec(spec).options, spec).align is flag


def test_older_names_and_run_settings():
    """``batch_size`` is ``batch``; device and batch are run settings (listed so, outside the id), the rest identity."""
    from compeval.models.registry import resolve_family

    sbert = resolve_family("sbert").options
    opts = sbert.parse({"batch_size": "8", "device": "cpu", "dtype": "float16"}, "sbert:x")
    assert opts.batch == 8 and opts.model_fields_set == {"batch", "device", "dtype"}
    assert opts.run_settings() == {"device": "cpu", "batch": 8, "recipe": None}
    kinds = {r["option"]: r["kind"] for r in sbert.rows()}
    assert kinds["batch (or batch_size)"] == kinds["device"] == "run setting" and kinds["dtype"] == "identity"
    a, b = load_model("random,dim=8"), load_model("api:m,batch=4,rpm=10,timeout=3")
    assert "batch" not in b.config.params and "rpm" not in b.config.params and "batch" not in b.config.id
    assert a.config.id == load_model("random,dim=8,seed=0").config.id


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), st.text(max_size=20), max_size=4))
def test_any_option_values_round_trip(options):
    spec = Spec("m", "org/x", options)
    assert parse_spec(str(spec)) == Spec("m", "org/x", {k: v.strip() if _plain(v) else v for k, v in options.items()})


def _plain(v: str) -> bool:
    """Values ``quote_value`` leaves bare (stripped on parse, like any unquoted value)."""
    return not any(ch in v for ch in ',"\\\n\t') and v == v.strip()


def test_bad_model_fails_its_jobs_only(tmp_path, data_dir):
    """An unknown Hub repo fails its own jobs (one line, exit 1, no result for it) while the good model runs; an
    unknown option is a malformed spec, refused in one line before any work (exit 2, nothing written)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
           "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1", "COMPEVAL_DATA_DIR": str(data_dir)}
    out = tmp_path / "o"

    def cli(*models):
        args = [a for m in models for a in ("-m", m)]
        return subprocess.run([sys.executable, "-c", "from compeval.cli import main; main()", "run", *args,
                               "-t", "gs2011,bootstrap=100", "-o", str(out), "--no-cache"],
                              capture_output=True, text=True, env=env, timeout=600)

    r = cli("sbert:org/not-here", "hashbag", "hashbag,dtype=float8")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "unknown option 'dtype'" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()
    r = cli("sbert:org/not-here", "hashbag")
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert "org/not-here is not in the Hugging Face cache" in r.stderr and "hf download org/not-here" in r.stderr
    written = sorted({p.relative_to(out).parts[0] for p in out.rglob("*.json")})
    assert written == [model_folder(load_model("hashbag").config)], written
    result = json.loads(next(out.rglob("*.json")).read_text())
    assert result["model"]["name"] == "hashbag"
