"""Axes: the value scale with its ticks and their labels, and the category labels.

Tick labels are never slanted and never cut: ticks are thinned until their labels fit
side by side. Category labels under a plot are set alike, as a row: on one line each when
all fit, else each spread over the lines allowed, then ending in an ellipsis; when even
that leaves too little of them, every second (third…) label is shown, and the chart says
so in a warning.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import overload

from attrs import frozen

from templatekit.layout.charts.canvas import Canvas
from templatekit.numbers import NumberFormat, auto_format, tick_choices
from templatekit.text.typeset import TextBlock


@frozen
class Scale:
    """Values ``low``..``high`` onto pixels ``start``..``end`` (either way round)."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        span = self.high - self.low
        return self.start + (value - self.low) / span * (self.end - self.start) if span else self.start


@frozen
class Ticks:
    values: tuple[float, ...]
    labels: tuple[TextBlock, ...]

    @property
    def low(self) -> float:
        return self.values[0]

    @property
    def high(self) -> float:
        return self.values[-1]

    @property
    def widest(self) -> float:
        return max(label.width for label in self.labels)


def value_format(canvas: Canvas, ticks: Sequence[float]) -> NumberFormat:
    """How the axis writes its ticks: the layer's format, else the ticks' own, in the
    layer's locale (the template's by default)."""
    layer = canvas.layer
    chosen = NumberFormat.parse(layer.value_format) if layer.value_format else auto_format(list(ticks))
    return chosen.localized(layer.locale or canvas.ctx.locale)


def label_format(canvas: Canvas, values: Sequence[float]) -> NumberFormat:
    """How value labels write the data: the layer's format, else thousands
    separators and as many decimals as the data has (up to two), SI from a million; in
    the layer's locale."""
    layer = canvas.layer
    if layer.value_format:
        chosen = NumberFormat.parse(layer.value_format)
    elif any(abs(v) >= 1e6 for v in values):
        chosen = NumberFormat(kind="s", precision=3)
    else:
        chosen = NumberFormat(precision=min(2, max((_decimals(v) for v in values), default=0)))
    return chosen.localized(layer.locale or canvas.ctx.locale)


def _decimals(value: float) -> int:
    text = f"{value:.6f}".rstrip("0")
    return len(text.split(".")[1]) if "." in text else 0


SPACING = 3.5  # lines of text between value ticks, about
ROOM = 0.01  # of the data's span: data closer than this to the last tick gets one more


def ticks_along(canvas: Canvas, low: float, high: float, length: float, horizontal: bool) -> Ticks:
    """Round ticks about ``SPACING`` lines of text apart on an axis ``length`` px long
    (the best of ``tick_choices``) whose labels have room: one above the other with half
    a line between them, or side by side with a space, and no two written alike; failing
    that, the fewest ticks. The ticks leave room beyond the data, so that a bar never ends
    on the plot's edge."""
    metrics = canvas.metrics
    room = (high - low) * ROOM
    choices = tick_choices(
        low - room if low < 0 else low, high + room if high > 0 else high, length / (metrics.line * SPACING)
    )
    for values in choices:
        ticks = _labelled(canvas, values, apart=True)
        if ticks is None:
            continue
        need = ticks.widest + metrics.text * 1.2 if horizontal else metrics.line * 1.5
        if need <= length / (len(values) - 1):
            return ticks
    fewest = sorted(choices, key=len)
    found = next((ticks for values in fewest if (ticks := _labelled(canvas, values, apart=True))), None)
    return found or _labelled(canvas, fewest[0])


@overload
def _labelled(canvas: Canvas, values: list[float]) -> Ticks: ...
@overload
def _labelled(canvas: Canvas, values: list[float], apart: bool) -> Ticks | None: ...
def _labelled(canvas: Canvas, values: list[float], apart: bool = False) -> Ticks | None:
    """The ticks with their labels; with ``apart``, None when two are written alike (a
    format of fewer decimals than the step: 0, 1, 1, 2), as such ticks would lie."""
    fmt = value_format(canvas, values)
    texts = [fmt(v) for v in values]
    if apart and len(set(texts)) < len(texts):
        return None
    style = canvas.style()
    return Ticks(tuple(values), tuple(canvas.set(text, style, 1e6) for text in texts))


def extent(values: Sequence[float], from_zero: bool) -> tuple[float, float]:
    """The range the value axis must show: the data's, with zero in it unless the axis
    fits the data (scatter)."""
    if not values:
        return (0.0, 1.0)
    low, high = min(values), max(values)
    if from_zero:
        low, high = min(low, 0.0), max(high, 0.0)
    if low == high == 0:
        return (0.0, 1.0)
    return (low, high)


