"""Fonts: the bundled families, template-supplied faces, matching and fallback.

A ``FontBook`` answers two questions for text layout: which face is closest to a
requested family/weight/style (CSS matching), and which font draws a character that
the chosen face lacks (the fallback chain: other scripts, symbols, CJK, emoji).
"""

from __future__ import annotations

import io
import json
from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from attrs import frozen
from PIL import ImageFont

from templatekit.layout.scene import FontFile

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
COVERAGE_FILE = "coverage.json"
DEFAULT_FAMILY = "Inter"
EMOJI_SIZE = 109  # the only strike size of the bundled colour-bitmap emoji font

_ALIASES = {"sans-serif": "Inter", "sans": "Inter", "cursive": "Dancing Script", "script": "Dancing Script"}

_INTER_WEIGHTS = {
    300: "Light",
    400: "Regular",
    500: "Medium",
    600: "SemiBold",
    700: "Bold",
    800: "ExtraBold",
    900: "Black",
}


@frozen
class Face:
    family: str
    weight: int
    italic: bool
    file: FontFile


def _bundled(name: str, color_bitmap: bool = False) -> FontFile:
    return FontFile(str(FONT_DIR / name), color_bitmap=color_bitmap)


def _bundled_faces() -> list[Face]:
    faces = []
    for weight, style in _INTER_WEIGHTS.items():
        faces.append(Face("Inter", weight, False, _bundled(f"Inter-{style}.ttf")))
        italic = "Italic" if style == "Regular" else f"{style}Italic"
        faces.append(Face("Inter", weight, True, _bundled(f"Inter-{italic}.ttf")))
    for family, stem in (
        ("Dancing Script", "DancingScript"),
        ("Noto Sans Arabic", "NotoSansArabic"),
        ("Noto Sans Hebrew", "NotoSansHebrew"),
        ("Noto Sans Devanagari", "NotoSansDevanagari"),
        ("Noto Sans Thai", "NotoSansThai"),
    ):
        faces.append(Face(family, 400, False, _bundled(f"{stem}-Regular.ttf")))
        faces.append(Face(family, 700, False, _bundled(f"{stem}-Bold.ttf")))
    for family, name in (
        ("Noto Sans Symbols", "NotoSansSymbols-Regular.ttf"),
        ("Noto Sans Symbols 2", "NotoSansSymbols2-Regular.ttf"),
        ("Noto Sans Math", "NotoSansMath-Regular.ttf"),
        ("Droid Sans Fallback", "DroidSansFallbackFull.ttf"),
    ):
        faces.append(Face(family, 400, False, _bundled(name)))
    faces.append(Face("Noto Color Emoji", 400, False, _bundled("NotoColorEmoji.ttf", color_bitmap=True)))
    return faces


# Families tried, in order, for a character the chosen face does not have.
FALLBACK_FAMILIES = (
    "Inter",
    "Noto Sans Arabic",
    "Noto Sans Hebrew",
    "Noto Sans Devanagari",
    "Noto Sans Thai",
    "Noto Sans Symbols",
    "Noto Sans Symbols 2",
    "Noto Sans Math",
    "Droid Sans Fallback",
)


