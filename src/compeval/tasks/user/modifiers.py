"""``modifiers``: a user's AN/AAN list with adjective categories, scored by the modifier suite's tests 1–3.

Phrases are encoded as written (no word-vector retokenisation); docs/user-tasks.md gives the subsets."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import DataError
from ...results.schema import Score
from ..base import TaskMetadata, TaskOutput
from ..options import TaskOptions, resamples
from ..modifiers.aggregate import aggregate, bootstrap_note
from ..modifiers.measures import Embedded, intersectivity, non_subsectivity, pair_cases, pair_intersectivity
from ..modifiers.stimuli import PAD, StringTable
from ..modifiers.tasks import DISTANCE_NOTE, EncoderRequiredError
from ..scoring import can_encode
from .base import SUITE, UserTask, check_duplicates, label_column, text_cell
from .tables import Table
from ...lazy import lazy_module

pd = lazy_module("pandas")


class ModifiersOptions(TaskOptions):
    adjective: str = "adjective"  # column of the (first) adjective
    adjective2: str = ""  # column of a second adjective (an empty cell: an AN phrase); "" = AN phrases only
    noun: str = "noun"  # column of the noun
    category: str = "category"  # column of the first adjective's category (one category per adjective)
    n_resamples: int = resamples()  # nouns resampled (cluster bootstrap) per interval
    ignore_distance_ge1: bool = False  # test 1: the authors' filter, comparisons at distance >= 1 left out


class UserModifiers(UserTask):
    kind = "modifiers"
    metadata = TaskMetadata(name="modifiers", suite=SUITE, main_metric="test1_macro",
                            description="a user's adjective-noun list: the modifier tests 1-3")
    Options = ModifiersOptions
    options: ModifiersOptions
    main_metric = "test1_macro"
    #: Every phrase, and the phrase sizes; a pair of categories is ``c1|c2``.
    own_subsets = ("all", "AN", "AAN")

    def prepare(self, table: Table) -> None:
        o = self.options
        adj = [text_cell(table, i, o.adjective, v) for i, v in enumerate(table.column("adjective", o.adjective))]
        noun = [text_cell(table, i, o.noun, v) for i, v in enumerate(table.column("noun", o.noun))]
        cats = label_column(table, o.category, "category")
        adj2 = ([str(v).strip() if v is not None else "" for v in table.column("adjective2", o.adjective2)]
                if o.adjective2 else [""] * len(adj))
        category: dict[str, tuple[str, int]] = {}
        for i, (a, c) in enumerate(zip(adj, cats)):
            if c in self.own_subsets or "|" in c or "/" in c:
                raise table.bad(i, o.category, f"{c!r} names a subset of compeval's own ({', '.join(self.own_subsets)}, "
                                               "a pair with '|', or a name with '/'); rename the category")
            before = category.setdefault(a, (c, i))
            if before[0] != c:
                raise table.bad(i, o.category, f"adjective {a!r} has category {c!r} here and {before[0]!r} on line "
                                               f"{table.lines[before[1]]}; give each adjective one category")
        for i, a2 in enumerate(adj2):
            if a2 and a2 not in category:
                raise table.bad(i, o.adjective2, f"adjective {a2!r} has no category: give it a row as the first "
                                                 "adjective")
            if a2 == adj[i]:
                raise table.bad(i, o.adjective2, f"the same adjective {a2!r} twice in one phrase")
        words = [[a, *([a2] if a2 else []), n] for a, a2, n in zip(adj, adj2, noun)]
        check_duplicates(table, [" ".join(w) for w in words], ", ".join(c for c in (o.adjective, o.adjective2,
                                                                                    o.noun) if c))
        an = [k for k, w in enumerate(words) if len(w) == 2]
        if not an:
            raise table.bad(0, o.adjective2 or o.adjective, "no adjective-noun (AN) phrase; tests 2 and 3 need them")
        self._build(words, adj, adj2, noun, {a: c for a, (c, _) in category.items()})

    def _build(self, words, adj, adj2, noun, category) -> None:
        """String ids as the built-in stimuli hold them (``modifiers.stimuli``): phrase, words, splits, AN grid."""
        table = StringTable()
        P = len(words)
        self.phrase = np.array([table.id(" ".join(w)) for w in words], np.int64)
        self.words = np.full((P, 3), PAD, np.int64)
        self.parts = np.full((P, 3, 2), PAD, np.int64)
        for i, w in enumerate(words):
            self.words[i, :len(w)] = table.ids(w)
            for k in range(1 if len(w) == 2 else 3):  # splits {w_k | the rest in order}
                self.parts[i, k] = (table.id(w[k]), table.id(" ".join(w[:k] + w[k + 1:])))
        self.strings = table.strings
        self.adjectives = list(dict.fromkeys(adj))
        self.nouns = list(dict.fromkeys(noun))
        adj_index = {a: k for k, a in enumerate(self.adjectives)}
        self.noun_id = np.array([self.nouns.index(n) for n in noun], np.int64)
        self.is_an = np.array([not a2 for a2 in adj2])
        self.adj_category = np.array([category[a] for a in self.adjectives], dtype=object)
        self.config = np.array([category[a] if not a2 else f"{category[a]}|{category[a2]}" for a, a2 in zip(adj, adj2)],
                               dtype=object)
        self.an_grid = np.full((len(self.adjectives), len(self.nouns)), PAD, np.int64)
        for i in np.flatnonzero(self.is_an):
            self.an_grid[adj_index[adj[i]], self.noun_id[i]] = self.phrase[i]
        self.categories = list(dict.fromkeys(self.adj_category.tolist()))
        self.category_pairs = [f"{a}|{b}" for a in self.categories for b in self.categories]

    def subset_names(self) -> list[str]:
        return ["AN", "AAN", *self.categories, *self.category_pairs]

    def _ids(self) -> np.ndarray:
        ids = np.unique(np.concatenate([self.phrase, self.words.ravel(), self.parts.ravel()]))
        return ids[ids != PAD]

    def texts(self) -> list[str]:
        return [self.strings[i] for i in self._ids()]

    def evaluate(self, model: Any, *, seed: int) -> TaskOutput:
        if not can_encode(model):
            raise EncoderRequiredError(f"task {self.name}: model {model.config.display} only scores pairs; the "
                                       "modifier tests need an embedding per phrase and per word")
        ids = self._ids()
        emb = Embedded(model.encode([self.strings[i] for i in ids]), ids, len(self.strings))
        B, o = self.options.n_resamples, self.options
        d_words = emb.dist(self.phrase[:, None], self.words)
        d_parts = emb.dist(self.parts[..., 0], self.parts[..., 1])
        test1 = intersectivity(d_words, d_parts, ignore_ge1=o.ignore_distance_ge1)

        cases = pair_intersectivity(emb, self.an_grid)
        present = self._test2_present(cases)  # both phrases of both adjectives listed (d1, d2 not NaN)
        test2 = np.where(present, cases["holds"], np.nan)
        pair_of = self.adj_category[cases["adj1"]] + "|" + self.adj_category[cases["adj2"]]

        an = self.is_an
        d_adj, d_noun = emb.dist(self.phrase[an], self.words[an, 0]), emb.dist(self.phrase[an], self.words[an, 1])
        test3 = non_subsectivity(d_adj, d_noun)
        scores = self._scores(test1, test2, test3, seed)

        phrases = [self.strings[i] for i in self.phrase]
        frames = [
            pd.DataFrame({"test": "test1", "phrase": phrases, "subset": self.config,
                          "noun": [self.nouns[k] for k in self.noun_id], "holds": test1.astype(float)}),
            pd.DataFrame({"test": "test2", "phrase": [f"{self.strings[self.an_grid[a1, n1]]} / "
                                                      f"{self.strings[self.an_grid[a2, n1]]}" if ok else ""
                                                      for a1, a2, n1, ok in zip(cases["adj1"], cases["adj2"],
                                                                                cases["noun1"], present)],
                          "subset": pair_of, "noun": [self.nouns[k] for k in cases["noun1"]],
                          "holds": test2})[present],
            pd.DataFrame({"test": "test3", "phrase": [p for p, keep in zip(phrases, an) if keep],
                          "subset": self.config[an], "noun": [self.nouns[k] for k in self.noun_id[an]],
                          "holds": test3.astype(float)}),
        ]
        predictions = pd.concat(frames, ignore_index=True)
        counts = {**self.source_record, "phrases": len(phrases), "an_phrases": int(an.sum()),
                  "aan_phrases": int((~an).sum()), "adjectives": len(self.adjectives), "nouns": len(self.nouns),
                  "test2_cases": int(present.sum()), "unique_strings": int(len(ids)),
                  "zero_vector_strings": int(emb.zero_rows.sum()), "distance": DISTANCE_NOTE,
                  "ignore_distance_ge1": o.ignore_distance_ge1,
                  "ties": "test 1 passes a tie (<=); tests 2 and 3 fail it (strict <)",
                  "macro": "per-noun mean within each subset, then unweighted mean over nouns",
                  "bootstrap": bootstrap_note(B, seed)}
        return TaskOutput(scores=scores, n_items=len(phrases), predictions=predictions, counts=counts)

    def _test2_present(self, cases: dict[str, np.ndarray]) -> np.ndarray:
        """Test 2's cases whose four phrases (a1 n, a1 n', a2 n, a2 n') are all in the user's list."""
        grid = self.an_grid != PAD
        return (grid[cases["adj1"], cases["noun1"]] & grid[cases["adj1"], cases["noun2"]]
                & grid[cases["adj2"], cases["noun1"]] & grid[cases["adj2"], cases["noun2"]])

    def score_predictions(self, predictions: pd.DataFrame, *, seed: int) -> list[Score]:
        """Recomputed from each test's per-case ``holds``; the rows must be the user's list's, in evaluate's order."""
        for column in ("test", "phrase", "noun", "holds"):
            if column not in predictions:
                raise DataError(f"{self.slug}: the predictions lack the column {column}")
        cases = pair_cases(self.an_grid)
        present = self._test2_present(cases)
        phrases = [self.strings[i] for i in self.phrase]
        an = self.is_an
        expected = {
            "test1": (phrases, [self.nouns[k] for k in self.noun_id]),
            "test2": ([f"{self.strings[self.an_grid[a1, n1]]} / {self.strings[self.an_grid[a2, n1]]}"
                       for a1, a2, n1 in zip(cases["adj1"][present], cases["adj2"][present], cases["noun1"][present])],
                      [self.nouns[k] for k in cases["noun1"][present]]),
            "test3": ([p for p, keep in zip(phrases, an) if keep], [self.nouns[k] for k in self.noun_id[an]]),
        }
        holds = {}
        for test, (phrase, noun) in expected.items():
            rows = predictions[predictions["test"].astype(str) == test]
            if rows["phrase"].astype(str).tolist() != phrase or rows["noun"].astype(str).tolist() != noun:
                raise DataError(f"{self.slug}: the predictions' {test} cases are not the user's list's")
            values = pd.to_numeric(rows["holds"], errors="coerce").to_numpy(dtype=np.float64)
            if not np.isin(values, (0.0, 1.0)).all():
                raise DataError(f"{self.slug}: the predictions' {test} holds values other than 0 and 1")
            holds[test] = values
        test2 = np.full(len(present), np.nan)
        test2[present] = holds["test2"]
        return self._scores(holds["test1"], test2, holds["test3"], seed)

    def _scores(self, test1: np.ndarray, test2: np.ndarray, test3: np.ndarray, seed: int) -> list[Score]:
        """Tests 1-3's scores from their per-case outcomes (test 2: NaN where a case's phrases are not all
        listed): evaluate's and score_predictions' one path."""
        B = self.options.n_resamples
        everything = lambda n: np.full(n, "all", dtype=object)  # noqa: E731
        sizes = np.where(self.is_an, "AN", "AAN")
        groups = ["all", "AN", "AAN", *self.categories, *self.category_pairs]

        def scored(values, labels, nouns, metric):
            return (aggregate(values, everything(len(values)), nouns, metric, ("all",), seed=seed, n_resamples=B)
                    + aggregate(values, labels[0], nouns, metric, groups, seed=seed, n_resamples=B)
                    + (aggregate(values, labels[1], nouns, metric, groups, seed=seed, n_resamples=B)
                       if len(labels) > 1 else []))

        cases = pair_cases(self.an_grid)
        pair_of = self.adj_category[cases["adj1"]] + "|" + self.adj_category[cases["adj2"]]
        an = self.is_an
        return (scored(test1, (sizes, self.config), self.noun_id, "test1")
                + scored(test2, (pair_of,), cases["noun1"], "test2")
                + scored(test3, (sizes[an], self.config[an]), self.noun_id[an], "test3"))
