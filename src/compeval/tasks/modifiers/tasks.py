"""The modifier-consistency suite: one task per test plus ``modifiers-controls`` (docs/modifiers.md).

The controls are separate so the plain tests do not pay for the ~50k synonym strings only they need."""
from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
from pydantic import Field

from ...errors import DataError, ModelCapabilityError
from ...data.registry import DataContext
from ...results.schema import Score
from ...results.store import as_written
from ..base import EvalCost, Task, TaskMetadata, TaskOutput
from ..options import TaskOptions, resamples
from ..registry import register_task
from ...models.protocol import can_encode, capability
from .aggregate import aggregate, bootstrap_note
from .published import TEST1_PUBLISHED, TEST2_PUBLISHED, TEST3_PUBLISHED
from .categories import CATEGORY_DIRECTIONS, category_scores, category_test
from .measures import (Embedded, adjective_weights, all_compared_ignored, intersectivity, non_subsectivity,
                       pair_cases, pair_intersectivity, word_pair_distances)
from .stimuli import PAD, Stimuli, build_stimuli, strings_for
from .words import ADJECTIVE_TYPES, ADJECTIVES, NOUNS
from ...lazy import lazy_module

pd = lazy_module("pandas")

SUITE = "modifiers"
REFERENCE = ("Carvalho, Manino, Rozanova, Cordeiro & Freitas, 'Montague semantics and modifier consistency "
             "measurement in neural language models' (2024); https://github.com/dscarvalho/modifiers_consistency")
TYPES = tuple(t.short for t in ADJECTIVE_TYPES)
TYPE_PAIRS = tuple(f"{a}|{b}" for a in TYPES for b in TYPES)
SIZES = ("AN", "AAN")
ADJ_WORDS = [a.word for a in ADJECTIVES]
ADJ_TYPE_SHORT = np.array([a.type_short for a in ADJECTIVES], dtype=object)
ADJ_TYPE_ID = np.array([TYPES.index(a.type_short) for a in ADJECTIVES], dtype=np.int64)  # 0..4 in TYPES order
NOUN_WORDS = [n for n, _ in NOUNS]
DISTANCE_NOTE = "d = 1 - cos; a zero vector has cos 0 with everything (d = 1), as torch's eps does in the authors' code"


class EncoderRequiredError(ModelCapabilityError):
    """The modifier tests compare embeddings of single strings, so the model must encode texts."""


def _categorical(codes: np.ndarray, labels: list[str]) -> pd.Categorical:
    return pd.Categorical.from_codes(np.where(codes == PAD, -1, codes), categories=labels)


#: The authors' tokenisation for word-vector models: whitespace tokens, an unknown one a zero vector that
#: still counts in the mean (``models.tokenize``, convention ``montague``).
AUTHORS_TOKENISATION = "montague"


@runtime_checkable
class WordVectorModel(Protocol):
    """Word vectors composed under a tokenisation convention, which name the spec that builds them
    (``static``): the task asks the run's builder for the same vectors under the authors' convention."""

    tok: str

    def spec(self, **changes: str) -> Any: ...


class ModifierOptions(TaskOptions):
    n_resamples: int = resamples()  # nouns resampled (cluster bootstrap) per interval
    # word-vector models: "authors" tokenises phrases as the authors' code does (the paper's figures);
    # "model" keeps the model's own convention (tok= in its spec). Other models are unaffected.
    word_tokenisation: Literal["authors", "model"] = "authors"


class FilterOptions(ModifierOptions):
    ignore_distance_ge1: bool = False  # the authors' filter: leave out comparisons at distance >= 1


class TypeTestOptions(ModifierOptions):
    # relabellings of the adjectives behind types_kw_p, the adjective-type test's p-value with the adjective as
    # the unit (0: none, and no types_kw_p; types_kw_p_chi2 takes the phrase as the unit)
    permutations: int = Field(999, ge=0)


class Test1Options(FilterOptions, TypeTestOptions):
    # what a phrase is compared with on AAN phrases: "splits" = each word against the rest of the phrase
    # (the authors' code, the published figures); "words" = every pair of single words (the paper's Eq. 3).
    # Identical on AN phrases. Default and reasons: docs/modifiers.md.
    parts: Literal["splits", "words"] = "splits"


