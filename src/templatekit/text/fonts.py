"""Fonts: the bundled families, template-supplied faces, matching, and fallback.

A ``FontBook`` answers the questions of text layout: which face is closest to a
requested family, weight and style (CSS matching), and which font draws a character
that face lacks (the fallback chain: other scripts, symbols, CJK, emoji, then the
system's fonts through fontconfig). What a font can draw is read from its cmap by
HarfBuzz (``templatekit.font_file.HbFont``), which also shapes, measures and draws with it.
"""

from __future__ import annotations

import io
import itertools
from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from attrs import frozen

from templatekit.font_file import HbFont
from templatekit.scene import FontFile

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
DEFAULT_FAMILY = "Inter"
EMOJI_FAMILY = "Noto Color Emoji"

_BOOK_KEYS = itertools.count()
_ALIASES = {"sans-serif": "Inter", "sans": "Inter", "cursive": "Dancing Script", "script": "Dancing Script"}

_INTER_WEIGHTS = {
    100: "Thin",
    200: "ExtraLight",
    300: "Light",
    400: "Regular",
    500: "Medium",
    600: "SemiBold",
    700: "Bold",
    800: "ExtraBold",
    900: "Black",
}

# The bundled face for each script Inter does not cover (ISO 15924 -> family); each
# family is a regular and a bold face, or a regular one only.
SCRIPT_FAMILIES = {
    "Arab": "Noto Sans Arabic",
    "Armn": "Noto Sans Armenian",
    "Beng": "Noto Sans Bengali",
    "Deva": "Noto Sans Devanagari",
    "Ethi": "Noto Sans Ethiopic",
    "Geor": "Noto Sans Georgian",
    "Gujr": "Noto Sans Gujarati",
    "Guru": "Noto Sans Gurmukhi",
    "Hebr": "Noto Sans Hebrew",
    "Knda": "Noto Sans Kannada",
    "Khmr": "Noto Sans Khmer",
    "Laoo": "Noto Sans Lao",
    "Mlym": "Noto Sans Malayalam",
    "Mymr": "Noto Sans Myanmar",
    "Orya": "Noto Sans Oriya",
    "Sinh": "Noto Sans Sinhala",
    "Taml": "Noto Sans Tamil",
    "Telu": "Noto Sans Telugu",
    "Thai": "Noto Sans Thai",
    "Adlm": "Noto Sans Adlam",
    "Cher": "Noto Sans Cherokee",
    "Mong": "Noto Sans Mongolian",
    "Nkoo": "Noto Sans NKo",
    "Syrc": "Noto Sans Syriac",
    "Thaa": "Noto Sans Thaana",
    "Tfng": "Noto Sans Tifinagh",
    "Hani": "Noto Sans CJK SC",
    "Hira": "Noto Sans CJK SC",
    "Kana": "Noto Sans CJK SC",
    "Bopo": "Noto Sans CJK SC",
    "Hang": "Noto Sans CJK KR",
}
_ONE_WEIGHT = {
    "Noto Sans Adlam",
    "Noto Sans Cherokee",
    "Noto Sans Mongolian",
    "Noto Sans NKo",
    "Noto Sans Syriac",
    "Noto Sans Thaana",
    "Noto Sans Tifinagh",
    "Noto Sans Symbols 2",
    "Noto Sans Math",
    EMOJI_FAMILY,
}

# Families tried, in order, for a character neither the chosen face nor its script's has.
FALLBACK_FAMILIES = (
    "Inter",
    "Noto Sans Symbols",
    "Noto Sans Symbols 2",
    "Noto Sans Math",
    "Noto Sans CJK SC",
    EMOJI_FAMILY,
)


@frozen
class Face:
    family: str
    weight: int
    italic: bool
    file: FontFile


def _bundled_faces() -> list[Face]:
    def face(family: str, weight: int, italic: bool, style: str) -> Face:
        stem = family.replace(" ", "")
        name = f"{stem}-{style}.otf"
        if not (FONT_DIR / name).exists():
            name = f"{stem}-{style}.ttf"
        return Face(family, weight, italic, FontFile(str(FONT_DIR / name)))

    faces = []
    for weight, style in _INTER_WEIGHTS.items():
        italic = "Italic" if style == "Regular" else f"{style}Italic"
        faces += [face("Inter", weight, False, style), face("Inter", weight, True, italic)]
    two_weights = {"Dancing Script", "Noto Sans Symbols", *SCRIPT_FAMILIES.values()} - _ONE_WEIGHT
    for family in sorted(two_weights):
        faces += [face(family, 400, False, "Regular"), face(family, 700, False, "Bold")]
    for family in sorted(_ONE_WEIGHT):
        faces.append(face(family, 400, False, "Regular"))
    return faces


