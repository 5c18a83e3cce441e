"""Text layers: a box (optional background), and the text typeset inside its padding."""

from __future__ import annotations

import attrs

from templatekit.layout.context import LayoutContext
from templatekit.model.layers import TextLayer, TextSpan
from templatekit.model.markup import Span, SpanStyle
from templatekit.scene import Item, Outline, Rect
from templatekit.text.typeset import StyledText, TextBlock, TextStyle, fit, place, typeset


def layout(layer: TextLayer, ctx: LayoutContext) -> list[Item]:
    ctx.face_warning(layer.name, layer.font)
    items: list[Item] = []
    if layer.background is not None:
        items.append(Rect(layer.x, layer.y, layer.width, layer.height, fill=layer.background, radius=layer.radius))
    x, y, width, height = _inside(layer)
    style = text_style(layer)
    text = text_content(layer, style)
    if not isinstance(text, str):
        for family in {span_style.family for _, span_style in text} - {layer.font}:
            ctx.face_warning(layer.name, family)
    block = _block(layer, ctx, text, style, width, height)
    ctx.report_text(layer.name, block)
    items.extend(place(block, x, y, width, height, layer.align, layer.vertical_align))
    return items


#: The width a text that hugs is set in when nothing limits it: its longest line.
UNLIMITED = 1_000_000.0


def measure(layer: TextLayer, ctx: LayoutContext, max_width: float | None) -> tuple[float, float]:
    """The size of the text's lines set in ``max_width`` (None: any, one line a
    paragraph): the longest line and the height of the lines, padding included. A text that
    shrinks to fit is measured at the size it shrinks to within its ``maxLines``, so that
    its box hugs the lines it draws."""
    pad = layer.padding
    across = pad.left + pad.right
    width = UNLIMITED if max_width is None else max(1.0, max_width - across)
    style = text_style(layer)
    text = text_content(layer, style)
    block = _block(layer, ctx, text, style, width, None)
    return block.width + across, block.height + pad.top + pad.bottom


def min_content_width(layer: TextLayer, ctx: LayoutContext) -> float:
    """The narrowest the text's box gets without breaking a word: its widest word (or
    other piece between two line-break opportunities), padding included."""
    pad = layer.padding
    style = text_style(layer)
    block = _block(layer, ctx, text_content(layer, style), style, UNLIMITED, None)
    return block.widest_word + pad.left + pad.right


def height_to_show_all(layer: TextLayer, ctx: LayoutContext) -> float | None:
    """The height the layer's box needs to show all its text at its width, when its text
    is cut; None when all of it shows."""
    _, _, width, height = _inside(layer)
    style = text_style(layer)
    text = text_content(layer, style)
    if not _block(layer, ctx, text, style, width, height).truncated:
        return None
    return measure(layer, ctx, layer.width)[1]


def _inside(layer: TextLayer) -> tuple[float, float, float, float]:
    """Where the text goes: the layer's box inside its padding (at least a pixel)."""
    pad = layer.padding
    width = max(1.0, layer.width - pad.left - pad.right)
    height = max(1.0, layer.height - pad.top - pad.bottom)
    return layer.x + pad.left, layer.y + pad.top, width, height


def _block(
    layer: TextLayer, ctx: LayoutContext, text: str | StyledText, style: TextStyle, width: float, height: float | None
) -> TextBlock:
    """The layer's lines in ``width`` and ``height`` (None: any height): shrunk to fit
    when the layer says so, else set at its size and cut where they do not fit."""
    if layer.auto_fit == "shrink":
        return fit(
            text,
            style,
            ctx.fonts,
            width,
            height,
            min_size=layer.min_size,
            max_lines=layer.max_lines,
            ellipsis=layer.ellipsis,
        )
    return typeset(text, style, ctx.fonts, width, max_lines=layer.max_lines, max_height=height, ellipsis=layer.ellipsis)


def text_style(layer: TextLayer) -> TextStyle:
    return TextStyle(
        family=layer.font,
        weight=layer.weight,
        italic=layer.italic,
        size=layer.size,
        color=layer.color,
        line_height=layer.line_height,
        letter_spacing=layer.letter_spacing,
        transform=layer.transform,
        outline=Outline(layer.outline.width, layer.outline.color) if layer.outline is not None else None,
    )


def text_content(layer: TextLayer, style: TextStyle) -> str | StyledText:
    """The layer's text, or its spans (or markup) each in its style."""
    if layer.spans or layer.markup:
        from templatekit.model.markup_parser import parse_markup  # markup only (start-up time)

        return styled(from_spans(layer.spans) if layer.spans else parse_markup(layer.text), style)
    return layer.text


def styled(spans: tuple[Span, ...], base: TextStyle) -> StyledText:
    """Each span in the layer's style with what the span changes."""
    result = []
    for span in spans:
        changes = {name: value for name, value in attrs.asdict(span.style, recurse=False).items() if value is not None}
        result.append((span.text, attrs.evolve(base, **changes)))
    return tuple(result)


def from_spans(spans: tuple[TextSpan, ...]) -> tuple[Span, ...]:
    """The structured spans of a text layer as the markup's spans."""
    return tuple(
        Span(
            span.text,
            SpanStyle(
                weight=span.weight,
                italic=span.italic,
                color=span.color,
                size=span.size,
                family=span.font,
                letter_spacing=span.letter_spacing,
                underline=span.underline,
                strike=span.strikethrough,
                highlight=span.highlight,
            ),
        )
        for span in spans
    )