#: Version of the tasks with the adjective-type test, whose ``types_kw_p`` is the permutation p (adjectives as
#: the unit) and ``types_kw_p_chi2`` the χ² p: a stored result of version 1 held the χ² p under
#: ``types_kw_p``, so it is recomputed, not reused.
TYPE_TEST_VERSION = "2"


class _ModifierTask(Task):
    """Shared plumbing: generated stimuli, one encode call, the embedding matrix, common counts."""
    conformance_options = "n_resamples=40"

    Options = ModifierOptions

    def load(self, data: DataContext | None = None) -> None:
        self.stimuli: Stimuli = build_stimuli()

    def _ensure_loaded(self) -> Stimuli:
        if not hasattr(self, "stimuli"):
            self.load(None)
        return self.stimuli

    def _string_ids(self) -> np.ndarray:
        raise NotImplementedError

    def texts(self) -> list[str]:
        s = self._ensure_loaded()
        return [s.strings[i] for i in self._string_ids()]

    def _embed(self, model: Any) -> Embedded:
        if not can_encode(model):
            raise EncoderRequiredError(
                f"task {self.name}: model {model.config.display} only scores pairs; these tests need "
                "an embedding per phrase and per word (use an encoder, e.g. glove-6b-50d or all-MiniLM-L6-v2)"
            )
        s = self._ensure_loaded()
        ids = self._string_ids()
        matrix = self._encoder(model).encode([s.strings[i] for i in ids])
        return Embedded(matrix, ids, len(s.strings))

    def _encoder(self, model: Any) -> Any:
        """The model, or for a word-vector model under another convention its vectors under the authors'
        tokenisation (``tok=montague``), built by the run's builder so they sit in the run's cache."""
        words = capability(model, WordVectorModel)
        self.tokenisation = getattr(words, "tok", None)
        if words is None or self.options.word_tokenisation == "model" or words.tok == AUTHORS_TOKENISATION:
            return model
        spec = words.spec(tok=AUTHORS_TOKENISATION)
        if spec is None:
            raise ModelCapabilityError(
                f"task {self.name}: model {model.config.display} holds word vectors given as an object, not by a "
                f"name or path, so they cannot be built under tok={AUTHORS_TOKENISATION}; give a spec such as "
                "static:PATH, or word_tokenisation=model")
        from ...models.registry import ModelBuilder  # only for word vectors: discovery stays cheap

        # the run's builder (behind its cache, on its data folder); outside a run, one with this context
        build = self.context.model_builder or ModelBuilder.for_context(self.context)
        self.tokenisation = AUTHORS_TOKENISATION
        return build(spec)

    def _type_test(self, values: np.ndarray, adjectives: np.ndarray, subset: str, grouping: str, seed: int,
                   case: str = "phrase") -> list:
        """The adjective-type test's scores for one test's per-case outcomes; ``case`` names the χ² p's unit."""
        test = category_test(values, adjectives, ADJ_TYPE_ID, list(TYPES), permutations=self.options.permutations,
                             seed=seed)
        return category_scores(test, subset, grouping, case)

    def _read(self, predictions: pd.DataFrame, columns: tuple[str, ...], keys: dict[str, list[str]]) -> pd.DataFrame:
        """The predictions checked against the generated stimuli: ``keys`` (column -> the data's value per
        row, in evaluate's order) must match row for row, and ``columns`` be present."""
        missing = [c for c in (*keys, *columns) if c not in predictions]
        if missing:
            raise DataError(f"{self.slug}: the predictions lack the column(s) {', '.join(missing)}")
        n = len(next(iter(keys.values())))
        if len(predictions) != n:
            raise DataError(f"{self.slug}: the predictions hold {len(predictions)} rows; the stimuli have {n} cases")
        for column, expected in keys.items():
            if predictions[column].astype(str).tolist() != expected:
                raise DataError(f"{self.slug}: the predictions' {column} differ from the stimuli's")
        return predictions

    def _flags(self, column: pd.Series) -> np.ndarray:
        """A written per-case outcome (true/false) back as booleans; a missing one is not of this task's output."""
        if column.isna().any():
            raise DataError(f"{self.slug}: the predictions' {column.name} has missing values")
        values = column.map({True: True, False: False, 1: True, 0: False})
        if values.isna().any():
            raise DataError(f"{self.slug}: the predictions' {column.name} holds values other than true/false")
        return values.to_numpy(dtype=bool)

    def _counts(self, emb: Embedded, ids: np.ndarray, seed: int) -> dict[str, Any]:
        s = self.stimuli
        zero = np.flatnonzero(emb.zero_rows)
        return {
            "phrases": int(len(s.phrase)), "an_phrases": int(s.is_an.sum()), "aan_phrases": int((~s.is_an).sum()),
            "unique_strings": int(len(ids)),
            "zero_vector_strings": int(len(zero)),
            "zero_vector_examples": [s.strings[ids[i]] for i in zero[:10]],
            "distance": DISTANCE_NOTE,
            "word_tokenisation": (f"{self.tokenisation} (option word_tokenisation={self.options.word_tokenisation})"
                                  if getattr(self, "tokenisation", None)
                                  else "the model's own (no static word-vector model behind the cache)"),
            "macro": "per-noun mean within each subset, then unweighted mean over nouns (authors' exp_run)",
            "bootstrap": bootstrap_note(self.options.n_resamples, seed),
        }


