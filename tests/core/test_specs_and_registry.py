import pytest

from compeval.errors import SpecError
from compeval.models.registry import BROKEN as MODEL_BROKEN, list_models, load_model
from compeval.specs import parse_spec
from compeval.tasks.registry import BROKEN as TASK_BROKEN, get_tasks, list_tasks


def test_parse_spec_round_trip():
    s = parse_spec("static:/x/y.txt,op=conv,tok=sts3k")
    assert (s.name, s.arg, s.options) == ("static", "/x/y.txt", {"op": "conv", "tok": "sts3k"})
    assert parse_spec(str(s)) == s
    assert parse_spec("glove-6b-50d").arg is None


@pytest.mark.parametrize("bad", ["", "  ", ":x", "glove,op", "glove,=3"])
def test_parse_spec_rejects(bad):
    with pytest.raises(SpecError):
        parse_spec(bad)


def test_unknown_model_spec_names_alternatives():
    with pytest.raises(SpecError, match="unknown model 'glove-7b'.*glove-6b-50d"):
        load_model("glove-7b")


def test_unknown_option_is_rejected():
    with pytest.raises(SpecError, match="unknown option.*colour"):
        load_model("glove-6b-50d,colour=red")


def test_bad_option_value_lists_choices():
    with pytest.raises(SpecError, match="op='max'.*mean"):
        load_model("glove-6b-50d,op=max")


def test_versioned_family_names():
    assert load_model("hashbag.v1,dim=8").config.family == "hashbag.v1"
    with pytest.raises(SpecError, match="no version"):
        load_model("hashbag.v9")


def test_every_plugin_module_imports():
    list_models(), list_tasks()
    assert MODEL_BROKEN == {} and TASK_BROKEN == {}


def test_suite_name_expands_and_options_are_typed():
    names = {t.name for t in get_tasks("sts")}
    assert {"sts3k", "stsb", "sick", "gs2011", "ks2013", "stss131", "sts3k-pilot"} <= names
    (t,) = get_tasks("stsb,split=dev,bootstrap=50")
    assert t.params == {"norm": "none", "missing": "zero", "bootstrap": 50, "split": "dev"}
    assert t.slug == "stsb__bootstrap-50__split-dev"
    with pytest.raises(SpecError, match="unknown option 'splitt'"):
        get_tasks("stsb,splitt=dev")
    with pytest.raises(SpecError, match="unknown task"):
        get_tasks("sts4k")
