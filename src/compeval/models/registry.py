"""Model registry: spec string → model, versioned family names as spaCy's (``NAME.vN:ARG`` pins one).
A spec is resolved once per run, before any download (``ResolvedModel``); nothing parses it again.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from .. import plugins
from ..context import resolve_device
from ..errors import CompevalError, RegistryError, SpecError
from ..registry import Registry, origin_of
from ..specs import Spec, parse_spec, quote_value
from .normalize import refuse_model_norm
from .options import ModelOptions, TorchOptions

Factory = Callable[..., Any]  # (ResolvedModel, ModelBuilder) -> model


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
    # the folder of a packaged model's files (imports its package, loads no weights): shown by
    # `compeval models NAME`, so that a user can copy the model and evaluate a fine-tuned version
    folder: Callable[[], Path] | None = field(default=None, compare=False)
    own: str = ""  # how to evaluate one's own version of it (a fine-tuned copy of the folder, other vectors)

    @cached_property
    def spec(self) -> Spec:
        """The target, parsed once per process (every build of the alias expands it)."""
        return parse_spec(self.target)


def _discover_models() -> None:
    plugins.discover("compeval.models.families")
    ALIASES.load()  # the other registry the same modules and entry points fill
    FAMILIES.load()


FAMILIES: Registry[dict[int, ModelFamily]] = Registry("model family", group="compeval.models",
                                                      discover=_discover_models, versioned=True)
ALIASES: Registry[Alias] = Registry("model alias", group="compeval.models", discover=_discover_models)
BROKEN = plugins.BROKEN  # module -> import error, shown by the CLI and checked by tests


def register_model(name: str, version: int, description: str, spec_forms: tuple[str, ...] | list[str],
                   extra: str | tuple[str, ...] | None = None, options: type[ModelOptions] = ModelOptions):
    """Decorator for a factory ``(resolved, builder) -> model``; ``builder`` builds composites' parts.
    ``spec_forms`` name the argument (``sbert:ORG/NAME|PATH``); ``options`` learns its family here for
    ``to_model_config``."""
    if not (isinstance(options, type) and issubclass(options, ModelOptions)):
        raise TypeError(f"register_model({name!r}): options must be a ModelOptions subclass, got {options!r}")

    versioned = f"{name}.v{version}"
    owner = options.__dict__.get("family")
    if owner not in (None, versioned):
        raise TypeError(f"register_model({versioned!r}): {options.__name__} is the options of {owner}; give each "
                        "family (and version) its own ModelOptions subclass")

    stray = sorted(set(options.unrecorded) - {param for _, param, _ in options._identity_fields()})
    if stray:  # a misspelt name would leave the option it meant in the id
        raise RegistryError(f"register_model({versioned!r}): {options.__name__}.unrecorded names {', '.join(stray)}, "
                            "not an identity option of the family")

    def deco(factory: Factory) -> Factory:
        try:
            inspect.signature(factory).bind(None, None)
        except (TypeError, ValueError):
            raise RegistryError(f"register_model({versioned!r}): the factory {origin_of(factory)} must take "
                                "(resolved, builder); resolved.options holds the options") from None
        if options not in (ModelOptions, TorchOptions):
            options.family = versioned
        old = (FAMILIES.peek(name) or {}).get(version)
        if old is None or old.factory is not factory:  # the same factory again (a module imported twice): no-op
            FAMILIES.register(name, ModelFamily(name, version, description, tuple(spec_forms), factory, extra,
                                                options), origin=origin_of(factory), version=version)
        return factory

    return deco


def register_alias(name: str, target: str, description: str, folder: Callable[[], Path] | None = None,
                   own: str = "") -> None:
    """A short name for a spec string; a second alias of one name (another target or text) is refused.
    ``folder`` returns where a packaged model's files are; ``own`` says how to run one's own version."""
    old = ALIASES.peek(name)
    if old is None or (old.target, old.description) != (target, description):
        ALIASES.register(name, Alias(name, target, description, folder, own))


def discover() -> None:
    """Import the family modules and the entry points (reading ``FAMILIES`` or ``ALIASES`` does it too)."""
    FAMILIES.load()


def did_you_mean(name: str, known: list[str]) -> str:
    """``did you mean all-MiniLM-L6-v2? `` for the closest known name (case aside), as tasks have; else ""."""
    import difflib

    lower = {k.lower(): k for k in known if k != name}  # the typed name itself is no suggestion
    close = difflib.get_close_matches(name.lower(), list(lower), 1, 0.6)
    return f"did you mean {lower[close[0]]}? " if close else ""


def resolve_family(name: str) -> ModelFamily:
    discover()
    base, _, ver = name.partition(".v")
    if base not in FAMILIES and base in ALIASES:
        raise SpecError(f"{name!r} is a packaged model ({ALIASES[base].target}), not a model family; "
                        f"`compeval models {base}` shows it")
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


@dataclass(frozen=True)
class ResolvedModel:
    """A model spec resolved once per run, before any weights are fetched; jobs and workers receive it pickled.
    ``weights`` None: a Hub repo the build still fetches. ``family`` None: a bare Hub id until ``decided()``.
    Equal when they build the same model the same way (``text`` and ``spec`` are for messages)."""

    text: str = field(compare=False)  # the spec as the user wrote it
    spec: Spec = field(compare=False)  # alias expanded, a bare ORG/NAME given its family: what the factory gets
    family: str | None  # "hf.v1"; None: a bare Hub id whose family the files decide (candidates)
    arg: str | None
    options: ModelOptions | None
    recipe: str | None = None
    weights: Any = None  # hub.Weights | None
    device: str | None = None
    candidates: tuple[str, ...] = ()
    torch: bool = False  # a torch family (every candidate of an undecided bare id is one)

    def __str__(self) -> str:
        return self.text

    @property
    def name(self) -> str | None:
        """The family's registered name (``hf``), or None while undecided."""
        return self.family.partition(".v")[0] if self.family else None

    @property
    def family_spec(self) -> "ModelFamily | None":
        return resolve_family(self.family) if self.family else None

    @property
    def own_device(self) -> bool:
        return self.options is not None and "device" in self.options.model_fields_set

    def on_device(self, run_device: str | None) -> "ResolvedModel":
        """This model under a run on ``run_device``: a torch model without its own ``device=`` runs there."""
        if not self.torch or self.own_device or run_device is None or run_device == self.device:
            return self
        return replace(self, device=run_device)

    @property
    def identity(self) -> dict[str, Any]:
        """The options that change what the model computes."""
        return self.options.identity() if self.options is not None else {}

    @property
    def run_settings(self) -> dict[str, Any]:
        """How it runs (device, batch…), never part of an id: the options' run settings, the device resolved."""
        out = self.options.run_settings() if self.options is not None else {}
        if self.device is not None:
            out["device"] = self.device
        return out

    @property
    def spec_string(self) -> str:
        """A spec that resolves to an equal object: the family, its argument and every option the spec set."""
        if self.family is None:
            return str(self.spec)
        head = self.name + (f":{self.arg}" if self.arg is not None else "")
        given = self.options.model_fields_set if self.options is not None else set()
        return head + "".join(f",{k}={quote_value(_spec_value(getattr(self.options, k)))}" for k in sorted(given))

    def local_weights(self, arg: str | None = None) -> Any:
        """The weights as resolved, where their folder is on this machine (digested once per run); else
        ``hub.resolve`` of ``arg`` (default: the spec's), fetched now if it must be (a worker elsewhere)."""
        if self.weights is not None and self.weights.directory.is_dir():
            return self.weights
        from .hub import resolve

        return resolve(arg or self.arg, getattr(self.options, "revision", None))

    def decided(self) -> "ResolvedModel":
        """An undecided bare Hub id with its family chosen from the repo's files, fetched here; else as it is."""
        if self.family is not None:
            return self
        from .hub import resolve, resolved_bare

        weights = resolve(str(self.arg), self.spec.options.get("revision") or None)
        return _resolve_spec(resolved_bare(self.spec, weights), self.text, self.device, weights)


