"""Registered data sets: one module per suite, each calling ``register_source``; all are imported here."""
import importlib
import pkgutil

for _mod in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_mod.name}")
