"""Your own stimuli as tasks (suite ``user``): pairs, triplets, labelled sentences and modifier lists from a
CSV, TSV or JSON Lines file or a Hugging Face dataset, declared on the command line (``KIND:SOURCE,…``) or
in a TOML file, each scored by the method compeval already has for its shape. See docs/user-tasks.md."""
from ..registry import DECLARATIONS, SPEC_KINDS
from . import declare
from .modifiers import UserModifiers
from .pairs import UserPairs
from .probe import UserProbe
from .triplets import UserTriplets

for _cls in (UserPairs, UserTriplets, UserProbe, UserModifiers):
    SPEC_KINDS.register(_cls.kind, _cls)
DECLARATIONS.register(declare.SUFFIX, declare.from_file)
