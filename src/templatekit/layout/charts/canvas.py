"""What drawing a chart needs: the layer, its metrics, the engine's text, and notes of
what did not fit, turned into warnings once the chart is drawn."""

from __future__ import annotations

from attrs import define, field

from templatekit.layout.charts.style import BODY_WEIGHT, TEXT, Metrics
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import ChartLayer
from templatekit.model.values import Color
from templatekit.scene import Item
from templatekit.text.typeset import Align, TextBlock, TextStyle, place, typeset

Box = tuple[float, float, float, float]  # x, y, width, height


@define
class Canvas:
    layer: ChartLayer
    ctx: LayoutContext
    metrics: Metrics
    items: list[Item] = field(factory=list)
    blocks: list[TextBlock] = field(factory=list)
    cut: dict[str, list[str]] = field(factory=dict)  # what was shortened, by kind of text
    notes: list[str] = field(factory=list)

    @property
    def box(self) -> Box:
        return (self.layer.x, self.layer.y, self.layer.width, self.layer.height)

    def style(self, size: float | None = None, weight: int = BODY_WEIGHT, color: Color = TEXT) -> TextStyle:
        return TextStyle(family=self.layer.font, weight=weight, size=size or self.metrics.text, color=color)

    def text(self, text: str, style: TextStyle, max_width: float, kind: str, max_lines: int = 1) -> TextBlock:
        """``text`` set in lines no wider than ``max_width``; cut with an ellipsis after
        ``max_lines`` lines (noted under ``kind`` for the warning)."""
        return self.keep(self.set(text, style, max_width, max_lines), text, kind)

    def set(self, text: str, style: TextStyle, max_width: float, max_lines: int = 1) -> TextBlock:
        """``text`` set as ``text`` does, for measuring: nothing is noted."""
        return typeset(text, style, self.ctx.fonts, max(1.0, max_width), max_lines=max_lines)

    def keep(self, block: TextBlock, text: str, kind: str, cut: bool = False) -> TextBlock:
        """Note a block that is drawn: its missing characters, and whether it was cut
        (``cut``: shortened before it was set)."""
        self.blocks.append(block)
        if cut or block.truncated or (block.broke_words and len(block.lines) == 1):
            self.cut.setdefault(kind, []).append(text)
        return block

    def fits(self, text: str, style: TextStyle, max_width: float) -> TextBlock | None:
        """``text`` on one line when it fits ``max_width`` whole, else None."""
        block = typeset(text, style, self.ctx.fonts, max(1.0, max_width), max_lines=1)
        if block.truncated or block.broke_words or block.width > max_width + 0.01:
            return None
        self.blocks.append(block)
        return block

    def width_of(self, text: str, style: TextStyle) -> float:
        """The width of ``text`` set on one line."""
        return typeset(text, style, self.ctx.fonts, 1e6, max_lines=1).width

    def put(self, block: TextBlock, x: float, y: float, width: float, align: Align = "left") -> None:
        """Draw ``block`` with its top at ``y`` in a column ``width`` wide from ``x``."""
        self.items.extend(place(block, x, y, width, block.height, align))

    def finish(self) -> list[Item]:
        """The chart's items, after warning of what was cut or left out."""
        name = self.layer.name
        for kind, texts in self.cut.items():
            shown = ", ".join(repr(t if len(t) <= 30 else t[:29] + "…") for t in texts[:3])
            more = f" and {len(texts) - 3} more" if len(texts) > 3 else ""
            self.ctx.warn(name, f"{len(texts)} {kind}(s) shortened to fit: {shown}{more}")
        for note in self.notes:
            self.ctx.warn(name, note)
        self.ctx.report_glyphs(name, [b for b in self.blocks if b.missing], "chart text")
        return self.items
