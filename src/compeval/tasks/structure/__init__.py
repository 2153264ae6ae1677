"""STS3k structure analyses (pair types, per-type profiles, modifier effects), fine-tuning
generalisation, human-data reliability and a controlled minimal-pair generator (suite ``structure``)."""

from . import tasks  # noqa: F401  (registers the suite's tasks on import)
from . import fulltune  # noqa: F401  (sts3k-finetune-full)
