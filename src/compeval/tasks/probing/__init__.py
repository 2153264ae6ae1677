"""Probing suite: classifiers that try to read semantic facts (roles, negation scope, content) off
sentence vectors, on generated minimal pairs (Ettinger et al. 2016) and the Ettinger et al. 2018 sets.
See docs/probing.md."""

from . import ettinger2018, tasks  # noqa: F401  (registers the suite's tasks on import)