def _spec_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def resolve_model(text: "str | Spec | ResolvedModel", device: str | None = None) -> ResolvedModel:
    """Resolve a model spec once, every option checked before any download; ``device``: the run's (None: unknown)."""
    if isinstance(text, ResolvedModel):
        return text.on_device(device)
    spec = parse_spec(text) if isinstance(text, str) else text
    text = str(text)
    refuse_model_norm(spec, text)
    if "/" in spec.name and spec.arg is None and spec.name not in ALIASES:
        return _resolve_bare(spec, text, device)
    return _resolve_spec(expand_alias(spec), text, device, None)


def _resolve_bare(spec: Spec, text: str, device: str | None) -> ResolvedModel:
    """A bare ``ORG/NAME`` or folder: its recipe from the recipe table or the repo's files where they are on
    this machine (``hub.locate``, no Hub access); else the family stays open between the candidates, each
    of which would run it, and the options must fit one of them."""
    from .hub import locate, resolved_bare

    discover()
    weights = locate(spec.name, spec.options.get("revision") or None)
    out = resolved_bare(spec, weights)
    if out is not None:
        if out.name not in FAMILIES:  # e.g. NV-Embed-v2's nvembed, registered by its own module
            from .recipes import missing_family

            raise SpecError(missing_family(text, out.name))
        return _resolve_spec(out, text, device, weights)
    candidates = ("sbert", "hf")  # modules.json decides (recipes.choose); both take recipe=
    errors = []
    for name in candidates:
        try:
            resolve_family(name).options.parse(dict(spec.options), text)
        except SpecError as exc:
            errors.append(exc)
    if len(errors) == len(candidates):  # fits neither: the line of the family that knows the option
        raise next((e for e in errors if "unknown option" not in str(e)), errors[-1])
    families = [resolve_family(c) for c in candidates]
    return ResolvedModel(text, spec, None, spec.name, None, None, weights, device,
                         tuple(f.versioned for f in families), all(f.torch for f in families))


