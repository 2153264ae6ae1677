"""Montague modifier-consistency suite (Carvalho et al. 2024): see docs/modifiers.md."""
from .tasks import (ModifierControls, ModifierIntersectivity, ModifierNonSubsectivity,  # noqa: F401
                    ModifierPairIntersectivity)