@register_task
class ModifierIntersectivity(_ModifierTask):
    """Test 1: a phrase is at least as close to each of its words as any two parts are to each other."""

    conformance_options = "ignore_distance_ge1=true,n_resamples=40"
    metadata = TaskMetadata(
        name="modifiers-test1", suite=SUITE, reference=REFERENCE, version=TYPE_TEST_VERSION,
        description="Montague modifier consistency, test 1 (single-phrase intersectivity) on 732 AN + 43,920 AAN phrases",
        main_metric="test1_macro", main_subset="AN", subsets=SIZES + TYPES + TYPE_PAIRS, published=TEST1_PUBLISHED,
        directions=CATEGORY_DIRECTIONS,
    )
    eval_cost = EvalCost(at_50=0.178, at_384=1.08)  # CPU s, benchmarks/eval_vs_encode.py --costs

    Options = Test1Options

    def _string_ids(self) -> np.ndarray:
        s = self.stimuli
        return strings_for(s, s.phrase, s.words, s.parts)

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        s = self._ensure_loaded()
        emb = self._embed(model)
        d_words = emb.dist(s.phrase[:, None], s.words)
        if self.options.parts == "words":
            d_parts = word_pair_distances(emb, s.words)
        else:
            d_parts = emb.dist(s.parts[..., 0], s.parts[..., 1])
        ignore = self.options.ignore_distance_ge1
        holds = intersectivity(d_words, d_parts, ignore_ge1=ignore)
        config = s.type_config()
        scores = self._scores(holds, seed)
        predictions = pd.DataFrame({
            "phrase": s.phrase_texts(), "subset": config, "noun": _categorical(s.noun, NOUN_WORDS),
            "holds": holds, "max_d_phrase_word": np.nanmax(d_words, axis=1), "min_d_parts": np.nanmin(d_parts, axis=1),
        })
        counts = self._counts(emb, self._string_ids(), seed)
        counts["ignore_distance_ge1"] = ignore
        counts["ties"] = "pass (d(p, w) <= d(part, part))"
        counts["parts"] = ("every pair of single words (the paper's Eq. 3)" if self.options.parts == "words" else
                           "each word against the rest of the phrase (the authors' code)")
        counts["filter_vacuous_passes"] = int(all_compared_ignored(d_words, d_parts).sum()) if ignore else 0
        return TaskOutput(scores=scores, n_items=len(holds), predictions=predictions, counts=counts)

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """The scores from the predictions' per-phrase ``holds``, grouped by the generated stimuli."""
        s = self._ensure_loaded()
        pred = self._read(predictions, ("holds",), {"phrase": s.phrase_texts()})
        return self._scores(self._flags(pred["holds"]), seed)

    def _scores(self, holds: np.ndarray, seed: int) -> list[Score]:
        """Test 1's scores from its per-phrase outcomes (evaluate's and score_predictions' one path)."""
        s = self.stimuli
        config = s.type_config()
        size = np.where(s.is_an, "AN", "AAN")
        B = self.options.n_resamples
        an = s.is_an
        return (aggregate(holds, size, s.noun, "test1", SIZES, seed=seed, n_resamples=B)
                + aggregate(holds, config, s.noun, "test1", TYPES + TYPE_PAIRS, seed=seed, n_resamples=B)
                + self._type_test(holds[an], s.adj1[an], "AN", "adjective type", seed)
                + self._type_test(holds[~an], np.stack([s.adj1[~an], s.adj2[~an]], axis=1), "AAN",
                                  "ordered pair of adjective types", seed))