def _resolve_spec(spec: Spec, text: str, device: str | None, weights: Any) -> ResolvedModel:
    """An expanded ``NAME[:ARG]``: options parsed once with the recipe's defaults, weights located, device resolved."""
    family = resolve_family(spec.name)
    _check_form(spec, family, text)
    values = dict(spec.options)
    recipe = values.get("recipe")
    if recipe:
        values = _with_recipe_values(family, values, recipe, spec.arg, text)
    opts = family.options.parse(values, text)
    if recipe:  # which options the user set is kept: the recipe's are defaults
        aliases = family.options.aliases()
        given = {aliases.get(k, k) for k in spec.options}
        object.__setattr__(opts, "__pydantic_fields_set__", given & set(type(opts).model_fields))
    if weights is None and getattr(family.options, "weights_arg", False) and spec.arg:
        from .hub import locate

        weights = locate(spec.arg, getattr(opts, "revision", None))
    own = opts.device if isinstance(opts, TorchOptions) and "device" in opts.model_fields_set else None
    if own is not None:
        try:
            device = resolve_device(own)
        except CompevalError as exc:
            reason = str(exc).partition(": ")[2].replace("--device ", "device=")
            raise SpecError(f"{text}: device={own}: {reason}") from None
    elif not family.torch:
        device = None
    return ResolvedModel(text, spec, family.versioned, spec.arg, opts, recipe or None, weights, device,
                         torch=family.torch)


