"""The benchmarks' hand-written peers draw what templatekit draws: the same QR payload
(read back), the title and the subtitle in the same places (ink boxes), and the card as a
whole within a stated difference. A peer that drew less would be faster for it."""

from __future__ import annotations

import io
import sys
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