@register_task
class ModifierPairIntersectivity(_ModifierTask):
    """Test 2: an intersective adjective keeps two nouns' phrases closer than a non-intersective one."""

    metadata = TaskMetadata(
        name="modifiers-test2", suite=SUITE, reference=REFERENCE, version=TYPE_TEST_VERSION,
        description="Montague modifier consistency, test 2 (phrase-pair intersectivity): d(a1 n, a1 n') < d(a2 n, a2 n') "
                    "over 66 noun pairs x 3,660 ordered adjective pairs",
        main_metric="test2_macro", main_subset="S-I|S-NI", subsets=TYPE_PAIRS + ("all",), published=TEST2_PUBLISHED,
        directions=CATEGORY_DIRECTIONS,
    )
    eval_cost = EvalCost(at_50=0.137, at_384=0.134)  # CPU s, benchmarks/eval_vs_encode.py --costs

    Options = TypeTestOptions

    def _string_ids(self) -> np.ndarray:
        return strings_for(self.stimuli, self.stimuli.an_grid)

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        s = self._ensure_loaded()
        emb = self._embed(model)
        cases = pair_intersectivity(emb, s.an_grid)
        subset = ADJ_TYPE_SHORT[cases["adj1"]] + "|" + ADJ_TYPE_SHORT[cases["adj2"]]
        scores = self._scores(cases, cases["holds"], seed)
        predictions = pd.DataFrame({
            "adj1": _categorical(cases["adj1"], ADJ_WORDS), "adj2": _categorical(cases["adj2"], ADJ_WORDS),
            "noun1": _categorical(cases["noun1"], NOUN_WORDS), "noun2": _categorical(cases["noun2"], NOUN_WORDS),
            "subset": pd.Categorical(subset, categories=list(TYPE_PAIRS)),
            "d_adj1": cases["d1"], "d_adj2": cases["d2"], "holds": cases["holds"],
        })
        counts = self._counts(emb, self._string_ids(), seed)
        counts["ties"] = "fail (strict <)"
        counts["macro"] = "per first noun n (nouns 0-10; the last noun has no later partner), then mean over nouns"
        return TaskOutput(scores=scores, n_items=len(subset), predictions=predictions, counts=counts)

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """Recomputed from the per-case ``holds``; the cases must be the stimuli's, in evaluate's order."""
        s = self._ensure_loaded()
        cases = pair_cases(s.an_grid)
        keys = {f"adj{i}": np.array(ADJ_WORDS, dtype=object)[cases[f"adj{i}"]].tolist() for i in (1, 2)}
        keys |= {f"noun{i}": np.array(NOUN_WORDS, dtype=object)[cases[f"noun{i}"]].tolist() for i in (1, 2)}
        pred = self._read(predictions, ("holds",), keys)
        return self._scores(cases, self._flags(pred["holds"]), seed)

    def _scores(self, cases: dict[str, np.ndarray], holds: np.ndarray, seed: int) -> list[Score]:
        """Test 2's scores from its per-case outcomes (evaluate's and score_predictions' one path)."""
        subset = ADJ_TYPE_SHORT[cases["adj1"]] + "|" + ADJ_TYPE_SHORT[cases["adj2"]]
        # The authors' run for noun n compares it with every noun n' after it, so n is the averaging unit.
        scores = aggregate(holds, subset, cases["noun1"], "test2", TYPE_PAIRS, seed=seed,
                           n_resamples=self.options.n_resamples)
        scores += self._type_test(holds, np.stack([cases["adj1"], cases["adj2"]], axis=1), "all",
                                  "pair of adjective types (a1, a2)", seed, case="comparison (a1, a2, n, n′)")
        return scores


