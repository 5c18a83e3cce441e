"""What a layer layout needs besides its layer: fonts, assets, and a place for warnings."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import define, field

from templatekit.errors import ModificationError, TemplateError, TemplatekitError
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextBlock

if TYPE_CHECKING:
    from templatekit.assets import AssetLoader


@define
class LayoutContext:
    fonts: FontBook
    assets: AssetLoader
    base_dir: Path | None = None
    time: float | None = None  # seconds into a video; None for still renders
    paginate: bool = False  # rows that do not fit a table continue on further pages
    density: float = 2.0  # pixels per px of content drawn by other programs (charts)
    vector: bool = False  # also keep vector versions (SVG) of charts, for vector output
    locale: str = "en-US"  # the template's: how charts write numbers unless the layer says
    warnings: list[str] = field(factory=list)
    modified: frozenset[str] = frozenset()  # the layers a modification changed

    def layer_error(self, layer: str, message: str) -> TemplatekitError:
        """The error for values of ``layer`` that cannot be drawn: the request's
        (ModificationError) when a modification changed the layer, else the template's."""
        return ModificationError(message) if layer in self.modified else TemplateError([message])

    def warn(self, layer: str, message: str) -> None:
        self.warnings.append(f"layer {layer!r}: {message}")

    def report_text(self, layer: str, block: TextBlock, what: str = "text") -> None:
        """Warn of what of a text block does not show as written: text cut to fit, a
        word broken across lines, characters that no font has."""
        if block.truncated:
            self.warn_hidden(layer, f"{what} cut to {len(block.lines)} line(s) to fit the box", block.hidden)
        self.report_glyphs(layer, [block], what)

    def warn_hidden(self, layer: str, what: str, hidden: str) -> None:
        """Warn that text was cut, quoting (the start of) what does not show."""
        shown = hidden if len(hidden) <= 60 else hidden[:59] + "…"
        self.warn(layer, f"{what}; not shown: {shown!r}")

    def report_glyphs(self, layer: str, blocks: Iterable[TextBlock], what: str = "text") -> None:
        """Warn of words broken across lines and characters no font has, in any of the
        layer's text blocks (once each)."""
        blocks = list(blocks)
        broken = sum(block.broke_words for block in blocks)
        if broken:
            where = "the box" if len(blocks) == 1 else f"its box ({broken} place(s))"
            self.warn(layer, f"{what}: a word or number wider than {where} was broken across lines")
        missing = list(dict.fromkeys(cluster for block in blocks for cluster in block.missing))
        if missing:
            named = ", ".join(f"{c!r} ({_code_points(c)})" for c in missing)
            self.warn(layer, f"no font has {named}; drawn as a box")

    def scan_warning(self, layer: str, problem: str | None) -> None:
        """Warn of a code whose colours a scanner may not read (see model.legibility)."""
        if problem:
            self.warn(layer, f"may not scan: {problem}")

    def face_warning(self, layer: str, family: str) -> None:
        """Warn once per layer when a requested family is not available."""
        if not self.fonts.has_family(family):
            self.warn(layer, f"font {family!r} is not available; using Inter")


def _code_points(text: str) -> str:
    return " ".join(f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}" for char in text)
