"""Static word vectors: operators, tokenisation conventions and file formats, on hand-made vectors."""
import numpy as np
import pytest

from compeval.errors import MalformedDataError
from compeval.models.families.static import StaticModel, compose, load_vectors
from compeval.models.tokenize import NLTK_STOPWORDS, tokenize
from compeval.metrics import cosine_rows


@pytest.fixture()
def vec_file(tmp_path):
    rows = {"red": [1, 0, 0, 0], "car": [0, 1, 0, 0], "fast": [0, 0, 1, 0], "drive": [0, 0, 0, 1],
            "lawyer": [1, 1, 0, 0], "judge": [0, 1, 1, 0], "attacked": [1, 0, 1, 1]}
    p = tmp_path / "tiny.txt"
    p.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in rows.items()))
    return p


def test_operators_known_values():
    w = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    assert np.allclose(compose(w, "mean"), [2.5, 3.5, 4.5])
    assert np.allclose(compose(w, "sum"), [5, 7, 9])
    assert np.allclose(compose(w, "mult"), [4, 10, 18])
    # circular convolution by definition: c[k] = sum_j a[j] b[(k - j) mod d]
    expected = [sum(w[0, j] * w[1, (k - j) % 3] for j in range(3)) for k in range(3)]
    assert np.allclose(compose(w, "conv"), expected)
    assert np.allclose(compose(w, "tensor"), np.outer(w[0], w[1]).ravel())
    three = compose(np.vstack([w, w[:1]]), "tensor")
    assert three.shape == (9,) and np.isfinite(three).all()
    assert compose(np.zeros((0, 3), np.float32), "mean").tolist() == [0, 0, 0]


def test_commutative_operators_are_order_blind(vec_file):
    for op in ("mean", "mult", "conv"):
        m = StaticModel(str(vec_file), op=op)
        a, b = m.encode(["lawyer attacked judge", "judge attacked lawyer"])
        assert np.allclose(a, b, atol=1e-6), op
    t = StaticModel(str(vec_file), op="tensor")
    a, b = t.encode(["lawyer judge", "judge lawyer"])
    assert not np.allclose(a, b)


def test_bag_of_words_cannot_separate_a_double_swap(vec_file):
    m = StaticModel(str(vec_file))
    e = m.encode(["the lawyer attacked the judge", "the judge attacked the lawyer"])
    assert cosine_rows(e[:1], e[1:])[0] == pytest.approx(1.0)


def test_tokenisation_conventions():
    assert tokenize("The dog's toy, it.", "clean") == ["the", "dog", "s", "toy", "it"]
    # STS3k: stop words are dropped before punctuation is stripped, so "it." survives as "it"
    assert tokenize("The dog's toy, it.", "sts3k") == ["dogs", "toy", "it"]
    assert tokenize("fake gun", "montague") == ["fake", "gun"]
    assert len(NLTK_STOPWORDS) == 179


def test_stopword_list_matches_the_authors_file(data_dir):
    words = (data_dir / "sts3k" / "stopwords.txt").read_text().split()
    assert set(words) == set(NLTK_STOPWORDS)


def test_unknown_word_conventions(vec_file):
    clean = StaticModel(str(vec_file), tok="clean").encode(["red zzz"])[0]
    montague = StaticModel(str(vec_file), tok="montague").encode(["red zzz"])[0]
    assert np.allclose(clean, [1, 0, 0, 0])  # skipped
    assert np.allclose(montague, [0.5, 0, 0, 0])  # zero vector still counts in the mean
    sts = StaticModel(str(vec_file), tok="sts3k").encode(["the drives", "the xyz"])
    assert np.allclose(sts[0], [0, 0, 0, 1])  # verb-lemma retry: drives -> drive
    assert np.allclose(sts[1], 0)  # nothing known: zero vector (scored as missing)


def test_word2vec_binary_and_header_formats(tmp_path, vec_file):
    ref = load_vectors(str(vec_file))
    header = tmp_path / "w2v.txt"
    header.write_text(f"{len(ref.index)} 4\n" + vec_file.read_text())
    binary = tmp_path / "w2v.bin"
    with open(binary, "wb") as f:
        f.write(f"{len(ref.index)} 4\n".encode())
        for w, i in ref.index.items():
            f.write(w.encode() + b" " + ref.matrix[i].astype(np.float32).tobytes() + b"\n")
    for p in (header, binary):
        v = load_vectors(str(p))
        assert v.index.keys() == ref.index.keys()
        assert np.allclose(v.matrix, ref.matrix)


def test_conceptnet_numberbatch_files(tmp_path):
    """Numberbatch: a word2vec-style header, terms as /c/<lang>/<term>; English kept under the bare term,
    other languages dropped; the .txt.gz release reads the same; roles:/static: specs accept the path."""
    import gzip

    lines = ["5 3", "/c/en/red 1 0 0", "/c/de/rot 9 9 9", "/c/en/black_cat 0 1 0", "/c/fr/chat 7 7 7",
             "/c/en/cat 0 0 1"]
    txt = tmp_path / "numberbatch.txt"
    txt.write_text("\n".join(lines) + "\n")
    gz = tmp_path / "numberbatch.txt.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    for p in (txt, gz):
        v = load_vectors(str(p))
        assert list(v.index) == ["red", "black_cat", "cat"]
        assert np.allclose(v.vector("cat"), [0, 0, 1]) and "rot" not in v and "/c/en/red" not in v
    m = StaticModel(str(txt))
    assert np.allclose(m.encode(["red cat"])[0], [0.5, 0, 0.5])
    from compeval.models.registry import load_model

    assert np.allclose(load_model(f"static:{gz}").encode(["cat"])[0], [0, 0, 1])


def test_malformed_vector_file_names_the_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("a 1 2 3\nb 1 2\n")
    with pytest.raises(MalformedDataError, match=r"bad.txt:2: expected 3 numbers"):
        load_vectors(str(p))


def test_config_id_tracks_everything_that_changes_output(vec_file):
    ids = {StaticModel(str(vec_file), op=op, tok=tok).config.id
           for op in ("mean", "mult") for tok in ("clean", "sts3k")}
    assert len(ids) == 4
    assert StaticModel(str(vec_file)).config.id == StaticModel(str(vec_file)).config.id