@register_task
class ModifierNonSubsectivity(_ModifierTask):
    """Test 3: the AN phrase is closer to its adjective than to its noun (expected for NS types)."""

    metadata = TaskMetadata(
        name="modifiers-test3", suite=SUITE, reference=REFERENCE, version=TYPE_TEST_VERSION,
        description="Montague modifier consistency, test 3 (non-subsectivity): d(AN, A) < d(AN, N) on 732 AN phrases",
        main_metric="test3_macro", main_subset="NS-Pr", subsets=("AN",) + TYPES, published=TEST3_PUBLISHED,
        directions=CATEGORY_DIRECTIONS,
    )
    eval_cost = EvalCost(at_50=0.00826, at_384=0.00957)  # CPU s, benchmarks/eval_vs_encode.py --costs
    quick = ""  # the suite's quick task: 805 texts (test 1 has 48,385)

    Options = TypeTestOptions

    def _string_ids(self) -> np.ndarray:
        s = self.stimuli
        an = s.is_an
        return strings_for(s, s.phrase[an], s.words[an][:, :2])

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        s = self._ensure_loaded()
        emb = self._embed(model)
        an = s.is_an
        d_adj = emb.dist(s.phrase[an], s.words[an, 0])
        d_noun = emb.dist(s.phrase[an], s.words[an, 1])
        holds = non_subsectivity(d_adj, d_noun)
        types = ADJ_TYPE_SHORT[s.adj1[an]]
        scores = self._scores(holds, seed)
        predictions = pd.DataFrame({
            "phrase": [s.strings[i] for i in s.phrase[an]], "subset": types,
            "noun": _categorical(s.noun[an], NOUN_WORDS), "d_phrase_adj": d_adj, "d_phrase_noun": d_noun,
            "holds": holds,
        })
        counts = self._counts(emb, self._string_ids(), seed)
        counts["ties"] = "fail (strict <)"
        return TaskOutput(scores=scores, n_items=len(holds), predictions=predictions, counts=counts)

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """The scores from the predictions' per-AN-phrase ``holds``, grouped by the generated stimuli."""
        s = self._ensure_loaded()
        pred = self._read(predictions, ("holds",), {"phrase": [s.strings[i] for i in s.phrase[s.is_an]]})
        return self._scores(self._flags(pred["holds"]), seed)

    def _scores(self, holds: np.ndarray, seed: int) -> list[Score]:
        """Test 3's scores from its per-AN-phrase outcomes (evaluate's and score_predictions' one path)."""
        s = self.stimuli
        an = s.is_an
        types = ADJ_TYPE_SHORT[s.adj1[an]]
        B = self.options.n_resamples
        return (aggregate(holds, np.full(len(holds), "AN", object), s.noun[an], "test3", ("AN",), seed=seed, n_resamples=B)
                + aggregate(holds, types, s.noun[an], "test3", TYPES, seed=seed, n_resamples=B)
                + self._type_test(holds, s.adj1[an], "AN", "adjective type", seed))


