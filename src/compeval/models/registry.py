"""Model registry: spec string → model, with versioned family names (as spaCy's registries).

A family registers under ``NAME`` with a version; ``NAME:ARG`` uses the latest version and
``NAME.vN:ARG`` pins one. Aliases give packaged models short names (``glove-6b-50d``).
Composite models (mixed, role models) build their parts through the same builder, so
every part sits behind the cache too. A family declares its spec options once (``options=``, a
``ModelOptions`` subclass, see ``models/options.py``); the builder parses them, applies the common
``name``, and hands the factory the typed options.

``FAMILIES`` (name -> {version: family}) and ``ALIASES`` are ``compeval.registry.Registry`` instances: the
modules of ``compeval.models`` and the ``compeval.models`` entry points (a separately installed family) are
imported when either is first read, and a second family of one name and version, or a second alias of one
name, is refused with both origins named.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

from .. import plugins
from ..context import resolve_device
from ..errors import CompevalError, SpecError
from ..registry import Registry, origin_of
from ..specs import Spec, parse_spec
from .normalize import refuse_model_norm
from .options import ModelOptions, TorchOptions

Factory = Callable[..., Any]  # (spec, builder, options) -> model


@dataclass(frozen=True)
class ModelFamily:
    name: str
    version: int
    description: str
    spec_forms: tuple[str, ...]
    factory: Factory
    extra: str | tuple[str, ...] | None = None  # optional-dependency group(s) that the family needs
    options: type[ModelOptions] = ModelOptions

    @property
    def torch(self) -> bool:
        """Torch-backed: accepts device, dtype, batch, max_length."""
        return issubclass(self.options, TorchOptions)

    @property
    def versioned(self) -> str:
        return f"{self.name}.v{self.version}"


@dataclass(frozen=True)
class Alias:
    name: str
    target: str  # a spec string
    description: str

    @cached_property
    def spec(self) -> Spec:
        """The target, parsed once per process (every build of the alias expands it)."""
        return parse_spec(self.target)


def _discover_models() -> None:
    plugins.discover("compeval.models")
    ALIASES.load()  # the other registry the same modules and entry points fill
    FAMILIES.load()


FAMILIES: Registry[dict[int, ModelFamily]] = Registry("model family", group="compeval.models",
                                                      discover=_discover_models, versioned=True)
ALIASES: Registry[Alias] = Registry("model alias", group="compeval.models", discover=_discover_models)
BROKEN = plugins.BROKEN  # module -> import error, shown by the CLI and checked by tests


def register_model(name: str, version: int, description: str, spec_forms: tuple[str, ...] | list[str],
                   extra: str | tuple[str, ...] | None = None, options: type[ModelOptions] = ModelOptions):
    """Decorator for a factory ``(spec, builder, options) -> model``.

    ``spec_forms`` name the argument (``sbert:ORG/NAME|PATH``); ``options`` is the family's ``Options``
    class (a ``ModelOptions`` subclass: the common options; ``TorchOptions`` adds the torch ones), and the
    factory receives an instance of it.
    """
    if not (isinstance(options, type) and issubclass(options, ModelOptions)):
        raise TypeError(f"register_model({name!r}): options must be a ModelOptions subclass, got {options!r}")

    def deco(factory: Factory) -> Factory:
        old = (FAMILIES.peek(name) or {}).get(version)
        if old is None or old.factory is not factory:  # the same factory again (a module imported twice): no-op
            FAMILIES.register(name, ModelFamily(name, version, description, tuple(spec_forms), factory, extra,
                                                options), origin=origin_of(factory), version=version)
        return factory

    return deco


def register_alias(name: str, target: str, description: str) -> None:
    """A short name for a spec string; a second alias of one name (another target or text) is refused."""
    old = ALIASES.peek(name)
    if old is None or (old.target, old.description) != (target, description):
        ALIASES.register(name, Alias(name, target, description))


def discover() -> None:
    """Import each module and sub-package of ``compeval.models`` (one level; a package imports its own
    registering modules) and the ``compeval.models`` entry points, so that registrations run without
    importing every helper module; reading ``FAMILIES`` or ``ALIASES`` does this by itself."""
    FAMILIES.load()


def did_you_mean(name: str, known: list[str]) -> str:
    """``did you mean all-MiniLM-L6-v2? `` for the closest known name (case aside), as tasks have; else ""."""
    import difflib

    lower = {k.lower(): k for k in known}
    close = difflib.get_close_matches(name.lower(), list(lower), 1, 0.6)
    return f"did you mean {lower[close[0]]}? " if close else ""


def resolve_family(name: str) -> ModelFamily:
    discover()
    base, _, ver = name.partition(".v")
    if base not in FAMILIES:
        known = sorted(set(FAMILIES) | set(ALIASES))
        raise SpecError(f"unknown model {name!r}; {did_you_mean(base, known)}known models and families: "
                        f"{', '.join(known)} (run `compeval models` for the spec forms)")
    versions = FAMILIES[base]
    if ver:
        if not ver.isdigit() or int(ver) not in versions:
            raise SpecError(f"model family {base!r} has no version {ver!r}; versions: "
                            f"{', '.join('v%d' % v for v in sorted(versions))}")
        return versions[int(ver)]
    return versions[max(versions)]


def expand_alias(spec: Spec) -> Spec:
    """Aliases to their target spec; a bare ``ORG/NAME`` to ``sbert:`` or ``hf:`` (see ``models/hub.py``)."""
    discover()
    if "/" in spec.name and spec.arg is None and spec.name not in ALIASES:
        from .hub import bare_spec
        from .recipes import missing_family

        out = bare_spec(spec)
        if out.name not in FAMILIES:  # e.g. NV-Embed-v2's nvembed, registered by its own module
            raise SpecError(missing_family(str(spec), out.name))
        return out
    if spec.name in ALIASES and spec.arg is not None and spec.name not in FAMILIES:
        raise SpecError(f"model {spec.name!r} takes no ':ARG' (got ':{spec.arg}'): it is the packaged model "
                        f"{ALIASES[spec.name].target!r}; give its options after a comma")
    seen = set()
    while spec.name in ALIASES and spec.arg is None:
        if spec.name in seen:
            raise SpecError(f"alias loop at {spec.name!r}")
        seen.add(spec.name)
        target = ALIASES[spec.name].spec
        spec = Spec(target.name, target.arg, {**target.options, **spec.options})
    return spec


def check_spec(text: str | Spec) -> Spec:
    """Everything about a model spec that can be known without building it (name, family, argument form,
    options and their ranges): a SpecError now rather than when a job runs. A bare Hub ``ORG/NAME`` is
    checked when built. Returns the parsed spec (a ``Spec`` given is not parsed again)."""
    spec = parsed = parse_spec(text) if isinstance(text, str) else text
    text = str(text)
    refuse_model_norm(spec, text)
    if "/" in spec.name and spec.arg is None and spec.name not in ALIASES:
        return parsed
    spec = expand_alias(spec)
    family = resolve_family(spec.name)
    _check_form(spec, family, text)
    family.options.parse(dict(spec.options), text)
    return parsed


def _check_form(spec: Spec, family: ModelFamily, text: str) -> None:
    if spec.arg is not None and not any(":" in form for form in family.spec_forms):
        raise SpecError(f"{text}: model family {spec.name!r} takes no ':ARG' (got ':{spec.arg}'); its form is "
                        f"{' | '.join(family.spec_forms)}")


@dataclass
class ModelBuilder:
    """Builds models from specs; with a cache, every model (and every part of a composite) is cached."""

    cache: Any = None  # compeval.cache.EmbeddingCache | None
    data_dir: Any = None  # where models that read released parses find them (else $COMPEVAL_DATA_DIR)
    # Run settings (compeval.context.RunContext), never identity: torch families take them as defaults that
    # a spec's own device= / batch= overrides (TorchSetup.from_options), and record them in
    # ModelConfig.settings, never in ModelConfig.params or the id.
    device: str = "auto"  # the run's resolved device (RunContext.torch_device()); "auto": resolved by device_for
    batch_size: int | None = None  # None: the family's own default
    max_batch_tokens: int | None = None  # padded tokens per forward pass (models/batching.py); None: family's
    _built: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def for_context(cls, ctx: Any, cache: Any = None) -> "ModelBuilder":
        """The builder of a run (``compeval.context.RunContext``): its data folder, device and batch size."""
        return cls(cache=cache, data_dir=ctx.data_dir, device=ctx.torch_device(), batch_size=ctx.batch_size,
                   max_batch_tokens=getattr(ctx, "max_batch_tokens", None))

    def device_for(self, own: str | None, where: str) -> str:
        """The device a torch model built here runs on, and the one place a model's device is resolved: the
        spec's own ``device=`` (a per-model run setting; its errors name the spec), else the run's, resolved
        already (a builder made outside a run resolves its ``auto`` here, once)."""
        if own is not None:
            try:
                return resolve_device(own)
            except CompevalError as exc:
                reason = str(exc).partition(": ")[2].replace("--device ", "device=")
                raise SpecError(f"{where}: device={own}: {reason}") from None
        if self.device == "auto":
            self.device = resolve_device(self.device)
        return self.device

    def __call__(self, text: str | Spec) -> Any:
        spec = parse_spec(text) if isinstance(text, str) else text
        key = str(spec)
        if key not in self._built:
            self._built[key] = self._build(spec, key)
        return self._built[key]

    def _build(self, spec: Spec, text: str) -> Any:
        """Checks the spec as it builds (``check_spec`` without a second pass): alias, family, form, options."""
        refuse_model_norm(spec, text)
        spec = expand_alias(spec)
        family = resolve_family(spec.name)
        _check_form(spec, family, text)
        opts = family.options.parse(dict(spec.options), text)
        try:
            model = family.factory(spec, self, opts)
        except ImportError as exc:
            extras = (family.extra,) if isinstance(family.extra, str) else family.extra
            hint = f"pip install 'compeval[{','.join(extras)}]'" if extras else "install the missing package"
            raise SpecError(f"model {text!r} needs a package that is not installed ({exc}); {hint}") from exc
        if opts.name:
            model = _renamed(model, opts.name, text)
        if self.cache is not None:
            model = self.cache.wrap(model)
        return model


def _renamed(model: Any, name: str, text: str) -> Any:
    """``,name=``: the model's name in its id and results, whatever the family would call it. The new
    config replaces the one the model keeps: ``_config`` behind a ``config`` property, or a plain
    ``config`` attribute."""
    if not name.isprintable():
        raise SpecError(f"{text!r}: name={name!r} holds a line break or another control character; names are "
                        "one printable line (they head tables and file listings)")
    config = model.config.model_copy(update={"name": name})
    attr = "_config" if hasattr(model, "_config") else "config"
    try:
        setattr(model, attr, config)
    except AttributeError:
        raise SpecError(f"{text}: {type(model).__name__} cannot be renamed: its config is a read-only property "
                        "with no _config behind it; keep the config in self._config or self.config") from None
    if model.config.name != name:
        raise SpecError(f"{text}: {type(model).__name__} cannot be renamed: its config property builds a new "
                        "ModelConfig on every call; keep the config in self._config or self.config")
    return model


def load_model(spec: str, cache: Any = None, data_dir: Any = None) -> Any:
    """Build one model from a spec string (see ``compeval models``)."""
    return ModelBuilder(cache=cache, data_dir=data_dir)(spec)


def family_forms(fam: ModelFamily) -> str:
    """Spec forms with the declared options appended."""
    suffix = fam.options.spec_form()
    return " | ".join(f + suffix for f in fam.spec_forms)


def list_models() -> list[dict[str, str]]:
    discover()
    rows = []
    for alias in sorted(ALIASES.values(), key=lambda a: a.name):
        rows.append({"name": alias.name, "kind": "alias", "spec": alias.target, "description": alias.description})
    for name in sorted(FAMILIES):
        fam = FAMILIES[name][max(FAMILIES[name])]
        rows.append({"name": fam.versioned, "kind": "family", "spec": family_forms(fam),
                     "description": fam.description})
    return rows
