"""Text × model configuration → vector, shared by every task and process."""
from .cached import CachedModel, CacheStats, EmbeddingCache
from .store import EmbeddingStore, default_cache_dir

__all__ = ["CachedModel", "CacheStats", "EmbeddingCache", "EmbeddingStore", "default_cache_dir"]
