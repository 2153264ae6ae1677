"""Model registry: spec string → model, with versioned family names (as spaCy's registries).

A family registers under ``NAME`` with a version; ``NAME:ARG`` uses the latest version and
``NAME.vN:ARG`` pins one. Aliases give packaged models short names (``glove-6b-50d``).
Composite models (mixed, role models) build their parts through the same builder, so
every part sits behind the cache too. A family declares its spec options once (``options=``, see
``models/options.py``); the builder parses them, applies the common ``name``, and hands the
factory typed values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .. import plugins
from ..errors import SpecError
from ..specs import Spec, parse_spec
from .normalize import refuse_model_norm
from .options import COMMON, Opt, declared_options, options_form, parse_options

Factory = Callable[..., Any]  # (spec, builder, options) -> model; (spec, builder) for undeclared families


@dataclass(frozen=True)
class ModelFamily:
    name: str
    version: int
    description: str
    spec_forms: tuple[str, ...]
    factory: Factory
    extra: str | tuple[str, ...] | None = None  # optional-dependency group(s) that the family needs
    options: dict[str, Opt] | None = None  # None: the factory parses its own options (older plug-ins)
    torch: bool = False  # torch-backed: accepts device, dtype, batch, max_length

    @property
    def versioned(self) -> str:
        return f"{self.name}.v{self.version}"


@dataclass(frozen=True)
class Alias:
    name: str
    target: str  # a spec string
    description: str


FAMILIES: dict[str, dict[int, ModelFamily]] = {}
ALIASES: dict[str, Alias] = {}
BROKEN = plugins.BROKEN  # module -> import error, shown by the CLI and checked by tests


def register_model(name: str, version: int, description: str, spec_forms: tuple[str, ...] | list[str],
                   extra: str | tuple[str, ...] | None = None, options: tuple[Opt, ...] | list[Opt] | None = None,
                   torch: bool = False):
    """Decorator for a factory ``(spec, builder, options) -> model``.

    ``spec_forms`` name the argument (``sbert:ORG/NAME|PATH``); ``options`` declare the family's own spec
    options (the common ones, and with ``torch=True`` the torch ones, are added). A family registered
    without ``options`` gets ``(spec, builder)`` and parses its own (the common ones are taken out first).
    """

    def deco(factory: Factory) -> Factory:
        declared = declared_options(options, torch) if options is not None or torch else None
        FAMILIES.setdefault(name, {})[version] = ModelFamily(
            name, version, description, tuple(spec_forms), factory, extra, declared, torch
        )
        return factory

    return deco


def register_alias(name: str, target: str, description: str) -> None:
    ALIASES[name] = Alias(name, target, description)


def discover() -> None:
    """Import each module and sub-package of ``compeval.models`` (one level; a package imports its own
    registering modules) so that registrations run without importing every helper module."""
    plugins.discover("compeval.models")


def resolve_family(name: str) -> ModelFamily:
    discover()
    base, _, ver = name.partition(".v")
    if base not in FAMILIES:
        known = sorted(set(FAMILIES) | set(ALIASES))
        raise SpecError(f"unknown model {name!r}; known models and families: {', '.join(known)} "
                        "(run `compeval models` for the spec forms)")
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
        target = parse_spec(ALIASES[spec.name].target)
        spec = Spec(target.name, target.arg, {**target.options, **spec.options})
    return spec


def check_spec(text: str) -> None:
    """Everything about a model spec that can be known without building it (name, family, argument form,
    options and their ranges): a SpecError now rather than when a job runs. A bare Hub ``ORG/NAME`` is
    checked when built."""
    spec = parse_spec(text)
    refuse_model_norm(spec, text)
    if "/" in spec.name and spec.arg is None and spec.name not in ALIASES:
        return
    spec = expand_alias(spec)
    family = resolve_family(spec.name)
    if spec.arg is not None and not any(":" in form for form in family.spec_forms):
        raise SpecError(f"{text}: model family {spec.name!r} takes no ':ARG' (got ':{spec.arg}'); its form is "
                        f"{' | '.join(family.spec_forms)}")
    if family.options is not None:
        parse_options(family.options, dict(spec.options), text)


@dataclass
class ModelBuilder:
    """Builds models from specs; with a cache, every model (and every part of a composite) is cached."""

    cache: Any = None  # compeval.cache.EmbeddingCache | None
    data_dir: Any = None  # where models that read released parses find them (else $COMPEVAL_DATA_DIR)
    # Run settings (compeval.context.RunContext), never identity: torch families take them as defaults that
    # a spec's own device= / batch= overrides (TorchSetup.from_options), and record them in
    # ModelConfig.settings, never in ModelConfig.params or the id.
    device: str = "auto"  # auto | cpu | cuda | cuda:N | mps, resolved by compeval.context.resolve_device
    batch_size: int | None = None  # None: the family's own default
    max_batch_tokens: int | None = None  # padded tokens per forward pass (models/batching.py); None: family's
    _built: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def for_context(cls, ctx: Any, cache: Any = None) -> "ModelBuilder":
        """The builder of a run (``compeval.context.RunContext``): its data folder, device and batch size."""
        return cls(cache=cache, data_dir=ctx.data_dir, device=ctx.device, batch_size=ctx.batch_size,
                   max_batch_tokens=getattr(ctx, "max_batch_tokens", None))

    def __call__(self, text: str | Spec) -> Any:
        spec = parse_spec(text) if isinstance(text, str) else text
        key = str(spec)
        if key not in self._built:
            self._built[key] = self._build(spec, key)
        return self._built[key]

    def _build(self, spec: Spec, text: str) -> Any:
        check_spec(text)
        spec = expand_alias(spec)
        family = resolve_family(spec.name)
        raw = dict(spec.options)
        try:
            if family.options is not None:
                opts = parse_options(family.options, raw, text)
                model = family.factory(Spec(spec.name, spec.arg, raw), self, opts)
            else:
                common = {o.name: o for o in COMMON}
                opts = parse_options(common, {k: raw.pop(k) for k in list(raw) if k in common}, text)
                model = family.factory(Spec(spec.name, spec.arg, raw), self)
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
    """``,name=``: the model's name in its id and results, whatever the family would call it."""
    if not hasattr(model, "_config"):
        raise SpecError(f"{text}: this model cannot be renamed (it keeps no _config)")
    if not name.isprintable():
        raise SpecError(f"{text!r}: name={name!r} holds a line break or another control character; names are "
                        "one printable line (they head tables and file listings)")
    model._config = model.config.model_copy(update={"name": name})
    return model


def load_model(spec: str, cache: Any = None, data_dir: Any = None) -> Any:
    """Build one model from a spec string (see ``compeval models``)."""
    return ModelBuilder(cache=cache, data_dir=data_dir)(spec)


def family_forms(fam: ModelFamily) -> str:
    """Spec forms with the declared options appended (undeclared families show their own forms)."""
    suffix = options_form(fam.options) if fam.options is not None else ""
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
