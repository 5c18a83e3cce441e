"""The benchmarks' hand-written peers draw what templatekit draws: the same QR payload
(read back), the title and the subtitle in the same places (ink boxes), and the card as a
whole within a stated difference. A peer that drew less would be faster for it."""

from __future__ import annotations

import io
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from PIL import Image

import templatekit as tk

zxingcpp = pytest.importorskip("zxingcpp")

ROOT = Path(__file__).parent.parent
BENCHMARKS = ROOT / "benchmarks"
#: Mean difference per channel (of 255) allowed between the two cards: anti-aliasing,
#: hinting (Pillow hints TrueType glyphs) and the logo's resampling differ by a few
#: levels; a missing line of text or a QR code elsewhere is several times more.
MEAN = 3.0
#: How far (px) an ink box may lie from templatekit's: rounding of baselines and hinting.
PLACE = 4
#: (name, top, bottom) of each text region: the rows the title and the subtitle may take.
GRADIENT_REGIONS = [("title", 168, 420), ("subtitle", 380, 524)]
FLAT_REGIONS = [("title", 184, 425), ("subtitle", 440, 530)]
INPUTS = ("Ship social cards for every blog post without a headless browser (7)",
          "Edition 7: PNG, JPEG, WebP, PDF and video from one template.", "https://templatekit.dev/p/7")  # fmt: skip


def peer() -> ModuleType:
    """The hand-written Pillow card, loaded as the benchmarks load their peers."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    import common

    return common.load_peer("pillow_card.py")


def decoded(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def payloads(image: Image.Image) -> list[str]:
    return [found.text for found in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)]


def ink_box(image: Image.Image, background: Image.Image, top: int, bottom: int) -> tuple[int, int, int, int]:
    """The box of the pixels in rows ``top``..``bottom`` left of x 900 (the text column)
    that differ from the card without its text."""
    a = np.asarray(image, dtype=np.int16)[top:bottom, :900]
    b = np.asarray(background, dtype=np.int16)[top:bottom, :900]
    rows, columns = np.nonzero(np.abs(a - b).max(axis=2) > 48)
    assert rows.size, "no text drawn"
    return int(columns.min()), int(rows.min()) + top, int(columns.max()), int(rows.max()) + top


def compare(ours: Image.Image, theirs: Image.Image, bare: tuple[Image.Image, Image.Image], regions: list) -> None:
    assert payloads(ours) == payloads(theirs) == [INPUTS[2]]
    for name, top, bottom in regions:
        mine, peers = ink_box(ours, bare[0], top, bottom), ink_box(theirs, bare[1], top, bottom)
        assert mine == pytest.approx(peers, abs=PLACE), name
    difference = np.abs(np.asarray(ours, dtype=np.int16) - np.asarray(theirs, dtype=np.int16)).mean()
    assert difference < MEAN


def test_the_pillow_peer_draws_the_social_card_as_templatekit_does():
    card = peer()
    template = tk.load_template(ROOT / "examples" / "templates" / "social-card.json")
    title, subtitle, url = INPUTS
    ours = decoded(tk.render_image(template, {"title": title, "subtitle": subtitle, "qr": url}).data)
    theirs = decoded(card.render_card(card.load_assets(), title, subtitle, url))
    bare = (
        decoded(tk.render_image(template, {"title": " ", "subtitle": " ", "qr": url}).data),
        decoded(card.render_card(card.load_assets(), " ", " ", url)),
    )
    compare(ours, theirs, bare, GRADIENT_REGIONS)


def test_the_pillow_peer_draws_the_flat_card_as_templatekit_does():
    card = peer()
    if not (card.DEJAVU / "DejaVuSans.ttf").exists():
        pytest.skip(f"DejaVu Sans not found in {card.DEJAVU} (apt-get install fonts-dejavu-core)")
    template = tk.load_template(BENCHMARKS / "flat-card.json")
    title, subtitle, url = INPUTS
    ours = decoded(tk.render_image(template, {"title": title, "subtitle": subtitle, "qr": url}).data)
    assets = card.load_flat_assets()
    theirs = decoded(card.render_flat_card(assets, title, subtitle, url))
    bare = (
        decoded(tk.render_image(template, {"title": " ", "subtitle": " ", "qr": url}).data),
        decoded(card.render_flat_card(assets, " ", " ", url)),
    )
    compare(ours, theirs, bare, FLAT_REGIONS)


def test_the_reportlab_peer_draws_the_invoice_as_templatekit_does():
    """The same words (poppler reads them from both PDFs), the same payment QR code read
    back, and the page within a mean difference of 2 levels at 48 dpi (the fonts are the
    same; ReportLab does not shape, so pairs are kerned differently)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    import common
    import invoice_pdf

    invoice = common.load_peer("reportlab_invoice.py")
    client = "Cobalt & Finch LLP"
    template = tk.load_template(invoice_pdf.TEMPLATE)
    ours = tk.render_pdf(template, {"bill_to": client + invoice_pdf.bill_to_after_name()}).data
    theirs = invoice.render_invoice(invoice.load_assets(), client)
    assert Counter(pdf_words(ours)) == Counter(pdf_words(theirs))
    assert client.split()[0] in pdf_words(theirs)
    assert payloads(pdf_page(ours, 192)) == payloads(pdf_page(theirs, 192)) == [invoice_pdf.QR_URL]
    difference = np.abs(np.asarray(pdf_page(ours, 48), np.int16) - np.asarray(pdf_page(theirs, 48), np.int16))
    assert difference.mean() < 2


def pdf_words(pdf: bytes) -> list[str]:
    return subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode().split()


def pdf_page(pdf: bytes, dpi: int) -> Image.Image:
    command = ["pdftoppm", "-r", str(dpi), "-png", "-singlefile", "-"]
    return decoded(subprocess.run(command, input=pdf, capture_output=True, check=True).stdout)
