"""compeval can be cited (issue 36): CITATION.cff is valid CFF 1.2.0 in its required fields (checked by hand:
the cffconvert validator pins an old jsonschema), carries the package's version, and names the five papers
whose methods the suites implement; the README's "Citing" section names the same works."""
import re
from pathlib import Path

import yaml

import compeval

ROOT = Path(__file__).resolve().parents[2]


def test_citation_file_names_compeval_and_the_five_papers():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["message"] and cff["authors"]
    assert "compeval" in cff["title"] and cff["version"] == compeval.__version__
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(rf'^version = "{re.escape(cff["version"])}"$', pyproject, re.M)
    firsts = {r["authors"][0]["family-names"] for r in cff["references"]}
    assert {"Fodor", "Carvalho", "Ettinger", "Shwartz", "Cheung"} <= firsts
    for r in cff["references"]:
        assert r["type"] and r["year"] and all("family-names" in a for a in r["authors"])

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    citing = readme[readme.index("## Citing"):]
    citing = " ".join(citing.split())
    assert "CITATION.cff" in citing and "compeval" in citing
    for r in cff["references"]:
        assert r["title"] in citing, r["title"]
