"""``compeval cite [DIR]``: BibTeX for compeval and for the papers behind the methods and data sets of a
results folder's results (all of them without DIR), each entry with the suites and data sets that need it;
every registered suite and data set has its papers, so a new one cannot go uncited."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

import compeval
from compeval.citations import DATA, SUITES, TITLE, WORKS, cite
from compeval.data.registry import SOURCES
from compeval.tasks.registry import suites

ROOT = Path(__file__).resolve().parents[2]
SRC = str(Path(compeval.__file__).resolve().parents[1])

ENTRY = re.compile(r"^@(\w+)\{([\w-]+),\n((?:  \w+ += \{.*\},?\n)+)\}$", re.M)


def cli(*args, ok=True):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-m", "compeval", *args], capture_output=True, text=True, env=env,
                       timeout=300)
    assert (r.returncode == 0) == ok, r.stdout + r.stderr
    return r.stdout + r.stderr


def entries(text: str) -> dict[str, str]:
    found = {m[2]: m[0] for m in ENTRY.finditer(text)}
    for body in found.values():  # braces balance in each entry
        depth = 0
        for ch in body:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0, body
        assert depth == 0, body
    return found


def test_every_suite_and_data_set_has_its_papers():
    assert set(suites()) <= set(SUITES)
    assert set(SOURCES) == set(DATA)
    for keys in (*SUITES.values(), *DATA.values()):
        assert set(keys) <= set(WORKS)


def test_cite_without_a_folder_prints_every_work():
    text = cli("cite")
    got = entries(text)
    assert set(got) == {"compeval", *WORKS}
    assert f"Software, version {compeval.__version__}" in got["compeval"] and TITLE in got["compeval"]
    for key in ("grefenstette2011", "kartsaklis2013", "marelli2014", "cer2017", "oshea2014", "abdalla2023"):
        assert key in got  # the STS data sets
    assert all(len(line) <= 80 for line in text.splitlines() if line.startswith("%"))


def test_cite_a_results_folder_names_only_what_its_results_used(tmp_path, data_dir):
    from compeval.runner import run

    run(["random,dim=8"], ["gs2011", "modifiers-test3"], tmp_path, data_dir=data_dir, cache_dir=None)
    got = entries(cli("cite", str(tmp_path)))
    assert set(got) == {"compeval", "fodor2024", "grefenstette2011", "carvalho2024"}
    text = cli("cite", str(tmp_path))
    assert "% data set gs2011" in text and "method of the modifiers suite" in text
    assert "marelli2014" not in text and "ettinger2016" not in text


def test_cite_an_empty_folder_is_one_line(tmp_path):
    text = cli("cite", str(tmp_path), ok=False)
    assert "holds no readable result" in text and len(text.strip().splitlines()) == 1


def test_citation_cff_matches_the_package():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["title"] == TITLE and cff["version"] == compeval.__version__
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    citing = readme[readme.index("## Citing"):]
    for name in ("SICK", "STS-B", "GS2011", "KS2013", "STSS-131", "STR-2022"):
        assert name in citing, name
    assert "compeval cite" in citing
    titles = {r["title"] for r in cff["references"]}
    for key, work in WORKS.items():  # the same works, in the same words, in CITATION.cff, README and `cite`
        title = dict(work.fields)["title"]
        assert title in titles and title in citing, key
