"""Your own stimuli as tasks (suite ``user``): pairs, triplets, labelled sentences and modifier lists from a
CSV, TSV or JSON Lines file or a Hugging Face dataset, declared on the command line (``KIND:SOURCE,…``) or
in a TOML file, each scored by the method compeval already has for its shape. See docs/user-tasks.md."""
from ..registry import register_declaration, register_spec_kind
from . import declare
from .modifiers import UserModifiers
from .pairs import UserPairs
from .probe import UserProbe
from .triplets import UserTriplets

for _cls in (UserPairs, UserTriplets, UserProbe, UserModifiers):
    declare.KINDS[_cls.kind] = _cls
    register_spec_kind(_cls.kind, declare.from_spec)
register_declaration(declare.SUFFIX, declare.from_file)
