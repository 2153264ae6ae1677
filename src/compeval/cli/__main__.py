"""``python -m compeval.cli``: the same command line as ``compeval``."""
from . import main

main()
