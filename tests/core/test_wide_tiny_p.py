"""``compeval results --wide`` shows a tiny p-value as the narrow table does (9.4e-06), never as 0.0000."""
from __future__ import annotations

import os

from cli_process import cli

DATA = os.environ.get("COMPEVAL_DATA_DIR", "/work/shared/data")


def test_wide_results_show_a_tiny_p_value_as_it_is(tmp_path):
    import json

    run = cli("run", "-m", "hashbag", "-t", "modifiers-test3", "--no-cache", "--no-report", "--offline",
              cwd=tmp_path, COMPEVAL_DATA_DIR=DATA)
    assert run.returncode == 0, run.stderr
    rows = json.loads(cli("results", "results", "-f", "json", cwd=tmp_path).stdout)
    p = next(r["value"] for r in rows if r["metric"] == "types_kw_p_chi2")
    assert 0 < p < 5e-5, p  # else this test could not tell 0.0000 from the value
    for args in ((), ("--wide",)):
        out = cli("results", "results", *args, cwd=tmp_path, COLUMNS="200").stdout
        line = next(x for x in out.splitlines() if "types_kw_p_chi2" in x)
        assert f"{p:.2g}" in line and "0.0000" not in line, line
