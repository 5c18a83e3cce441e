"""Text layers: a box (optional background), and the text typeset inside its padding."""

from __future__ import annotations

import attrs

from templatekit.layout.context import LayoutContext
from templatekit.model.layers import TextLayer, TextSpan
from templatekit.model.markup import Span, SpanStyle, parse_markup
from templatekit.scene import Item, Outline, Rect
from templatekit.text.typeset import StyledText, TextStyle, fit, place, typeset


def layout(layer: TextLayer, ctx: LayoutContext) -> list[Item]:
    ctx.face_warning(layer.name, layer.font)
    items: list[Item] = []
    if layer.background is not None:
        items.append(Rect(layer.x, layer.y, layer.width, layer.height, fill=layer.background, radius=layer.radius))
    pad = layer.padding
    x, y = layer.x + pad.left, layer.y + pad.top
    width = max(1.0, layer.width - pad.left - pad.right)
    height = max(1.0, layer.height - pad.top - pad.bottom)
    style = TextStyle(
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
    text: str | StyledText = layer.text
    if layer.spans or layer.markup:
        text = styled(from_spans(layer.spans) if layer.spans else parse_markup(layer.text), style)
        for family in {span_style.family for _, span_style in text} - {layer.font}:
            ctx.face_warning(layer.name, family)
    if layer.auto_fit == "shrink":
        block = fit(
            text,
            style,
            ctx.fonts,
            width,
            height,
            min_size=layer.min_size,
            max_lines=layer.max_lines,
            ellipsis=layer.ellipsis,
        )
    else:
        block = typeset(
            text, style, ctx.fonts, width, max_lines=layer.max_lines, max_height=height, ellipsis=layer.ellipsis
        )
    ctx.report_text(layer.name, block)
    items.extend(place(block, x, y, width, height, layer.align, layer.vertical_align))
    return items


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