@frozen
class CategoryLabels:
    """Category labels as measured; ``record`` notes them once they are drawn."""

    names: tuple[str, ...]
    blocks: dict[int, TextBlock]  # by category index: the labels shown
    step: int  # every step-th label is shown
    cut: frozenset[int] = frozenset()  # labels with a word cut short

    def record(self, canvas: Canvas) -> None:
        for index, block in self.blocks.items():
            canvas.keep(block, self.names[index], "category label", cut=index in self.cut)
        if self.step > 1:
            canvas.notes.append(
                f"shows every {_ordinal(self.step)} category label ({len(self.blocks)} of {len(self.names)}): "
                "there is no room for all of them"
            )

    @property
    def height(self) -> float:
        return max((block.height for block in self.blocks.values()), default=0.0)

    @property
    def width(self) -> float:
        return max((block.width for block in self.blocks.values()), default=0.0)


def side_by_side(canvas: Canvas, names: Sequence[str], slot: float, max_lines: int) -> CategoryLabels:
    """Labels under categories ``slot`` px apart, set alike so that the row reads evenly:
    on one line each when every one fits, else each spread over up to ``max_lines``
    lines (``_spread``). If less than about three letters' room would be left, only
    every step-th label is drawn, with the room of ``step`` slots."""
    if not names:
        return CategoryLabels((), {}, 1)
    gap = canvas.metrics.text * 0.5
    style = canvas.style()
    widths = [canvas.width_of(name, style) for name in names]
    legible = min(max(widths), canvas.metrics.text * 3)
    step = 1 if slot - gap >= legible else math.ceil((legible + gap) / slot)
    room = slot * step - gap
    shown = range(0, len(names), step)
    if all(widths[index] <= room for index in shown):
        return CategoryLabels(tuple(names), {index: canvas.set(names[index], style, room) for index in shown}, step)
    spread = {index: _spread(canvas, names[index], room, max_lines) for index in shown}
    blocks = {index: block for index, (block, _) in spread.items()}
    return CategoryLabels(tuple(names), blocks, step, frozenset(index for index, (_, cut) in spread.items() if cut))


def _spread(canvas: Canvas, name: str, room: float, max_lines: int) -> tuple[TextBlock, bool]:
    """A label of several words on two lines of about equal width (the narrowest that
    holds it), so that one wrapped label looks like the next; a word wider than ``room``
    is cut with an ellipsis, the words after it kept. Returns the block and whether a
    word was cut."""
    style = canvas.style()
    words = [_cut_word(canvas, word, room) for word in name.split(" ")]
    text = " ".join(words)
    cut = text != name
    if max_lines < 2 or len(words) < 2:
        return canvas.set(text, style, room, max_lines), cut

    # The first part only widens and the second only narrows as the split moves right:
    # the narrowest split is where they cross, found by bisection (O(log words) typesets;
    # trying every split was O(words) typesets of the whole label, minutes for a long one).
    def widths(i: int) -> tuple[float, float]:
        return canvas.width_of(" ".join(words[:i]), style), canvas.width_of(" ".join(words[i:]), style)

    low, high = 1, len(words) - 1
    while low < high:
        middle = (low + high) // 2
        first, second = widths(middle)
        if first < second:
            low = middle + 1
        else:
            high = middle
    narrowest = min(max(widths(i)) for i in {max(1, low - 1), low})
    return canvas.set(text, style, narrowest + 0.5 if narrowest <= room else room, max_lines), cut


def _cut_word(canvas: Canvas, word: str, room: float) -> str:
    """``word``, or as much of it as fits ``room`` with an ellipsis."""
    block = canvas.set(word, canvas.style(), room)
    return block.lines[0].text if block.truncated and block.lines else word


def stacked(canvas: Canvas, names: Sequence[str], slot: float, width: float) -> CategoryLabels:
    """Labels beside categories ``slot`` px apart, one above the other, ``width`` px
    wide: on two lines where a slot has room for two, else one; where a slot has not
    room for one line, every step-th label is drawn."""
    if not names:
        return CategoryLabels((), {}, 1)
    line = canvas.metrics.line
    step = 1 if slot >= line * 0.95 else math.ceil(line / slot)
    return _labels(canvas, names, step, width, 2 if slot * step >= 2 * line else 1)


def _labels(canvas: Canvas, names: Sequence[str], step: int, width: float, max_lines: int) -> CategoryLabels:
    style = canvas.style()
    blocks = {}
    for index in range(0, len(names), step):
        block = canvas.set(names[index], style, width, max_lines)
        if block.broke_words:  # a word longer than the room: one line with an ellipsis
            block = canvas.set(names[index], style, width, 1)
        blocks[index] = block
    return CategoryLabels(tuple(names), blocks, step)


def _ordinal(number: int) -> str:
    if number == 2:
        return "second"
    if number == 3:
        return "third"
    return f"{number}th"
