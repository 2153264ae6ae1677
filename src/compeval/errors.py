"""Errors a user can act on. Every message says what is wrong and what to do."""


class CompevalError(Exception):
    """Base class: the CLI prints these without a traceback. The message is redacted when made
    (``compeval.redact``), so no route that shows it can show a secret a spec carried."""

    def __init__(self, *args):
        from .redact import redact

        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class SpecError(CompevalError):
    """A model or task spec that cannot be parsed or names nothing registered."""


class DataError(CompevalError):
    """Missing, malformed or unverifiable data."""


class MissingDataError(DataError):
    """A data set is not where it was looked for."""


class MalformedDataError(DataError):
    """A data file line that cannot be read; the message names file and line."""

    def __init__(self, path, line_no: int, reason: str):
        self.path, self.line_no, self.reason = str(path), line_no, reason
        super().__init__(f"{path}:{line_no}: {reason}")


class InputTextError(CompevalError):
    """A text a model cannot meaningfully encode (empty, whitespace only)."""


class ModelOutputError(CompevalError):
    """A model returned something unusable (NaN/inf vectors, wrong shape)."""


class ModelCapabilityError(CompevalError):
    """The task needs something the model cannot do (e.g. encode texts, when it only scores pairs)."""


class TrainingError(CompevalError):
    """A trained head failed (diverged to a NaN/inf loss); the message names the head and its seed."""


class CompevalWarning(UserWarning):
    """Something compeval repaired (a damaged cache entry dropped); the CLI prints one ``warning:`` line."""


class RegistryError(CompevalError):
    """Two plug-ins register one name; the message names both origins."""