@register_task
class ModifierControls(_ModifierTask):
    """Synonym controls of tests 1 and 3, the adjective-weight measure and the distance to a synonym variant."""

    metadata = TaskMetadata(
        name="modifiers-controls", suite=SUITE, reference=REFERENCE,
        description="Montague modifier consistency controls: test 1 with synonyms (phrase / words / parts), "
                    "test 3 with the adjective's synonym, adjective weight, phrase-to-synonym-variant distance",
        main_metric="syn_distance_macro", main_subset="AN", subsets=SIZES + TYPES + TYPE_PAIRS,
        directions={"syn_distance_macro": "none", "syn_distance_micro": "none"},
    )
    eval_cost = EvalCost(at_50=0.507, at_384=2.4)  # CPU s, benchmarks/eval_vs_encode.py --costs

    Options = FilterOptions

    def _string_ids(self) -> np.ndarray:
        s = self.stimuli
        return strings_for(s, s.phrase, s.syn_phrase, s.words, s.syn_words, s.parts, s.syn_parts)

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        s = self._ensure_loaded()
        emb = self._embed(model)
        ignore = self.options.ignore_distance_ge1
        B = self.options.n_resamples
        config = s.type_config()
        size = np.where(s.is_an, "AN", "AAN")
        d_words = emb.dist(s.phrase[:, None], s.words)
        d_parts = emb.dist(s.parts[..., 0], s.parts[..., 1])
        variants = {
            # the authors' control < 0: the phrase is encoded with its first word swapped
            "test1_syn_phrase": intersectivity(emb.dist(s.syn_phrase[:, None], s.words), d_parts, ignore),
            # control & 1: each single word swapped for its synonym
            "test1_syn_words": intersectivity(emb.dist(s.phrase[:, None], s.syn_words), d_parts, ignore),
            # control & 2: the first word of each part swapped
            "test1_syn_parts": intersectivity(d_words, emb.dist(s.syn_parts[..., 0], s.syn_parts[..., 1]), ignore),
        }
        # the distances and weights as the predictions file holds them: verify recomputes exactly
        syn_distance = as_written(emb.dist(s.phrase, s.syn_phrase))
        an = s.is_an
        test3_syn = non_subsectivity(emb.dist(s.phrase[an], s.syn_words[an, 0]), d_words[an, 1])
        weights = as_written(adjective_weights(d_words, s.n_adjectives).ravel()).reshape(-1, 2)
        scores = self._scores(variants, syn_distance, test3_syn, weights, seed)

        test3_col = pd.Series(pd.NA, index=range(len(s.phrase)), dtype="boolean")
        test3_col[an] = test3_syn  # AAN phrases have no test 3
        predictions = pd.DataFrame({
            "phrase": s.phrase_texts(), "subset": config, "noun": _categorical(s.noun, NOUN_WORDS),
            **{f"{k}_holds": v for k, v in variants.items()},
            "test3_syn_adj_holds": test3_col,
            "syn_distance": syn_distance, "adj1_weight": weights[:, 0], "adj2_weight": weights[:, 1],
        })
        counts = self._counts(emb, self._string_ids(), seed)
        counts["ignore_distance_ge1"] = ignore
        counts["adj_weight"] = ("d(p, a) / sum of d(p, w) over the phrase's real words; per-noun mean over all "
                                "AN and AAN slots of adjectives of the type (the authors' padded-slot +1.0 is not reproduced)")
        counts["synonym_controls"] = ("each flag alone; the authors' negative controls also set the word and part "
                                      "flags because they test bits of a negative int (-1 & 1 == 1)")
        return TaskOutput(scores=scores, n_items=len(s.phrase), predictions=predictions, counts=counts)

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """Recomputed from the per-phrase control outcomes, synonym distances and adjective weights."""
        s = self._ensure_loaded()
        names = [f"test1_syn_{k}_holds" for k in ("phrase", "words", "parts")]
        pred = self._read(predictions, (*names, "test3_syn_adj_holds", "syn_distance", "adj1_weight", "adj2_weight"),
                          {"phrase": s.phrase_texts()})
        variants = {name.removesuffix("_holds"): self._flags(pred[name]) for name in names}
        test3_syn = self._flags(pred["test3_syn_adj_holds"][s.is_an])

        def floats(column: str) -> np.ndarray:
            return pd.to_numeric(pred[column], errors="raise").to_numpy(dtype=np.float64)

        weights = np.stack([floats("adj1_weight"), floats("adj2_weight")], axis=1)
        return self._scores(variants, floats("syn_distance"), test3_syn, weights, seed)

    def _scores(self, variants: dict[str, np.ndarray], syn_distance: np.ndarray, test3_syn: np.ndarray,
                weights: np.ndarray, seed: int) -> list[Score]:
        """The controls' scores from their per-phrase values (evaluate's and score_predictions' one path)."""
        s = self.stimuli
        B = self.options.n_resamples
        config = s.type_config()
        size = np.where(s.is_an, "AN", "AAN")
        scores = []
        for metric, values in [*variants.items(), ("syn_distance", syn_distance)]:
            scores += aggregate(values, size, s.noun, metric, SIZES, seed=seed, n_resamples=B)
            scores += aggregate(values, config, s.noun, metric, TYPES + TYPE_PAIRS, seed=seed, n_resamples=B)

        an = s.is_an
        types_an = ADJ_TYPE_SHORT[s.adj1[an]]
        scores += aggregate(test3_syn, types_an, s.noun[an], "test3_syn_adj", TYPES, seed=seed, n_resamples=B)

        # Adjective weight, keyed by the adjective's own type over all phrases it occurs in (authors' measure).
        adj_of_slot = np.stack([s.adj1, s.adj2], axis=1)
        slot = adj_of_slot != PAD
        scores += aggregate(weights[slot], ADJ_TYPE_SHORT[adj_of_slot[slot]], np.broadcast_to(s.noun[:, None], slot.shape)[slot],
                            "adj_weight", TYPES, seed=seed, n_resamples=B)
        return scores
