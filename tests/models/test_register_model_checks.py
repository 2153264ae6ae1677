"""A plug-in author's mistakes in ``register_model`` are one line where the family is registered, before any
run: a factory of the wrong shape would fail every job with a TypeError, and a misspelt ``unrecorded`` name
would leave the option it meant in the family's ids."""
from __future__ import annotations

import pytest

from compeval.errors import RegistryError
from compeval.models.options import ModelOptions
from compeval.models.registry import FAMILIES, register_model


class _ToyOptions(ModelOptions):
    scale: float = 1.0


def test_a_factory_of_the_old_shape_is_refused_naming_the_new_one():
    with pytest.raises(RegistryError, match=r"^register_model\('oldshape\.v1'\): the factory .*_old must take "
                                            r"\(resolved, builder\); resolved\.options holds the options$"):
        @register_model("oldshape", 1, "a factory written (spec, builder, opts)", ("oldshape",))
        def _old(spec, builder, opts):
            return None
    assert "oldshape" not in FAMILIES


def test_an_unrecorded_name_that_is_no_option_of_the_family_is_refused():
    class Typo(_ToyOptions):
        unrecorded = ("scal",)

    with pytest.raises(RegistryError, match=r"^register_model\('typo\.v1'\): Typo\.unrecorded names scal, not an "
                                            r"identity option of the family$"):
        register_model("typo", 1, "misspelt unrecorded", ("typo",), options=Typo)


def test_an_object_adapter_that_raises_fails_that_model_with_one_line_naming_it():
    import numpy as np

    from compeval.errors import CompevalError
    from compeval.models.protocol import OBJECT_ADAPTERS, as_model, register_object_adapter

    class Mine:
        def encode(self, texts):
            return np.ones((len(texts), 2), dtype=np.float32)

    OBJECT_ADAPTERS.load()
    state = OBJECT_ADAPTERS.snapshot()
    try:
        @register_object_adapter("fragile")
        def _fragile(obj):
            return obj.not_there  # an adapter that takes every object for its own library's

        with pytest.raises(CompevalError, match=r"^model object adapter 'fragile' \(.*_fragile\) failed on a Mine: "
                                                r"AttributeError: 'Mine' object has no attribute 'not_there'$"):
            as_model(Mine())
    finally:
        OBJECT_ADAPTERS.restore(state)
