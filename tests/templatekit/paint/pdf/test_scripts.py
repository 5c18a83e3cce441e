"""Every script in PDF, as readers nobody here wrote see it: one line of each script
(tests/script_lines.py) drawn by four renderers like the PNG, and read back by five
extractors as docs/pdf.md's table records it.

The record (pdf_readback.json, written by scripts/pdf_readback.py) holds what each
extractor gives for our PDF of each line and for Chromium's PDF of the same line. A line
must read back exactly, or as the record says a reader gets it wrong; and the record
never has our PDF read back worse than Chromium's but where docs/pdf.md explains why.
test_pdf_scripts_chromium.py measures Chromium's side again."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from scripts.pdf_readback import TABLE_END, TABLE_START, table

import templatekit as tk
from tests import pdf_readers
from tests.script_lines import SCRIPT_LINES, all_lines, one_line

RECORD = json.loads((Path(__file__).parent / "pdf_readback.json").read_text())
DOCS = Path(__file__).parents[4] / "docs" / "pdf.md"

# Cells where Chromium's PDF reads back exactly and ours does not, each with its reason.
WORSE_THAN_CHROMIUM = {
    ("hebrew", "pdftotext"): "poppler attaches the space between digits and the word to their visual left to the "
    "digits; Chromium's PDF escapes it only because poppler puts its digits in a block of their own (docs/pdf.md)",
}


@functools.cache
def pdf_of(script: str) -> bytes:
    return tk.render_pdf(one_line(SCRIPT_LINES[script])).data


@pytest.mark.parametrize("extractor", list(pdf_readers.EXTRACTORS))
@pytest.mark.parametrize("script", list(SCRIPT_LINES))
def test_each_script_reads_back_exactly_or_as_recorded(script, extractor):
    if not pdf_readers.available(extractor):
        pytest.skip(f"{extractor} is not installed")
    got = pdf_readers.read_back(pdf_of(script), extractor)
    recorded = RECORD["lines"][script][extractor]["ours"]
    assert got in (pdf_readers.normalised(SCRIPT_LINES[script]), recorded), (got, recorded)


def test_the_record_reads_back_at_least_as_exactly_as_chromium():
    worse = set()
    for script, results in RECORD["lines"].items():
        expected = pdf_readers.normalised(SCRIPT_LINES[script])
        for extractor, read in results.items():
            if read["chromium"] == expected and read["ours"] != expected:
                worse.add((script, extractor))
    assert worse == set(WORSE_THAN_CHROMIUM)


def test_the_record_covers_every_line_and_extractor():
    assert list(RECORD["lines"]) == list(SCRIPT_LINES)
    assert all(list(results) == list(pdf_readers.EXTRACTORS) for results in RECORD["lines"].values())


def test_the_docs_table_is_the_record():
    docs = DOCS.read_text()
    shown = docs[docs.index(TABLE_START) + len(TABLE_START) : docs.index(TABLE_END)].strip()
    assert shown == table(RECORD)


@functools.cache
def every_line() -> tuple[bytes, bytes]:
    source = all_lines()
    return tk.render_pdf(source).data, tk.render_image(source).data


@pytest.mark.parametrize("renderer", list(pdf_readers.RENDERERS))
def test_every_script_looks_like_the_png_in_every_renderer(renderer):
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    pdf, png = every_line()
    (page,) = pdf_readers.rasterise(pdf, renderer)
    mean, local = pdf_readers.difference(page, pdf_readers.flatten(png))
    assert mean <= 5 and local <= 40, f"{renderer}: mean {mean:.2f}, local {local}"
