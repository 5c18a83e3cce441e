"""Legends: a swatch and a label per entry, in rows that wrap (under a title or under
pies) or in a column (beside pies).

A legend gets a fixed room and never takes more: a label longer than the room ends in
an ellipsis, and entries beyond the room's rows are summed up as "+N more"; both are
said in warnings.
"""

from __future__ import annotations

import math

from attrs import frozen

from templatekit.layout.charts.canvas import Canvas
from templatekit.model.values import Color
from templatekit.scene import Ellipse, Rect
from templatekit.text.typeset import TextBlock


@frozen
class Entry:
    label: str
    color: Color
    dot: bool = False  # a round swatch (lines, markers) rather than a rounded square


def shown(hidden: bool, cut: bool) -> float:
    """How well a legend shows its entries, to weigh one layout against another: 1 when
    all show whole, less when labels are cut, much less when entries are left out."""
    return (0.6 if hidden else 1.0) * (0.85 if cut else 1.0)


@frozen
class _Placed:
    entry: Entry
    block: TextBlock

    def width(self, swatch: float, gap: float) -> float:
        return swatch + gap + self.block.width


class Legend:
    """Sizes from the chart's metrics; ``flow`` and ``column`` draw on the canvas."""

    def __init__(self, canvas: Canvas) -> None:
        text = canvas.metrics.text
        self.canvas = canvas
        self.style = canvas.style()
        self.swatch = round(text * 0.75)
        self.gap = round(text * 0.45)  # between a swatch and its label
        self.spacing = round(text * 1.2)  # between entries in a row
        self.line = canvas.metrics.line
        self.row_gap = round(text * 0.3)

    def rows_in(self, height: float) -> int:
        return max(1, math.floor((height + self.row_gap) / (self.line + self.row_gap) + 1e-6))

    def height(self, rows: int) -> float:
        return rows * self.line + (rows - 1) * self.row_gap

    def natural_width(self, entries: list[Entry]) -> float:
        """The width of the widest entry, its label uncut."""
        return max(
            (self.swatch + self.gap + self.canvas.set(e.label, self.style, 1e6).width for e in entries), default=0
        )

    def flow(
        self, entries: list[Entry], x: float, y: float, width: float, max_height: float, centred: bool = False
    ) -> float:
        """Entries left to right, wrapping into as many rows as ``max_height`` holds
        (the rows centred as a block in ``width`` when ``centred``); returns the height
        drawn."""
        rows, more = self._pack(entries, width, max_height, note=True)
        widths = [self._row_width(row) for row in rows]
        if more is not None:
            widths[-1] += self.spacing + more.width
        if centred:
            x += (width - max(widths, default=0.0)) / 2
        for number, row in enumerate(rows):
            last = number == len(rows) - 1
            pen = x
            top = y + number * (self.line + self.row_gap)
            for item in row:
                pen = self._draw(item, pen, top) + self.spacing
            if more is not None and last:
                self.canvas.put(more, pen, top, more.width + 1)
        return self.height(len(rows)) if entries else 0.0

    def flow_height(self, entries: list[Entry], width: float, max_height: float) -> tuple[float, float]:
        """The height ``flow`` would draw, and how well it shows the entries (see
        ``SHOWN_WHOLE``)."""
        rows, more = self._pack(entries, width, max_height, note=False)
        cut = any(item.block.truncated for row in rows for item in row)
        return (self.height(len(rows)) if entries else 0.0), shown(more is not None, cut)

    def _pack(
        self, entries: list[Entry], width: float, max_height: float, note: bool
    ) -> tuple[list[list[_Placed]], TextBlock | None]:
        """Entries in rows that fit ``width``; past the rows ``max_height`` holds, the
        last row ends in "+N more"."""
        rows: list[list[_Placed]] = [[]]
        for item in (self._placed(entry, width) for entry in entries):
            if rows[-1] and self._row_width([*rows[-1], item]) > width:
                rows.append([])
            rows[-1].append(item)
        limit = self.rows_in(max_height)
        if len(rows) <= limit:
            return rows, None
        rows = rows[:limit]
        last = rows[-1]
        hidden = len(entries) - sum(len(row) for row in rows)
        more = self._more(hidden)
        while len(last) > 1 and self._row_width(last) + self.spacing + more.width > width:
            last = last[:-1]
            hidden += 1
            more = self._more(hidden)
        if note:
            self._note(hidden, len(entries))
        return [*rows[:-1], last], more

    def _row_width(self, row: list[_Placed]) -> float:
        return sum(item.width(self.swatch, self.gap) for item in row) + self.spacing * max(0, len(row) - 1)

    def column(self, entries: list[Entry], x: float, y: float, width: float, height: float) -> None:
        """One entry per row, the column centred in ``height``; entries beyond its rows
        are summed up in a last "+N more" row."""
        limit = self.rows_in(height)
        shown = entries if len(entries) <= limit else entries[: limit - 1]
        rows = len(shown) + (len(shown) < len(entries))
        top = y + (height - self.height(rows)) / 2
        for number, entry in enumerate(shown):
            self._draw(self._placed(entry, width), x, top + number * (self.line + self.row_gap))
        if len(shown) < len(entries):
            more = self._more(len(entries) - len(shown))
            self._note(len(entries) - len(shown), len(entries))
            self.canvas.put(more, x, top + len(shown) * (self.line + self.row_gap), width)

    def _placed(self, entry: Entry, width: float) -> _Placed:
        block = self.canvas.set(entry.label, self.style, width - self.swatch - self.gap)
        return _Placed(entry, block)

    def _more(self, hidden: int) -> TextBlock:
        return self.canvas.set(f"+{hidden} more", self.style, 1e6)

    def _note(self, hidden: int, total: int) -> None:
        self.canvas.notes.append(f"the legend has room for {total - hidden} of {total} entries; shows '+{hidden} more'")

    def _draw(self, item: _Placed, x: float, top: float) -> float:
        """Draw one entry with its top-left at ``x, top``; returns where it ends."""
        size = self.swatch
        swatch_top = top + (self.line - size) / 2
        if item.entry.dot:
            self.canvas.items.append(Ellipse(x, swatch_top, size, size, item.entry.color))
        else:
            self.canvas.items.append(Rect(x, swatch_top, size, size, item.entry.color, radius=size * 0.25))
        label_x = x + size + self.gap
        self.canvas.keep(item.block, item.entry.label, "legend label")
        self.canvas.put(item.block, label_x, top, item.block.width + 1)
        return label_x + item.block.width
