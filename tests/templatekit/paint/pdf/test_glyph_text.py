"""The text of PDFs as four extractors read it: poppler's pdftotext, PyMuPDF (MuPDF),
pdfminer.six and pypdf. Every glyph maps back to its characters (ToUnicode from the
layout's clusters, ActualText where a map cannot say it), so search and copy find the
text as it was written, in every script."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

pytest.importorskip("pypdf")

import pypdf

import templatekit as tk
from tests import pdf_readers
from tests.conftest import layer, template

pymupdf = pytest.importorskip("pymupdf")
pdfminer_high_level = pytest.importorskip("pdfminer.high_level")
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils (pdftotext)")

EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "templates"
BIDI_MARKS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069\x0c]")


def extracted(data: bytes) -> dict[str, str]:
    texts = {
        "pymupdf": "".join(page.get_text() for page in pymupdf.open(stream=data)),
        "pdfminer": pdfminer_high_level.extract_text(io.BytesIO(data)),
        "pypdf": "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages),
    }
    if shutil.which("pdftotext"):
        texts["pdftotext"] = subprocess.run(
            ["pdftotext", "-", "-"], input=data, capture_output=True, check=True
        ).stdout.decode("utf-8")
    return {name: BIDI_MARKS.sub("", text) for name, text in texts.items()}


def lines_of(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def one_line_each(lines: list[str], size: int = 28, **fields: object) -> dict[str, object]:
    layers = [
        {"type": "text", "name": f"line{i}", "x": 20, "y": 20 + i * 60, "width": 1100, "height": 50, "text": text}
        | {"size": size, **fields}
        for i, text in enumerate(lines)
    ]
    return {"name": "sample", "width": 1140, "height": 40 + 60 * len(lines), "background": "#ffffff", "layers": layers}


LEFT_TO_RIGHT = [
    "INV-2026-0142 · due 22 Dec 2026 · 20-45-77",  # Inter's case hyphens and raised colons
    "Doors 19:00 — “Show” (2 days) ﬁle ﬂow",
    "Tiếng Việt · Ελληνικά · Русский · Grüße",
    "你好世界。日本語のテキスト、カタカナ",
    "안녕하세요 세계",
    "สวัสดีครับ ผมชื่อจอห์น",
    "Հայերեն ქართული ሰላም ᏣᎳᎩ",
    "Emoji 😀 here 👍🏽 and 🇫🇷",
]


@pytest.mark.parametrize("extractor", ["pdftotext", "pymupdf", "pdfminer", "pypdf"])
def test_left_to_right_scripts_extract_exactly(extractor):
    texts = extracted(tk.render_pdf(one_line_each(LEFT_TO_RIGHT)).data)
    if extractor not in texts:
        pytest.skip("needs poppler-utils (pdftotext)")
    got = " ".join(lines_of(texts[extractor]))
    for line in LEFT_TO_RIGHT:
        assert line in got, (extractor, line, got)


@pytest.mark.parametrize("extractor", ["pdftotext", "pymupdf", "pdfminer", "pypdf"])
def test_letter_spaced_headings_stay_whole_words(extractor):
    texts = extracted(tk.render_pdf(one_line_each(["CERTIFICATE OF COMPLETION"], letterSpacing=10)).data)
    if extractor not in texts:
        pytest.skip("needs poppler-utils (pdftotext)")
    assert lines_of(texts[extractor]) == ["CERTIFICATE OF COMPLETION"]


INDIC = ["नमस्ते दुनिया", "শুভেচ্ছা বাংলা", "தமிழ் வணக்கம்"]


@pytest.mark.parametrize("extractor", ["pdftotext", "pymupdf"])
def test_indic_syllables_read_in_logical_order_where_actualtext_is_read(extractor):
    """A vowel sign drawn before its consonant is marked with the syllable's ActualText,
    which poppler and MuPDF read (pdfminer.six and pypdf ignore ActualText and give the
    glyphs in drawing order)."""
    texts = extracted(tk.render_pdf(one_line_each(INDIC)).data)
    if extractor not in texts:
        pytest.skip("needs poppler-utils (pdftotext)")
    assert lines_of(texts[extractor]) == INDIC


RIGHT_TO_LEFT = ["שלום עולם (מבחן) 120", "مرحبا بالعالم [نص] ١٢٠", "السلام عليكم"]


@needs_poppler
def test_right_to_left_lines_read_in_logical_order_in_poppler():
    """Brackets, digits and the lam-alef ligature read back as written."""
    texts = extracted(tk.render_pdf(one_line_each(RIGHT_TO_LEFT)).data)
    assert lines_of(texts["pdftotext"]) == RIGHT_TO_LEFT


def test_right_to_left_words_read_back_in_every_extractor():
    """Extractors order right-to-left text each their own way (pdfminer.six keeps the
    drawing order); every word comes back whole, in reading or in drawing order."""
    texts = extracted(tk.render_pdf(one_line_each(["שלום עולם מבחן", "مرحبا بالعالم نص"])).data)
    for extractor, text in texts.items():
        words = set(" ".join(lines_of(text)).split())
        for word in ["שלום", "עולם", "מבחן", "مرحبا", "بالعالم", "نص"]:
            assert word in words or word[::-1] in words, (extractor, word, text)


@pytest.mark.parametrize("name", ["invoice", "certificate", "event-ticket", "social-card", "product-card"])
def test_example_pdfs_extract_their_text_in_every_extractor(name):
    """The text layers of each example, found whole by all four extractors (spaces aside:
    extractors break lines where the layout wrapped them)."""
    template = tk.load_template(EXAMPLES / f"{name}.json")
    strings = [layer.text for layer in template.layers if layer.kind == "text" and layer.text.strip()]
    texts = extracted(tk.render_pdf(template).data)
    for extractor, text in texts.items():
        squashed = re.sub(r"\s+", "", text)
        for string in strings:
            shown = string.upper() if _uppercase(template, string) else string
            assert re.sub(r"\s+", "", shown) in squashed, (extractor, name, shown)


def _uppercase(template: tk.Template, text: str) -> bool:
    return any(
        layer.kind == "text" and layer.text == text and layer.transform == "uppercase" for layer in template.layers
    )


def test_subset_tags_differ_between_subsets_and_repeat_for_the_same():
    one = tk.render_pdf(one_line_each(["Alpha"])).data
    other = tk.render_pdf(one_line_each(["Omega"])).data
    again = tk.render_pdf(one_line_each(["Alpha"])).data

    def tags(data: bytes) -> set[str]:
        found = set()
        for page in pypdf.PdfReader(io.BytesIO(data)).pages:
            for font in page["/Resources"]["/Font"].values():
                found.add(str(font.get_object()["/BaseFont"]).split("+")[0])
        return found

    assert tags(one) == tags(again) and tags(one).isdisjoint(tags(other))


@pytest.mark.parametrize("extractor", list(pdf_readers.EXTRACTORS))
def test_invisible_format_controls_are_neither_drawn_nor_read_back(extractor):
    """Bidi isolates and marks, zero-width spaces, word joiners and byte order marks draw
    nothing and are left out of the PDF: readers read the line as if they were not there."""
    if not pdf_readers.available(extractor):
        pytest.skip(f"{extractor} is not installed")

    def read(text: str) -> str:
        box = layer("text", "line", width=600, height=60, text=text, size=24)
        return pdf_readers.read_back(tk.render_pdf(template(box, width=600, height=60)).data, extractor)

    plain = read("abc \u05e9\u05dc\u05d5\u05dd def xy")
    assert read("abc \u2066\u05e9\u05dc\u05d5\u05dd\u2069 def \u200b\u2060x\ufeffy") == plain


@pytest.mark.parametrize("extractor", ["pdftotext", "pymupdf", "pdfminer", "pypdf"])
def test_thai_sara_am_and_raised_tone_marks_read_back_as_their_letters(extractor):
    # ำ is drawn as its nikhahit and its sara aa: the second glyph had no text at all
    # ("คำ(cid:86)"), and a tone mark over a vowel sign came back after the next letter
    line = "น้ำตาล ทั่วประเทศ ทำ"
    if extractor == "pdftotext" and shutil.which("pdftotext") is None:
        pytest.skip("needs poppler-utils (pdftotext)")
    got = lines_of(extracted(tk.render_pdf(one_line_each([line])).data)[extractor])
    if extractor in ("pdftotext", "pymupdf"):  # they read the ActualText
        assert got == [line]
    else:  # the map gives each glyph its part of ำ, and น้ำ comes back with its marks drawn first first: นํ้า
        assert [sorted(unicodedata.normalize("NFKD", text)) for text in got] == [
            sorted(unicodedata.normalize("NFKD", line))
        ]
