"""Regenerate docs/img/report.png, the README's picture of the report, from current numbers.

Runs the README's command (three models on the STS, structure, modifiers and one probing task) into a results
folder, builds the report, and photographs its top in headless Chromium (Debian: ``apt-get install
chromium``) at the README's size:

    PYTHONPATH=src python scripts/report_screenshot.py [--results DIR] [--output docs/img/report.png]

``--results`` reuses a folder that already holds the results (a re-run of the command only fills what is
missing, so the default folder makes a second call quick). Prints what it ran and where the picture went.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The README's command (keep the two in step: the README quotes it under the picture).
MODELS = ["glove-6b-50d", "all-MiniLM-L6-v2", "random"]
TASKS = ["sts3k", "sts3k-types", "gs2011", "modifiers", "ettinger2018-sr"]
WIDTH, HEIGHT = 1280, 1500  # the picture: the header, the headline panel and the first suite tables


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if path := shutil.which(name):
            return path
    sys.exit("error: no Chromium on PATH (Debian: apt-get install chromium)")


def photograph(html: Path, png: Path, width: int = WIDTH, height: int = HEIGHT) -> None:
    """Headless Chromium's own --screenshot (no DevTools client needed for a still picture)."""
    with tempfile.TemporaryDirectory(prefix="compeval-shot-") as profile:
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--hide-scrollbars", "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
               f"--window-size={width},{height}", f"--screenshot={png}", html.resolve().as_uri()]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not png.is_file():
        sys.exit(f"error: Chromium failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path(tempfile.gettempdir()) / "compeval-screenshot",
                        help="results folder (filled by the README's command where results are missing)")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "img" / "report.png")
    args = parser.parse_args()

    from compeval.report import build_report
    from compeval.runner import run

    started = time.perf_counter()
    summary = run(MODELS, TASKS, args.results, report=False)
    if summary.failed:
        sys.exit("error: " + "; ".join(f"{o.model} × {o.task}: {o.error}" for o in summary.failed))
    print(f"results: {len(summary.outcomes)} jobs in {args.results} ({time.perf_counter() - started:.0f}s)")
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "report.html"
        build_report(args.results, html)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        photograph(html, args.output)
    print(f"picture: {args.output} ({args.output.stat().st_size / 1e3:.0f} kB, {WIDTH}×{HEIGHT})")


if __name__ == "__main__":
    main()
