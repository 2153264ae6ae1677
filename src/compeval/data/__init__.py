"""Data registry: pinned public sources, local directories, verified downloads."""
from .registry import DataContext, DataFile, DataSource, get_source, register_source

__all__ = ["DataContext", "DataFile", "DataSource", "get_source", "register_source"]