class FontBook:
    """Font faces by family, with CSS-like matching and a fallback chain."""

    def __init__(self, faces: Iterable[Face]) -> None:
        self._fallbacks: dict[tuple[int, bool], tuple[FontFile, ...]] = {}
        self._matched: dict[tuple[str, int, bool], Face] = {}  # a book's faces do not change
        self.key = next(_BOOK_KEYS)  # one book's layouts are not another's
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

    def families(self) -> list[dict[str, Any]]:
        """Each family with its weights and whether it has italics, as JSON: what a font
        picker offers."""
        listed = []
        for faces in self._families.values():
            weights = sorted({face.weight for face in faces})
            listed.append({"family": faces[0].family, "weights": weights, "italic": any(f.italic for f in faces)})
        return sorted(listed, key=lambda entry: (entry["family"] != DEFAULT_FAMILY, entry["family"].casefold()))

    def match(self, family: str, weight: int = 400, italic: bool = False) -> Face:
        """The closest face of ``family`` (or of the default family if unknown); each
        style is matched once per book (a document asks for its few styles thousands of
        times)."""
        name = _ALIASES.get(family.casefold(), family).casefold()
        if name not in self._families:
            name = DEFAULT_FAMILY.casefold()
        face = self._matched.get((name, weight, italic))  # the book's families only: bounded
        if face is None:
            faces = self._families[name]
            face = min(faces, key=lambda f: (f.italic != italic, _weight_distance(f.weight, weight)))
            self._matched[(name, weight, italic)] = face
        return face

    def fallbacks(self, weight: int, italic: bool) -> tuple[FontFile, ...]:
        chain = self._fallbacks.get((weight, italic))
        if chain is None:
            chain = tuple(self.match(family, weight, italic).file for family in FALLBACK_FAMILIES)
            self._fallbacks[(weight, italic)] = chain
        return chain

    def for_script(self, script: str, weight: int, italic: bool) -> FontFile | None:
        """The bundled face for a script (``Hang`` -> Noto Sans CJK KR), if there is one."""
        family = SCRIPT_FAMILIES.get(script)
        return None if family is None else self.match(family, weight, italic).file

    @property
    def emoji(self) -> FontFile:
        return self.match(EMOJI_FAMILY).file


def _weight_distance(have: int, want: int) -> float:
    """CSS font matching, simplified: the nearest weight, bolder wins ties above 500."""
    distance = abs(have - want)
    return distance + (0.5 if (have < want) == (want > 500) else 0)


def load_face(family: str, weight: int, italic: bool, data: bytes, key: str) -> Face:
    """A template-supplied face; raises ``ValueError`` if the data is not a font. A web
    font (WOFF or WOFF2) is unpacked to the TrueType or OpenType font it holds, which
    HarfBuzz and the PDF's subsets read."""
    if data[:4] in (b"wOFF", b"wOF2"):
        data = _unpacked(data)
    file = FontFile(f"template-font:{key}", data=data)
    font = HbFont(file)
    if font.face.glyph_count == 0 or not font.unicodes:
        raise ValueError("not a TrueType or OpenType font with characters")
    return Face(family, weight, italic, file)


def system_font_for(char: str) -> FontFile | None:
    """A font of the system's (fontconfig) that has ``char``: the last fallback, for
    scripts no bundled font covers. None when there is none or no fontconfig."""
    code = ord(char)
    for file, ranges in _system_fonts():
        index = bisect_right(ranges, (code, 0x10FFFF)) - 1
        if index >= 0 and ranges[index][0] <= code <= ranges[index][1]:
            return file
    return None


@lru_cache(maxsize=1)
def _system_fonts() -> list[tuple[FontFile, list[tuple[int, int]]]]:
    """The system's fonts with the ranges of characters each has, in fontconfig's order
    of preference for sans-serif text, asked once (a render never waits on it more)."""
    import shutil  # only when the bundled fonts lack a character (start-up time)
    import subprocess

    command = shutil.which("fc-match")
    if command is None:
        return []
    try:
        done = subprocess.run(
            [command, "--sort", "--format=%{file}|%{index}|%{charset}\\n", "sans-serif:outline=true"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    fonts = []
    for line in done.stdout.splitlines():
        path, _, rest = line.partition("|")
        index, _, charset = rest.partition("|")
        if not path or not Path(path).is_file() or Path(path).parent == FONT_DIR:
            continue
        ranges = []
        for part in charset.split():
            first, _, last = part.partition("-")
            ranges.append((int(first, 16), int(last or first, 16)))
        fonts.append((FontFile(path, index=int(index or 0)), sorted(ranges)))
    return fonts


def _unpacked(web_font: bytes) -> bytes:
    """The font a WOFF or WOFF2 file holds, as a plain TrueType or OpenType file."""
    from fontTools.ttLib import TTFont  # only web fonts need it

    try:
        font = TTFont(io.BytesIO(web_font))
        font.flavor = None
        unpacked = io.BytesIO()
        font.save(unpacked)
    except Exception as exc:  # noqa: BLE001 - fontTools fails in many ways on a damaged file
        raise ValueError(f"a web font that cannot be read ({exc or type(exc).__name__})") from None
    return unpacked.getvalue()
