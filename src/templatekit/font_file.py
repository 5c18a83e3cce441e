"""A font file as HarfBuzz reads it: its metrics, its cmap, and its glyphs' outlines.
The one font service painters use: they draw the glyphs a Scene names and never shape,
pick or register a font (that is ``templatekit.text``)."""

from __future__ import annotations

import io
import math
from functools import cached_property, lru_cache

import uharfbuzz as hb
from PIL import Image as PILImage
from PIL import UnidentifiedImageError

from templatekit.scene import FontFile

#: (left, top, width, height): a glyph's bitmap in pixels from the glyph's origin, y down.
Box = tuple[int, int, int, int]


class HbFont:
    """One font file as HarfBuzz reads it: the face, a font at one unit per font unit
    (shaping results are then independent of the size), its metrics and its cmap."""

    def __init__(self, file: FontFile) -> None:
        blob = hb.Blob(file.data) if file.data is not None else hb.Blob.from_file_path(file.path)
        self.face = hb.Face(blob, file.index)
        self.font = hb.Font(self.face)
        self.upem = self.face.upem
        extents = self.font.get_font_extents("ltr")
        self.ascender = extents.ascender / self.upem  # em fractions; descender positive, below
        self.descender = -extents.descender / self.upem
        self.unicodes = frozenset(self.face.unicodes)
        # (offset above the baseline, thickness) in font units, HarfBuzz's fallbacks
        # where the font has none
        metric = hb.OTMetricsTag
        self.underline = (
            self.font.get_metric_position_with_fallback(metric.UNDERLINE_OFFSET),
            self.font.get_metric_position_with_fallback(metric.UNDERLINE_SIZE),
        )
        self.strikeout = (
            self.font.get_metric_position_with_fallback(metric.STRIKEOUT_OFFSET),
            self.font.get_metric_position_with_fallback(metric.STRIKEOUT_SIZE),
        )
        self.color = self.face.has_color_paint or self.face.has_color_layers or self.face.has_color_png
        self._strikes: dict[int, tuple[int, int] | None] = {}

    @cached_property
    def characters(self) -> dict[int, str]:
        """Glyph -> the character the cmap maps to it (the first, when several do)."""
        found: dict[int, str] = {}
        for code in sorted(self.unicodes):
            glyph = self.font.get_nominal_glyph(code)
            if glyph:
                found.setdefault(glyph, chr(code))
        return found

    def is_bitmap(self, glyph: int) -> bool:
        """Whether a colour glyph is a picture (a CBDT or sbix strike) rather than paint."""
        return self.face.has_color_png and not self.face.glyph_has_color_paint(glyph)

    def color_box(self, glyph: int, units: float) -> Box | None:
        """Where a colour glyph's bitmap lies drawn at ``units`` pixels per font unit: its
        extents (a strike's box, or a painted glyph's clip box) as the font states them,
        which may be far larger than the text's size; None for a glyph without extents."""
        extents = self.font.get_glyph_extents(glyph)
        if extents is None:
            return None
        width = max(1, round(abs(extents.width) * units))
        height = max(1, round(abs(extents.height) * units))
        return math.floor(extents.x_bearing * units), math.floor(-extents.y_bearing * units), width, height

    def strike_size(self, glyph: int) -> tuple[int, int] | None:
        """The pixel size of a bitmap glyph's strike, from its PNG header, not decoded."""
        if glyph not in self._strikes:
            self._strikes[glyph] = self._strike_size(glyph)
        return self._strikes[glyph]

    def _strike_size(self, glyph: int) -> tuple[int, int] | None:
        blob = self.font.get_glyph_color_png(glyph)
        if blob is None or not blob.data:
            return None
        try:
            with PILImage.open(io.BytesIO(blob.data)) as strike:
                return strike.size
        except (OSError, UnidentifiedImageError):
            return None

    def covers(self, text: str) -> bool:
        """Whether every character of ``text`` that needs a glyph has one here."""
        return all(ord(char) in self.unicodes or _invisible(char) for char in text)


#: Unicode's default-ignorable code points (joiners, selectors, bidi marks, embeddings
#: and isolates, tags, …): HarfBuzz shapes them without a glyph of their own, so a font
#: lacking them draws them as nothing, never as a box.
_DEFAULT_IGNORABLE = (
    ("\u00ad", "\u00ad"), ("\u034f", "\u034f"), ("\u061c", "\u061c"), ("\u115f", "\u1160"),
    ("\u17b4", "\u17b5"), ("\u180b", "\u180f"), ("\u200b", "\u200f"), ("\u202a", "\u202e"),
    ("\u2060", "\u206f"), ("\u3164", "\u3164"), ("\ufe00", "\ufe0f"), ("\ufeff", "\ufeff"),
    ("\uffa0", "\uffa0"), ("\ufff0", "\ufff8"), ("\U0001bca0", "\U0001bca3"),
    ("\U0001d173", "\U0001d17a"), ("\U000e0000", "\U000e0fff"),
)  # fmt: skip


def _invisible(char: str) -> bool:
    """A default-ignorable character: shaped without a glyph of its own."""
    return any(low <= char <= high for low, high in _DEFAULT_IGNORABLE)


@lru_cache(maxsize=128)
def hb_font(file: FontFile) -> HbFont:
    return HbFont(file)