class FontBook:
    """Font faces by family, with CSS-like matching and a fallback chain."""

    def __init__(self, faces: Iterable[Face]) -> None:
        self._fallbacks: dict[tuple[int, bool], tuple[FontFile, ...]] = {}
        self._families: dict[str, list[Face]] = {}
        for face in faces:
            self._families.setdefault(face.family.casefold(), []).append(face)

    @classmethod
    @lru_cache(maxsize=1)
    def bundled(cls) -> FontBook:
        """The fonts that ship with templatekit."""
        return cls(_bundled_faces())

    def with_faces(self, faces: Iterable[Face]) -> FontBook:
        """A new book with extra faces; a family of the same name is replaced."""
        extra = list(faces)
        replaced = {face.family.casefold() for face in extra}
        kept = [f for name, fs in self._families.items() if name not in replaced for f in fs]
        return FontBook([*kept, *extra])

    def has_family(self, family: str) -> bool:
        return _ALIASES.get(family.casefold(), family).casefold() in self._families

    def match(self, family: str, weight: int = 400, italic: bool = False) -> Face:
        """The closest face of ``family`` (or of the default family if unknown)."""
        name = _ALIASES.get(family.casefold(), family).casefold()
        faces = self._families.get(name) or self._families[DEFAULT_FAMILY.casefold()]
        return min(faces, key=lambda f: (f.italic != italic, _weight_distance(f.weight, weight)))

    def fallbacks(self, weight: int, italic: bool) -> tuple[FontFile, ...]:
        chain = self._fallbacks.get((weight, italic))
        if chain is None:
            chain = tuple(self.match(family, weight, italic).file for family in FALLBACK_FAMILIES)
            self._fallbacks[(weight, italic)] = chain
        return chain

    @property
    def emoji(self) -> FontFile:
        return self.match("Noto Color Emoji").file


def _weight_distance(have: int, want: int) -> float:
    """CSS font matching, simplified: the nearest weight, bolder wins ties above 500."""
    distance = abs(have - want)
    return distance + (0.5 if (have < want) == (want > 500) else 0)


class Coverage:
    """The code points a font maps to glyphs, as sorted ranges (fast to load and test)."""

    def __init__(self, ranges: Iterable[tuple[int, int]]) -> None:
        pairs = sorted(ranges)
        self._starts = [start for start, _ in pairs]
        self._ends = [end for _, end in pairs]

    @classmethod
    def of(cls, codes: Iterable[int]) -> Coverage:
        ranges: list[list[int]] = []
        for code in sorted(codes):
            if ranges and code == ranges[-1][1] + 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
        return cls((start, end) for start, end in ranges)

    @property
    def ranges(self) -> list[tuple[int, int]]:
        return list(zip(self._starts, self._ends, strict=True))

    def __contains__(self, code: object) -> bool:
        if not isinstance(code, int):
            return False
        index = bisect_right(self._starts, code) - 1
        return index >= 0 and code <= self._ends[index]


@lru_cache(maxsize=1)
def _bundled_coverage() -> dict[str, Coverage]:
    """Ranges of the bundled fonts, written by scripts/vendor_fonts.py: decoding the
    cmap of every fallback font at start-up would cost more than a whole render."""
    data = json.loads((FONT_DIR / COVERAGE_FILE).read_text(encoding="utf-8"))
    return {name: Coverage(map(tuple, ranges)) for name, ranges in data.items()}


def read_coverage(source: str | io.BytesIO, index: int = 0) -> Coverage:
    from fontTools.ttLib import TTFont  # only template-supplied fonts need it: load it then

    font = TTFont(source, fontNumber=index, lazy=True)
    return Coverage.of(font.getBestCmap() or ())


@lru_cache(maxsize=64)
def coverage(file: FontFile) -> Coverage:
    """The code points a font maps to glyphs."""
    if file.data is None:
        path = Path(file.path)
        bundled = _bundled_coverage().get(path.name) if path.parent == FONT_DIR else None
        return bundled or read_coverage(file.path, file.index)
    return read_coverage(io.BytesIO(file.data), file.index)


@lru_cache(maxsize=256)
def pil_font(file: FontFile, size: float) -> ImageFont.FreeTypeFont:
    """A Pillow font object; shared by measurement and raster painting."""
    source = io.BytesIO(file.data) if file.data is not None else file.path
    return ImageFont.truetype(source, size, index=file.index, layout_engine=ImageFont.Layout.RAQM)


def load_face(family: str, weight: int, italic: bool, data: bytes, key: str) -> Face:
    """A template-supplied face; raises ``OSError`` if the data is not a font."""
    file = FontFile(f"template-font:{key}", data=data)
    ImageFont.truetype(io.BytesIO(data), 12)  # fails early on bad data
    return Face(family, weight, italic, file)
