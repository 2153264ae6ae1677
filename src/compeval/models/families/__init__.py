"""The model families, one module (or package) each; ``registry`` discovers them, so adding one edits no
other file. The machinery they share (registry, options, hub, recipes, prompts, batching) is ``models/``."""
