"""Shaping by HarfBuzz: a run of characters in one font, script and direction becomes
glyphs with their advances and offsets, and the cluster of characters each one draws.

Results are in font units, so they hold at every size, and are cached: auto-fit tries
many sizes of the same text, and renders of a template repeat most of their text.
"""

from __future__ import annotations

import uharfbuzz as hb
from attrs import frozen

from templatekit.cache import memoized
from templatekit.font_file import hb_font
from templatekit.scene import FontFile

Features = tuple[tuple[str, bool], ...]
NO_LIGATURES: Features = (("liga", False), ("clig", False), ("dlig", False), ("hlig", False))


@frozen
class Shaped:
    """Glyphs in visual order (right-to-left runs come reversed, as HarfBuzz gives them),
    in font units of ``upem``."""

    glyphs: tuple[int, ...]
    clusters: tuple[int, ...]  # index in the paragraph of the first character of each glyph's cluster
    advances: tuple[int, ...]
    x_offsets: tuple[int, ...]
    y_offsets: tuple[int, ...]  # up is positive, as in the font
    upem: int

    @property
    def width(self) -> int:
        return sum(self.advances)


# weighed as measured: five tuples of ints (a glyph's id and advance are objects of their
# own), the key and the cache's entry
@memoized("text.shaped", 8192, lambda shaped: 500 + 100 * len(shaped.glyphs), second_use=True)
def shape(
    text: str,
    start: int,
    end: int,
    file: FontFile,
    rtl: bool,
    script: str,
    language: str = "",
    features: Features = (),
) -> Shaped:
    """Shape ``text[start:end]`` with the rest of ``text`` as context (Arabic joins
    across a change of colour, a mark sees its base)."""
    font = hb_font(file)
    buffer = hb.Buffer()
    buffer.add_str(text, start, end - start)
    buffer.direction = "rtl" if rtl else "ltr"
    buffer.script = script
    if language:
        buffer.language = language
    buffer.cluster_level = hb.BufferClusterLevel.MONOTONE_CHARACTERS
    hb.shape(font.font, buffer, dict(features))
    infos, positions = buffer.glyph_infos, buffer.glyph_positions or []
    return Shaped(
        glyphs=tuple(info.codepoint for info in infos),
        clusters=tuple(info.cluster for info in infos),
        advances=tuple(position.x_advance for position in positions),
        x_offsets=tuple(position.x_offset for position in positions),
        y_offsets=tuple(position.y_offset for position in positions),
        upem=font.upem,
    )
