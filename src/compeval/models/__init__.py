"""Model families behind one protocol; ``load_model(spec)`` builds any of them."""
from .protocol import Encoder, ForeignEncoder, Model, ModelConfig, PairScorer, as_model
from .registry import ModelBuilder, list_models, load_model, register_alias, register_model

__all__ = ["Encoder", "ForeignEncoder", "Model", "ModelConfig", "PairScorer", "as_model", "ModelBuilder",
           "list_models", "load_model", "register_alias", "register_model"]
