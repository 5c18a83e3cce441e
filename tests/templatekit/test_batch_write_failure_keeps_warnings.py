"""A batch stopped by a file it cannot write keeps the warnings of the files it did write:
a second run skips those files, so their warnings are kept now or never."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from templatekit.batch_command import WARNINGS_FILE, run_batch
from tests.conftest import layer, template

pytestmark = pytest.mark.slow

CARD = template(layer("text", "title", x=0, y=0, width=160, height=40, text="Hello"), width=200, height=100)


def test_a_file_that_cannot_be_written_keeps_the_warnings_of_those_written(tmp_path, capsys):
    long = "words that do not fit " * 40
    template_path = tmp_path / "card.json"
    template_path.write_text(json.dumps(CARD))
    data = tmp_path / "data.csv"
    data.write_text(f"sku,title\nA,{long}\nB,{long}\nC,{long}\n")
    out = tmp_path / "o"
    (out / "B.png").mkdir(parents=True)  # B's file cannot be put in place

    assert run_batch(template_path, data, out, "{sku}", "png", 1, lambda done, total: None) == 1
    printed = capsys.readouterr()
    assert f"error: {out / 'B.png'}: cannot write" in printed.err
    assert f"(listed in {out / WARNINGS_FILE})" in printed.out  # as the summary says
    assert _kept(out) == {"A.png"}

    (out / "B.png").rmdir()
    assert run_batch(template_path, data, out, "{sku}", "png", 1, lambda done, total: None) == 0
    assert _kept(out) == {"A.png", "B.png", "C.png"}  # the first run's, and the second's


def _kept(out: Path) -> set[str]:
    with (out / WARNINGS_FILE).open(newline="", encoding="utf-8") as handle:
        return {entry["file"] for entry in csv.DictReader(handle)}