def _with_recipe_values(family: ModelFamily, values: dict, recipe: str, repo: str | None, text: str) -> dict:
    """The spec's raw option values over a recipe's settings (parsed once); another family's recipe is an error."""
    from .prompts import without_prompt_defaults
    from .recipes import RECIPES, recipe_options

    if recipe not in RECIPES:
        return values  # the parse names the allowed values
    r = RECIPES[recipe]
    if r.family != family.name:
        raise SpecError(f"{text}: recipe {r.key} runs in the {r.family} family; write "
                        f"{r.family}:NAME,recipe={r.key} or the bare repo id")
    aliases = family.options.aliases()
    given = {aliases.get(k, k) for k in values}
    defaults = without_prompt_defaults(given, recipe_options(r, repo))  # a prompt of the spec's replaces the recipe's
    return {**{k: v for k, v in defaults.items() if k not in given}, **values}


def check_spec(text: "str | Spec | ResolvedModel") -> ResolvedModel:
    """Everything about a model spec that can be known without building it: ``resolve_model``."""
    return resolve_model(text)


def _check_form(spec: Spec, family: ModelFamily, text: str) -> None:
    if spec.arg is not None and not any(":" in form for form in family.spec_forms):
        raise SpecError(f"{text}: model family {spec.name!r} takes no ':ARG' (got ':{spec.arg}'); its form is "
                        f"{' | '.join(family.spec_forms)}")


@dataclass
class ModelBuilder:
    """Builds models from specs; with a cache, every model (and every part of a composite) is cached."""

    cache: Any = None  # compeval.cache.EmbeddingCache | None
    data_dir: Any = None  # where models that read released parses find them (else $COMPEVAL_DATA_DIR)
    # Run settings (compeval.context.RunContext), never identity: defaults that a spec's own device= / batch=
    # overrides (TorchSetup.of), recorded in ModelConfig.settings, never in params or the id.
    device: str = "auto"  # the run's resolved device (RunContext.torch_device()); "auto": run_device resolves it
    batch_size: int | None = None  # None: the family's own default
    max_batch_tokens: int | None = None  # padded tokens per forward pass (models/batching.py); None: family's
    _built: dict[str, Any] = field(default_factory=dict)
    _resolved: dict[str, "ResolvedModel"] = field(default_factory=dict)

    @classmethod
    def for_context(cls, ctx: Any, cache: Any = None) -> "ModelBuilder":
        """The builder of a run (``compeval.context.RunContext``): its data folder, device and batch size."""
        return cls(cache=cache, data_dir=ctx.data_dir, device=ctx.torch_device(), batch_size=ctx.batch_size,
                   max_batch_tokens=getattr(ctx, "max_batch_tokens", None))

    def run_device(self) -> str:
        """The run's device; a builder made outside a run resolves its ``auto`` here, once."""
        if self.device == "auto":
            self.device = resolve_device(self.device)
        return self.device

    def resolve(self, text: "str | Spec | ResolvedModel") -> ResolvedModel:
        """``resolve_model`` under this builder's device, once per spec text (composites ask for parts again)."""
        if isinstance(text, ResolvedModel):
            return text.on_device(self._run_device())
        key = str(text)
        if key not in self._resolved:
            self._resolved[key] = resolve_model(text, self._run_device())
        return self._resolved[key]

    def _run_device(self) -> str | None:
        return None if self.device == "auto" else self.device

    def __call__(self, text: "str | Spec | ResolvedModel") -> Any:
        resolved = self.resolve(text)
        key = resolved.spec_string
        if key not in self._built:
            self._built[key] = self._build(resolved)
        return self._built[key]

    def _build(self, resolved: ResolvedModel) -> Any:
        """Builds the resolved model; nothing is parsed or checked again."""
        resolved = resolved.decided()
        if resolved.torch and resolved.device is None:
            resolved = replace(resolved, device=self.run_device())
        family = resolve_family(resolved.family)
        opts, text = resolved.options, resolved.text
        try:
            model = family.factory(resolved, self)
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
    """``,name=``: the model's name in its id and results; the new config replaces the kept one (``_config``
    behind a ``config`` property, or a plain ``config`` attribute)."""
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
