"""The report's table of the 2016 paper's figures beside compeval's, from results run with the paper's options."""
from __future__ import annotations

import re
from html import unescape

from compeval.models.families.toy import HashBagEncoder
from compeval.report.build import build_report
from compeval.runner import run

SMALL = "n_train=40,n_test=20,classifiers=logreg"


def test_paper_rows_are_marked_and_compeval_rows_come_from_the_papers_setting(tmp_path):
    model = HashBagEncoder(dim=8)
    summary = run([model], [f"probe-x-as-agent,preset=school-as-agent,{SMALL}", f"probe-x-as-agent,{SMALL}",
                            f"probe-has-human,{SMALL}"], tmp_path / "res", cache_dir=None)
    assert not summary.failed, summary.failed
    build_report(tmp_path / "res", tmp_path / "report.html", n_resamples=50, n_permutations=50)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    start = html.index('id="table-probing-2016"')
    rows = [[unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, re.S)]
            for r in re.findall(r"<tr[^>]*>(.*?)</tr>", html[start:html.index("</table>", start)], re.S)]
    assert rows[0] == ["model", "has-school", "has-human", "school-as-agent"]
    by_model = {r[0]: r[1:] for r in rows[1:]}
    # published figures come with the results that carry them: no has-x result here, so no has-school figure
    assert by_model["Skip-Thought (published)"] == ["–", "99.00", "91.15"]
    assert by_model["GloVe average (published)"][2] == "47.98"
    # the preset's result, not the default grammar's: a bag of words is exactly at chance there
    assert by_model["hashbag,dim=8"][2] == "50.00"
    assert by_model["hashbag,dim=8"][0] == "–"
    assert by_model["hashbag,dim=8"][1] != "–" and not by_model["hashbag,dim=8"][1].endswith(" *")


def test_a_result_with_other_options_is_starred(tmp_path):
    summary = run([HashBagEncoder(dim=8)], [f"probe-x-as-agent,{SMALL}"], tmp_path / "res", cache_dir=None)
    assert not summary.failed, summary.failed
    build_report(tmp_path / "res", tmp_path / "report.html", n_resamples=50, n_permutations=50)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    start = html.index('id="table-probing-2016"')
    table = unescape(re.sub(r"<[^>]+>", "|", html[start:html.index("</table>", start)]))
    assert re.search(r"\|hashbag,dim=8\|.*\|\d+\.\d\d \*\|", table.replace("||", "|").replace("||", "|"))
