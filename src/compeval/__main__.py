"""``python -m compeval``: the same command line as ``compeval``."""
from .cli import main

main()
