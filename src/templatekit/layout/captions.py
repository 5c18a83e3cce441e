"""Captions layers: at a moment, the cue then on screen set as a text layer sets its text
(every script, rich text, outline, effects), shrunk to fit the box down to ``minSize``;
a cue that still does not fit is split into pages, each shown from its first word's
moment. With ``wordHighlight``, the word being spoken is set apart.

A still (an image or a PDF) shows the moment of its ``time`` (a video's poster), and no
cue without one. A video asks a ``CaptionTrack`` what shows at each frame: equal answers
draw equal pixels, so a cue is set once for each word it highlights, not once a frame.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
from attrs import frozen

from templatekit.assets.common import shown
from templatekit.errors import AssetError
from templatekit.layout import text
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import CaptionsLayer, Cue, Layer, TextLayer, TextSpan
from templatekit.scene import Item
from templatekit.subtitles import Word, read_subtitles, words

if TYPE_CHECKING:
    from templatekit.assets import AssetLoader


def layout(layer: CaptionsLayer, ctx: LayoutContext) -> list[Item]:
    if ctx.time is None:
        return []
    track = CaptionTrack(layer, ctx)
    at_time = track.shown_at(ctx.time)
    return [] if at_time is None else track.items(at_time)


@frozen
class Shown:
    """What a captions layer shows at a moment: a page of a cue, and which of its words
    is highlighted (None: none)."""

    cue: int
    page: int
    word: int | None


class CaptionTrack:
    """The cues of one captions layer during one render, split into pages that fit."""

    def __init__(self, layer: CaptionsLayer, ctx: LayoutContext) -> None:
        self.layer = layer
        self.ctx = ctx
        self.cues = layer_cues(layer, ctx.assets, ctx.base_dir)
        self._starts = [cue.start for cue in self.cues]
        self._reach = list(itertools.accumulate((cue.end for cue in self.cues), max))  # the latest end so far
        self._pages: dict[int, tuple[tuple[Word, ...], ...]] = {}

    def shown_at(self, time: float) -> Shown | None:
        """The page and word on screen at ``time`` seconds into the video."""
        index = bisect.bisect_right(self._starts, time) - 1
        # the latest cue begun that has not ended (cues may overlap: the later one shows)
        while index >= 0 and self.cues[index].end <= time:
            if self._reach[index] <= time:  # every cue up to this one has ended
                return None
            index -= 1
        if index < 0:
            return None
        pages = self.pages(index)
        page = max(0, bisect.bisect_right([page[0].start for page in pages], time) - 1)
        spoken = None
        if self.layer.word_highlight is not None:
            spoken = max(0, bisect.bisect_right([word.start for word in pages[page]], time) - 1)
        return Shown(index, page, spoken)

    def pages(self, index: int) -> tuple[tuple[Word, ...], ...]:
        """The cue's words in pages, each of which fits the box at ``minSize`` at least:
        the whole cue when it does; else as few pages of even length as fit (a page of a
        word that does not fit alone is cut, with the text layer's warning)."""
        found = self._pages.get(index)
        if found is None:
            found = self._pages[index] = self._split(index)
        return found

    def _split(self, index: int) -> tuple[tuple[Word, ...], ...]:
        cue_words = words(self.cues[index]) or (Word("", False, False, False, False, self.cues[index].start),)
        for count in range(1, len(cue_words) + 1):
            pages = _even_pages(cue_words, count)
            if all(self._fits(page) for page in pages):
                break
        if count > 1:
            self.ctx.warn(
                self.layer.name,
                f"cue {index + 1} ({self.cues[index].start:g}–{self.cues[index].end:g} s) does not fit the box at"
                f" {self.layer.min_size:g} px: shown in {count} parts",
            )
        return pages

    def _fits(self, page: Sequence[Word]) -> bool:
        return text.height_to_show_all(self._text_layer(page, None), self.ctx) is None

    def items(self, shown: Shown) -> list[Item]:
        """The page as a text layer sets it (its warnings given once, however often a
        video asks)."""
        page = self.pages(shown.cue)[shown.page]
        scratch = attrs.evolve(self.ctx, warnings=[])
        items = text.layout(self._text_layer(page, shown.word), scratch)
        self.ctx.warnings.extend(warning for warning in scratch.warnings if warning not in self.ctx.warnings)
        return items

    def _text_layer(self, page: Sequence[Word], spoken: int | None) -> TextLayer:
        shared = {name: getattr(self.layer, name) for name in _SHARED}
        return TextLayer(**shared, spans=tuple(_spans(page, spoken, self.layer)), auto_fit="shrink")


#: What a cue's text layer takes from its captions layer: the box, and every text setting
#: the two kinds share (the layer's opacity, turn and effects are its group's, not the text's).
_SHARED = sorted(
    ({field.name for field in attrs.fields(TextLayer)} & {field.name for field in attrs.fields(CaptionsLayer)})
    - {field.name for field in attrs.fields(Layer)}
    | {"name", "x", "y", "width", "height"}
)


def layer_cues(layer: CaptionsLayer, assets: AssetLoader, base_dir: Path | None) -> tuple[Cue, ...]:
    """The layer's cues in the order they start: its own, or its subtitle file's (read
    from ``src`` relative to ``base_dir``)."""
    if layer.cues:
        return tuple(sorted(layer.cues, key=lambda cue: cue.start))
    assert layer.src is not None
    try:
        cues = read_subtitles(assets.fetch(layer.src, base_dir), shown(layer.src))
    except AssetError as exc:
        raise AssetError(f"layer {layer.name!r}: {exc}", layer=layer.name, url=shown(layer.src)) from exc
    return tuple(sorted(cues, key=lambda cue: cue.start))


def _even_pages(cue_words: tuple[Word, ...], count: int) -> tuple[tuple[Word, ...], ...]:
    """The words in ``count`` runs of about the same number of characters."""
    total = sum(len(word.text) for word in cue_words)
    pages: list[list[Word]] = [[] for _ in range(count)]
    done = 0
    for word in cue_words:
        page = min(count - 1, done * count // max(total, 1))
        if pages[page] or page == 0:
            pages[page].append(word)
        else:  # a page starts with its first word, without the space before it
            pages[page].append(attrs.evolve(word, space_before=False))
        done += len(word.text)
    return tuple(tuple(page) for page in pages if page)


def _spans(page: Sequence[Word], spoken: int | None, layer: CaptionsLayer) -> list[TextSpan]:
    highlight = layer.word_highlight
    spans = []
    for index, word in enumerate(page):
        if word.space_before:
            spans.append(TextSpan(text=" "))
        lit = highlight is not None and index == spoken
        spans.append(
            TextSpan(
                text=word.text,
                weight=max(layer.weight, 700) if word.bold else None,
                italic=True if word.italic else None,
                underline=True if word.underline else None,
                color=highlight.color if lit and highlight is not None else None,
                highlight=highlight.background if lit and highlight is not None else None,
            )
        )
    return spans
