"""Frames and auto layout: every frame's size and the boxes of the layers it holds,
worked out once before layout, so that every other step sees numbers.

A frame with ``layout: row`` or ``column`` places its layers as CSS flexbox does, by
Yoga (the flexbox engine of React Native and of Satori) with the web's defaults: ``gap``,
``padding``, ``align`` (align-items), ``justify`` (justify-content), ``wrap``; sizes
``"hug"`` (the content's own: a text's lines, measured by the text engine as Yoga asks;
a frame's children, gaps and padding; no smaller than the content allows, which Yoga
does not know of) and ``"fill"`` (flex-grow along the layout, down to the same
minimum; stretch across it); an image that hugs follows the side it is given. A
``none`` frame keeps its layers where their ``x`` and ``y`` say, from its corner;
hugging, it holds their boxes and its padding. A hidden layer takes no space. The
result is the template with each frame's layers at canvas coordinates, their sizes as
numbers.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from attrs import evolve

from templatekit.layout.context import LayoutContext
from templatekit.layout.image import pixel_size
from templatekit.model.layers import AnyLayer, FrameLayer, ImageLayer, Layer, TableLayer, TextLayer
from templatekit.model.template import Template

ALIGN = {"start": "FlexStart", "center": "Center", "end": "FlexEnd", "stretch": "Stretch"}
JUSTIFY = {"start": "FlexStart", "center": "Center", "end": "FlexEnd", "space-between": "SpaceBetween"}

#: Sizes go to Yoga in 1/64 px, the unit browsers lay out in (Chromium's LayoutUnit).
#: On that grid Yoga's float sums are exact: a sum of shrink factors that cancelled to a
#: hair over nothing was divided by (Yoga's issues 1665 and 1783), so that a text beside
#: a frame in a row too narrow for both came out 550 million px wide.
LAYOUT_UNIT = 1 / 64


def _on_grid(value: float) -> float:
    """``value`` in whole layout units, the nearest (a size given or worked out)."""
    return round(value / LAYOUT_UNIT) * LAYOUT_UNIT


def _up_to_grid(value: float) -> float:
    """``value`` in whole layout units, rounded up (content's size: its lines still fit)."""
    return math.ceil(value / LAYOUT_UNIT - 1e-6) * LAYOUT_UNIT


def _measured_on_grid(measure: Any) -> Any:
    """A Yoga measure function whose sizes are rounded up to whole layout units."""

    def on_grid(width: float, width_mode: Any, height: float, height_mode: Any) -> tuple[float, float]:
        measured_width, measured_height = measure(width, width_mode, height, height_mode)
        return _up_to_grid(measured_width), _up_to_grid(measured_height)

    return on_grid


def arrange(template: Template, ctx: LayoutContext) -> Template:
    """``template`` with its frames arranged (the same object when it has none)."""
    if not any(isinstance(layer, FrameLayer) for layer in template.layers):
        return template
    return evolve(template, layers=tuple(_arranged(layer, ctx) for layer in template.layers))


#: Yoga is used by one thread at a time. Its binding holds a lock of its own while it
#: calls back into Python (to measure text) and while a node is set up; a thread waiting
#: for that lock keeps the GIL, which the thread holding it needs to go on, so that two
#: threads laying out frames at once could wait for each other for ever.
_YOGA = threading.Lock()


def _arranged(layer: AnyLayer, ctx: LayoutContext) -> AnyLayer:
    if not isinstance(layer, FrameLayer):
        return layer
    with _YOGA:  # waiting here lets the GIL go
        return _arranged_alone(layer, ctx)


def _arranged_alone(layer: FrameLayer, ctx: LayoutContext) -> AnyLayer:
    import pyyoga as yoga  # frames only (start-up time)

    config = yoga.Config(use_web_defaults=True)
    config.point_scale_factor = 0  # fractional px, as text is measured; painters place them
    tree = _Tree()
    root = _node(layer, None, ctx, config, tree)
    try:
        root.calculate_layout()
        _share_hugging_rows(root, tree)
        resized = _hold_all_minimums(root, tree)
        widened = _widen_to_content(tree.narrow_across)  # in the room the columns have now
        if widened:
            resized = True
            root.calculate_layout()
        if resized and tree.hugging_rows:  # their widths came from frames sized since
            for node in tree.hugging_rows:
                if node not in widened:  # a widened one keeps the width of its content
                    node.width = "auto"
            root.calculate_layout()
            _share_hugging_rows(root, tree)
            if _release_minimums(tree.held, set(tree.hugging_rows)):  # held in the width they had
                root.calculate_layout()
                _hold_all_minimums(root, tree)
        if _share_wrapped_lines(tree.minimums, tree.wrapping_rows):
            root.calculate_layout()
        for _ in tree.min_heights:  # a layer a pass, at most
            if not _hold_min_heights(tree.min_heights, ctx, tree.held_heights):
                break
            root.calculate_layout()
        for _ in tree.stretched_images:  # an image a pass, at most
            if not _follow_stretch(tree.stretched_images):
                break
            root.calculate_layout()
        for _ in tree.absolute_hugs:  # a hug a pass, innermost first, at most
            if not _hug_absolute(tree.absolute_hugs):
                break
            root.calculate_layout()
        placed = _placed(layer, root, layer.x, layer.y)
        _check_bounded(placed, ctx)
        return placed
    finally:
        for node in tree.measured:  # a node freed with its Python function set calls into a finished interpreter
            node.set_measure_func(None)
        root.free_recursive()


def _hold_all_minimums(root: Any, tree: _Tree) -> bool:
    """Hold the layers under their minimums (``_hold_minimums``) until none is; whether
    one was."""
    held = False
    for _ in tree.minimums:  # a layer a pass, at most
        if not _hold_minimums(tree.minimums, tree.held):
            break
        held = True
        root.calculate_layout()
    return held


def _share_hugging_rows(root: Any, tree: _Tree) -> None:
    """Set each row whose width comes from its layers (``_Tree.hugging_rows``) to the
    width it got, so that its fills share it, as CSS does."""
    if not tree.hugging_rows:
        return
    for node in tree.hugging_rows:
        node.width = _on_grid(node.layout_width)
    for node in tree.measured:  # Yoga would reuse what they measured for the width it had
        node.mark_dirty()
    root.calculate_layout()


class _Tree:
    """What the Yoga tree of one top-level frame keeps besides its nodes: the nodes given
    a measure function, the ``none`` frames that hug (innermost first), and the layers
    of rows that may shrink, with the width they may not go under."""

    def __init__(self) -> None:
        self.measured: list[Any] = []
        self.absolute_hugs: list[tuple[Any, FrameLayer]] = []
        #: layers of rows that may shrink: their minimum widths, whether they fill a row
        #: that wraps (held there, they still grow: on a line of their own they take it
        #: all; see ``_share_wrapped_lines`` for lines shared with others), and,
        #: for an image stretched across a row of a set height, its proportions (its
        #: minimum is then that height's width in them, as an icon's in CSS)
        self.minimums: list[tuple[Any, float, bool, float | None]] = []
        self.stretched_images: list[tuple[Any, float]] = []  # images of columns set as wide as them: their ratios
        #: rows whose width comes from their layers (they hug it, or fill a column that
        #: hugs) and that hold layers that fill it: CSS sizes such a row
        #: from its layers' own widths first, then shares that width among the fills;
        #: Yoga gives each fill its own width and no more
        self.hugging_rows: list[Any] = []
        #: frames that hug across a column (not stretched), and the width their content
        #: allows: CSS's fit-content takes the room there is, but no less than that
        self.narrow_across: list[tuple[Any, float]] = []
        #: rows that wrap, their width not their layers' (a number, or the room they fill)
        self.wrapping_rows: set[Any] = set()
        #: layers that fill a column's height: no lower than their content, once their
        #: widths are known (or than their own height: an image whose width follows it)
        self.min_heights: list[tuple[Any, Layer, bool]] = []
        #: layers held at their minimums (``_hold_minimums``), with how they flexed before
        self.held: dict[Any, tuple[Any, ...]] = {}
        #: layers held at their content's height (``_hold_min_heights``), and that height
        self.held_heights: dict[Any, float] = {}
        #: the frames (by id) whose height is known before their layers are laid out
        self.set_heights: set[int] = set()


def _node(layer: Layer, frame: FrameLayer | None, ctx: LayoutContext, config: Any, tree: _Tree) -> Any:
    """The Yoga node of ``layer`` (in ``frame``; None at the top), its children with it."""
    import pyyoga as yoga

    node = yoga.Node(config)
    if not layer.visible:
        node.display = getattr(yoga.Display, "None")
        return node
    direction = frame.layout if frame is not None else "none"
    if direction == "none" and frame is not None:
        node.position_type = yoga.PositionType.Absolute
        node.set_position(yoga.Edge.Left, _on_grid(layer.x))
        node.set_position(yoga.Edge.Top, _on_grid(layer.y))
        if isinstance(layer, FrameLayer) and layer.layout != "none":
            layer = _freely_sized(layer, ctx)
    for side, mode, size in (("width", layer.width_sizing, layer.width), ("height", layer.height_sizing, layer.height)):
        if mode == "fixed":
            setattr(node, side, _on_grid(size))
            if _along(direction, side):
                node.flex_shrink = 0  # a number is the size, as a designer's fixed size is (CSS: flex: none)
        elif mode == "hug" and _along(direction, side):
            _no_smaller_than_content(node, layer, side, ctx, tree)
        elif mode == "hug" and direction == "column" and side == "width" and isinstance(layer, FrameLayer):
            if frame is not None and frame.align != "stretch":  # stretched: the column's width, as in CSS
                tree.narrow_across.append((node, _up_to_grid(_min_width(layer, ctx))))
        elif mode == "fill" and _along(direction, side):
            node.flex_grow = 1
            node.flex_basis = 0
            wraps = frame is not None and frame.wrap
            if side == "width" and (wraps or isinstance(layer, (TextLayer, FrameLayer, ImageLayer))):
                ratio = _stretched_ratio(layer, frame, ctx, tree.set_heights)
                tree.minimums.append((node, _up_to_grid(_min_width(layer, ctx)), wraps, ratio))
            elif side == "height" and isinstance(layer, (TextLayer, FrameLayer, ImageLayer)):
                # an image whose width follows its height has its own height as its minimum
                stretched = frame is not None and frame.align == "stretch"
                own = isinstance(layer, ImageLayer) and layer.width_sizing == "hug" and not stretched
                tree.min_heights.append((node, layer, own))
        elif mode == "fill":
            node.align_self = yoga.Align.Stretch
    if isinstance(layer, FrameLayer):
        if _height_is_set(layer, frame, tree.set_heights):
            tree.set_heights.add(id(layer))
        _frame_style(node, layer, yoga)
        for child in layer.layers:
            node.add_child(_node(child, layer, ctx, config, tree))
        fills = any(child.visible and child.width_sizing == "fill" for child in layer.layers)
        # a row that fills a column that hugs is as wide as that column, known only after too
        in_hugging_column = frame is not None and frame.layout == "column" and frame.width_sizing == "hug"
        sized_after = layer.width_sizing == "hug" or (layer.width_sizing == "fill" and in_hugging_column)
        # a row that wraps and hugs is as wide as its layers on one line (CSS's max-content
        # of a flex container), which its fills then share
        hugs_one_line = layer.wrap and layer.width_sizing == "hug"
        if layer.layout == "row" and (not layer.wrap or hugs_one_line) and sized_after and fills:
            tree.hugging_rows.append(node)
        if layer.layout == "row" and layer.wrap and not sized_after:
            tree.wrapping_rows.add(node)
        if layer.layout == "none" and "hug" in (layer.width_sizing, layer.height_sizing):
            tree.absolute_hugs.append((node, layer))
    elif isinstance(layer, TextLayer) and _sized_by_content(layer):
        # in a row of its own width, a text that hugs starts at its one line (CSS's
        # flex-basis: auto, max-content) and shrinks from there in proportion to it
        basis = direction == "row" and frame is not None and frame.width_sizing != "hug" and layer.width_sizing == "hug"
        node.set_measure_func(_measured_on_grid(_text_measure(layer, ctx, yoga, free=direction == "none" or basis)))
        tree.measured.append(node)
    elif isinstance(layer, ImageLayer) and _sized_by_content(layer):
        # stretched on a wrapping row's line, its height is the line's, known only after
        # its width: that stays its own (CSS's stretch of a multi-line flex container)
        line_height = frame is not None and frame.layout == "row" and frame.wrap and layer.height_sizing != "fixed"
        node.set_measure_func(_measured_on_grid(_image_measure(layer, ctx, yoga, width_from_height=not line_height)))
        tree.measured.append(node)
        stretch = frame is not None and frame.align == "stretch"
        across = layer.width_sizing == "fill" or (layer.width_sizing == "hug" and stretch)
        # a height that fills a column that hugs is the content's too: there is no room to share
        column_hugs = frame is not None and frame.height_sizing == "hug"
        hugged = layer.height_sizing == "hug" or (layer.height_sizing == "fill" and column_hugs)
        if direction == "column" and hugged and across:
            width, height = pixel_size(layer, ctx) or UNKNOWN_IMAGE_SIZE
            tree.stretched_images.append((node, width / height))
    elif isinstance(layer, TableLayer) and "hug" in (layer.width_sizing, layer.height_sizing):
        node.set_measure_func(_measured_on_grid(_table_measure(layer, ctx, yoga, free=direction == "none")))
        tree.measured.append(node)
    return node


def _freely_sized(frame: FrameLayer, ctx: LayoutContext) -> FrameLayer:
    """A frame placed by its ``x`` and ``y`` with the sides it hugs made numbers, laid out
    on its own as a top-level frame is: its size is not limited by the frame that holds it
    (Yoga would offer it that frame's width, so that its texts wrapped and its words
    broke where CSS lets such a frame grow)."""
    if "hug" not in (frame.width_sizing, frame.height_sizing):
        return frame
    sized = _arranged_alone(frame, ctx)
    width = sized.width if frame.width_sizing == "hug" else frame.width
    height = sized.height if frame.height_sizing == "hug" else frame.height
    return evolve(
        frame,
        width=width,
        height=height,
        width_sizing="fixed" if frame.width_sizing == "hug" else frame.width_sizing,
        height_sizing="fixed" if frame.height_sizing == "hug" else frame.height_sizing,
    )


def _sized_by_content(layer: Layer) -> bool:
    """Whether a side of the layer comes from its content: one that hugs, or one that
    fills (a frame that hugs that side takes it from the layer's content, as CSS sizes
    a line of stretched or growing items from their content)."""
    return layer.width_sizing != "fixed" or layer.height_sizing != "fixed"


def _no_smaller_than_content(node: Any, layer: Layer, side: str, ctx: LayoutContext, tree: _Tree) -> None:
    """A layer that hugs shrinks, in a row or column too small for all, no further than
    its content allows, as CSS's automatic minimum size of flex items says: a text to
    its widest word across a row (its lines wrap), a frame to its layers' own minimums;
    a text's lines, an image and a table not at all. Yoga has no such minimum: without
    it a hug layer was squeezed under its content (a word broken, a tag overlapped)."""
    if side == "width" and isinstance(layer, (TextLayer, FrameLayer)):
        tree.minimums.append((node, _up_to_grid(_min_width(layer, ctx)), False, None))
    else:
        node.flex_shrink = 0


def _min_width(layer: Layer, ctx: LayoutContext, frame: FrameLayer | None = None) -> float:
    """The narrowest ``layer`` may be set, as CSS's automatic minimum of flex items
    (min-content) is, whether it hugs or fills: a number is its width; a text, its
    widest word; an image, its own width (or its height's, in its proportions); a table
    that hugs, its own width; a frame, its layers' minimums side by side (a row that does
    not wrap) or the widest of them, with its padding; anything else, nothing."""
    if not layer.visible:
        return 0.0
    if layer.width_sizing == "fixed":
        return layer.width
    if isinstance(layer, TextLayer):
        from templatekit.layout import text

        return text.min_content_width(layer, ctx)
    if isinstance(layer, ImageLayer):  # its own width, or its height's in its proportions
        width, height = pixel_size(layer, ctx) or UNKNOWN_IMAGE_SIZE
        if layer.height_sizing == "fixed":
            return layer.height * width / height
        if frame is not None and frame.height_sizing == "fixed" and _stretched_across_row(layer, frame):
            # as wide as the row's height makes it
            return (frame.height - frame.padding.top - frame.padding.bottom) * width / height
        return width
    if isinstance(layer, TableLayer) and layer.width_sizing == "hug":
        from templatekit.layout.table import table_rows_layout
        from templatekit.layout.text import UNLIMITED

        return table_rows_layout(evolve(layer, width=UNLIMITED, width_mode="adaptive"), ctx.fonts).width
    if not isinstance(layer, FrameLayer):
        return 0.0
    shown = [child for child in layer.layers if child.visible]
    row = layer.layout == "row"
    widths = [_min_width(child, ctx, layer) for child in shown]
    if layer.layout == "none":
        return (
            max((child.x + width for child, width in zip(shown, widths, strict=True)), default=0.0)
            + layer.padding.right
        )
    inside = sum(widths) + layer.gap * max(0, len(shown) - 1) if row and not layer.wrap else max(widths, default=0.0)
    return inside + layer.padding.left + layer.padding.right


def _table_measure(layer: TableLayer, ctx: LayoutContext, yoga: Any, free: bool) -> Any:
    """A table's adaptive size as Yoga asks for it: its columns as wide as their content
    (up to the width offered, unless ``free``: placed where it says, it is not limited
    by its frame), its rows as high as their cells."""
    from templatekit.layout.table import table_rows_layout
    from templatekit.layout.text import UNLIMITED

    def measure(width: float, width_mode: Any, height: float, height_mode: Any) -> tuple[float, float]:
        limited = width_mode == yoga.MeasureMode.Exactly or (width_mode == yoga.MeasureMode.AtMost and not free)
        limit = width if limited else UNLIMITED
        hugging = layer.width_sizing == "hug" and width_mode != yoga.MeasureMode.Exactly
        sized = evolve(layer, width=limit, width_mode="adaptive" if hugging else layer.width_mode)
        geometry = table_rows_layout(sized, ctx.fonts)
        return (min(geometry.width, limit) if hugging else width), geometry.height

    return measure


#: The size an image hugs when its own is unknown (an SVG, or a file that cannot be read).
UNKNOWN_IMAGE_SIZE = (100, 100)


def _image_measure(layer: ImageLayer, ctx: LayoutContext, yoga: Any, width_from_height: bool) -> Any:
    """An image's natural size as Yoga asks for it: its pixels, or, when one side is
    given (a number, a ``fill``, a stretch), the other in the image's proportions, as
    a replaced element's in CSS (a height given, only ``width_from_height``). (A fixed
    aspect ratio would leave a side that fills across the layout at nothing, the
    frame's size being known only after.)"""
    size = pixel_size(layer, ctx)
    if size is None:
        ctx.warn(
            layer.name, f'its own size is unknown (an SVG, or a file not read yet): "hug" is {UNKNOWN_IMAGE_SIZE[0]} px'
        )
    natural_width, natural_height = size or UNKNOWN_IMAGE_SIZE
    ratio = natural_width / natural_height

    def measure(width: float, width_mode: Any, height: float, height_mode: Any) -> tuple[float, float]:
        if width_mode == yoga.MeasureMode.Exactly and height_mode == yoga.MeasureMode.Exactly:
            return width, height
        if width_mode == yoga.MeasureMode.Exactly:
            return width, width / ratio
        if height_mode == yoga.MeasureMode.Exactly:
            return (height * ratio if width_from_height else natural_width), height
        return natural_width, natural_height

    return measure


def _along(direction: str, side: str) -> bool:
    """Whether ``side`` (width, height) runs along a frame's layout."""
    return (direction == "row" and side == "width") or (direction == "column" and side == "height")


def _frame_style(node: Any, frame: FrameLayer, yoga: Any) -> None:
    """A frame's flexbox: direction, padding, gap, alignment and wrapping (a ``none``
    frame's layers are positioned absolutely, so its direction does not matter)."""
    node.flex_direction = yoga.FlexDirection.Row if frame.layout == "row" else yoga.FlexDirection.Column
    pad = frame.padding
    for edge, value in zip(("Top", "Right", "Bottom", "Left"), (pad.top, pad.right, pad.bottom, pad.left), strict=True):
        node.set_padding(getattr(yoga.Edge, edge), _on_grid(value))
    node.set_gap(yoga.Gutter.All, _on_grid(frame.gap))
    node.align_items = getattr(yoga.Align, ALIGN[frame.align])
    node.justify_content = getattr(yoga.Justify, JUSTIFY[frame.justify])
    node.align_content = yoga.Align.FlexStart  # wrapped lines sit together, as the gap says
    node.flex_wrap = yoga.Wrap.Wrap if frame.wrap else yoga.Wrap.NoWrap


def _text_measure(layer: TextLayer, ctx: LayoutContext, yoga: Any, free: bool) -> Any:
    """The text's box as Yoga asks for it: its one line, or when that is wider than the
    width offered, that width but no narrower than its widest word (CSS's fit-content:
    the wrapped text takes the room, and a word is broken only in a box whose width is
    set), unless ``free`` (placed where it says, it is not limited by its frame);
    exactly the width given, when given; as high as its lines."""
    from templatekit.layout import text

    def measure(width: float, width_mode: Any, height: float, height_mode: Any) -> tuple[float, float]:
        if width_mode == yoga.MeasureMode.Exactly:
            return width, text.measure(layer, ctx, width)[1]
        natural = text.measure(layer, ctx, None)
        if width_mode != yoga.MeasureMode.AtMost or free or natural[0] <= width:
            return natural
        limit = max(width, text.min_content_width(layer, ctx))
        return limit, text.measure(layer, ctx, limit)[1]

    return measure


def _height_is_set(layer: FrameLayer, frame: FrameLayer | None, set_heights: set[int]) -> bool:
    """Whether the frame's height is known before its layers are laid out (CSS's definite
    size): a number, or stretched across a row that does not wrap and whose height is.
    (A column's share is known only once the minimum heights are held, after.)"""
    if layer.height_sizing == "fixed":
        return True
    return frame is not None and id(frame) in set_heights and _stretched_across_row(layer, frame)


def _stretched_across_row(layer: Layer, frame: FrameLayer) -> bool:
    """Whether the layer's height is its row's (one that does not wrap): it fills it, or
    hugs in a row that stretches its layers."""
    stretches = layer.height_sizing == "fill" or (layer.height_sizing == "hug" and frame.align == "stretch")
    return frame.layout == "row" and not frame.wrap and stretches


def _stretched_ratio(layer: Layer, frame: FrameLayer | None, ctx: LayoutContext, set_heights: set[int]) -> float | None:
    """An image's width to its height when its height fills a row whose height is set
    (``_height_is_set``) and does not wrap, or hugs in one that stretches its layers (its
    minimum width comes from that height, as CSS's does from a definite stretched size; a
    wrapping row's lines have heights of their own), else None."""
    stretched = frame is not None and id(frame) in set_heights and _stretched_across_row(layer, frame)
    if not isinstance(layer, ImageLayer) or not stretched:
        return None
    width, height = pixel_size(layer, ctx) or UNKNOWN_IMAGE_SIZE
    return width / height


def _widen_to_content(frames: list[tuple[Any, float]]) -> set[Any]:
    """Make each frame that hugs across a column, and was given less than its content
    allows (a row's layers' minimums side by side), that wide, its layers then laid out
    in it, as CSS's fit-content does; those that were. Its box held its layers, which
    overflowed it. (Yoga's min-width would size it from its layers' widest lines.)"""
    widened = set()
    for node, minimum in frames:
        # at its minimum in a narrower column, Yoga gave its layers the column's room
        # (a text there wrapped in more lines than the frame's width makes)
        squeezed = node.layout_width < minimum + 1e-6 and _line_width(node.parent) < minimum - 1e-6
        if squeezed:
            node.width = minimum
            widened.add(node)
    return widened


def _hold_minimums(minimums: list[tuple[Any, float, bool, float | None]], held: dict[Any, tuple[Any, ...]]) -> bool:
    """Hold each layer of a row that was given less than its minimum (a text's widest
    word, a frame's layers' minimums) at that minimum, as CSS freezes a flex item that
    its min-width: auto stops; whether one was. Yoga's own min-width adds the minimum to
    a filling layer's share of the row rather than hold it, and stops a row of hugging
    frames from shrinking at all once two of them reach theirs. A layer inside one held
    in the same pass waits for the next: it was squeezed by that one, which may now be
    wide enough for it (held there, a text kept the lines of its squeezed width)."""
    newly: dict[Any, tuple[int, int, float, float]] = {}
    for node, fixed_minimum, grows, ratio in minimums:
        minimum = fixed_minimum if ratio is None else _up_to_grid(node.layout_height * ratio)
        # a filling layer at its minimum exactly may be there by its padding, which Yoga
        # keeps it from going under while it spaces the row as if it had (a row that
        # justifies to its end started such a layer its padding too far right)
        at_minimum = node.flex_grow > 0 and minimum > 0 and node.layout_width < minimum + 1e-6
        holding = (int(grows), 0, minimum, minimum)
        already = node in held and (node.flex_grow, node.flex_shrink, node.flex_basis.value) == holding[:3]
        if (node.layout_width < minimum - 1e-6 or at_minimum) and not already:
            newly[node] = holding
    for node, holding in newly.items():
        if _inside_any(node, newly):
            continue
        # the basis alone is not enough: a row that hugs sizes itself from what its
        # layers measure, and a layer with nothing to measure has no width there
        held.setdefault(node, (node.flex_grow, node.flex_shrink, node.flex_basis, node.min_width))
        node.flex_grow, node.flex_shrink, node.flex_basis, node.min_width = holding
    return bool(newly)


def _inside_any(node: Any, nodes: dict[Any, Any]) -> bool:
    """Whether one of ``node``'s frames is in ``nodes``."""
    parent = node.parent
    while parent is not None:
        if parent in nodes:
            return True
        parent = parent.parent
    return False


def _release_minimums(held: dict[Any, tuple[Any, ...]], rows: set[Any]) -> bool:
    """Let the layers of ``rows`` that ``_hold_minimums`` held flex again as they were
    made to; whether there were any."""
    released = [node for node in held if node.parent in rows]
    for node in released:
        node.flex_grow, node.flex_shrink, node.flex_basis, node.min_width = held.pop(node)
    return bool(released)


def _share_wrapped_lines(minimums: list[tuple[Any, float, bool, float | None]], rows: set[Any]) -> bool:
    """Give the layers that fill a wrapping row of ``rows`` (those whose width does not
    come from their layers) their widths as CSS does, line by line: each an equal share
    of the room its line leaves, and a layer whose share is under its minimum that
    minimum, the others sharing the rest (alone on its line, a layer takes it all). Yoga
    breaks the lines at the minimums of the layers held at them (CSS's hypothetical
    sizes), then gives a held layer its minimum and a share on top. Whether a width
    changed."""
    fills: dict[Any, dict[Any, float]] = {}
    for node, minimum, wraps, _ in minimums:
        if wraps and node.parent in rows:
            fills.setdefault(node.parent, {})[node] = minimum
    changed = False
    for row, minimum_of in fills.items():
        gap = _gap(row)
        for line in _lines(row):
            growing = [node for node in line if node in minimum_of]
            if not growing:
                continue
            others = sum(node.layout_width for node in line if node not in minimum_of)
            room = _line_width(row) - others - gap * (len(line) - 1)
            widths = _shares(room, [minimum_of[node] for node in growing])
            for node, width in zip(growing, widths, strict=True):
                changed = changed or abs(node.layout_width - width) > 1e-6
                # a hair under the share, so that the line's sum does not round over it and wrap
                width = max(minimum_of[node], width - 1e-4)
                node.flex_grow, node.flex_shrink, node.flex_basis, node.min_width = 0, 0, width, width
    return changed


def _shares(room: float, minimums: list[float]) -> list[float]:
    """Equal shares of ``room``, each no less than its minimum: those whose share falls
    under it are held there and the rest share what they leave (CSS's resolving of
    flexible lengths, for layers of flex: 1 1 0)."""
    held: dict[int, float] = {}
    while True:
        free = [index for index in range(len(minimums)) if index not in held]
        if not free:
            return [held[index] for index in range(len(minimums))]
        share = max(0.0, room - sum(held.values())) / len(free)
        under = {index: minimums[index] for index in free if minimums[index] > share + 1e-9}
        if not under:
            return [held.get(index, share) for index in range(len(minimums))]
        held.update(under)


def _lines(row: Any) -> list[list[Any]]:
    """The nodes of a wrapping row's lines, as its last layout gave them: a line's layers
    follow each other left to right, gap apart, and the next line starts left of that."""
    import pyyoga as yoga

    gap = _gap(row)
    lines: list[list[Any]] = []
    right = -math.inf
    for index in range(row.child_count):
        child = row.get_child(index)
        if child.display == getattr(yoga.Display, "None"):
            continue
        if not lines or child.layout_left < right + gap - 1e-6:
            lines.append([])
        lines[-1].append(child)
        right = child.layout_left + child.layout_width
    return lines


def _gap(row: Any) -> float:
    import pyyoga as yoga

    return float(row.get_gap(yoga.Gutter.All))  # as _frame_style sets it


def _line_width(row: Any) -> float:
    """The width of a row's lines: its own inside its padding."""
    import pyyoga as yoga

    return float(
        row.layout_width - row.get_computed_padding(yoga.Edge.Left) - row.get_computed_padding(yoga.Edge.Right)
    )


def _hold_min_heights(
    layers: list[tuple[Any, Layer, bool]], ctx: LayoutContext, held_heights: dict[Any, float]
) -> bool:
    """Hold each layer that fills a column's height, and was given less than its
    content's height at the width it was given (a text's lines, an image's proportions,
    a frame's layers and padding) or, for an image whose width follows its height, less
    than its own height (CSS's content size of a replaced element whose width is not
    set), at that height, as CSS's automatic minimum holds a ``flex: 1`` item of a
    column; whether one was. One held before whose content is lower now (its width grew
    since) is held at that height instead."""
    held = False
    for node, layer, own in layers:
        minimum = _up_to_grid(_min_height(node, layer, ctx, own))
        lower = node in held_heights and held_heights[node] > minimum + 1e-6
        if node.layout_height < minimum - 1e-6 or lower:
            node.flex_grow, node.flex_shrink, node.flex_basis, node.min_height = 0, 0, minimum, minimum
            held_heights[node] = minimum
            held = True
    return held


def _min_height(node: Any, layer: Layer, ctx: LayoutContext, own: bool) -> float:
    """The height of the layer's content at the width the last layout gave it (an
    image's own height, if ``own``)."""
    if isinstance(layer, TextLayer):
        from templatekit.layout import text

        return text.measure(layer, ctx, node.layout_width)[1]
    if isinstance(layer, ImageLayer):
        width, height = pixel_size(layer, ctx) or UNKNOWN_IMAGE_SIZE
        return height if own else node.layout_width * height / width
    assert isinstance(layer, FrameLayer)
    shown = [(node.get_child(index), child) for index, child in enumerate(layer.layers) if child.visible]
    if not shown:
        return layer.padding.top + layer.padding.bottom

    def extent(child_node: Any, child: Layer) -> float:
        """Its height as laid out; across a row, no lower than its content (a layer stretched to
        the row's height, squeezed, brings its content's height to the row's)."""
        laid_out = float(child_node.layout_height)
        if layer.layout != "row" or child.height_sizing == "fixed":
            return laid_out
        if not isinstance(child, (TextLayer, ImageLayer, FrameLayer)):
            return laid_out
        return max(laid_out, _min_height(child_node, child, ctx, own=False))

    if layer.layout == "row" and not layer.wrap:  # one line, as high as its highest layer
        inside = max(extent(child_node, child) for child_node, child in shown)
    else:
        top = min(child_node.layout_top for child_node, _ in shown)
        inside = max(child_node.layout_top + extent(child_node, child) for child_node, child in shown) - top
    return inside + layer.padding.top + layer.padding.bottom


def _follow_stretch(images: list[tuple[Any, float]]) -> bool:
    """Make each image that hugs its height in a column, set as wide as the column (``fill``
    or ``align: "stretch"``), as high as that width gives in its proportions; whether one
    changed. CSS works out a column's width before its layers' heights, a column that
    hugs too; Yoga measured the image before it knew the width, at its own height."""
    changed = False
    for node, ratio in images:
        height = _on_grid(node.layout_width / ratio)
        if abs(node.layout_height - height) > 1e-6:
            node.height = height  # it does not shrink (a hug image's height, along a column)
            changed = True
    return changed


def _hug_absolute(frames: list[tuple[Any, FrameLayer]]) -> bool:
    """Size each ``none`` frame that hugs to its layers' boxes (from its corner) and its
    padding, as the last layout gave them; whether one changed. Its layers are placed
    absolutely, and such layers do not size their frame in flexbox (nor in CSS)."""
    changed = False
    for node, frame in frames:
        right = bottom = 0.0
        for index, child in enumerate(frame.layers):
            if child.visible:
                placed = node.get_child(index)
                right = max(right, placed.layout_left + placed.layout_width)
                bottom = max(bottom, placed.layout_top + placed.layout_height)
        for side, sizing, size, now in (
            ("width", frame.width_sizing, right + frame.padding.right, node.layout_width),
            ("height", frame.height_sizing, bottom + frame.padding.bottom, node.layout_height),
        ):
            if sizing == "hug" and abs(size - now) > 1e-6:
                setattr(node, side, _on_grid(size))
                changed = True
    return changed


def _placed(layer: AnyLayer, node: Any, x: float, y: float) -> AnyLayer:
    """``layer`` at canvas (x, y) with the size Yoga gave it, its layers placed from
    there; a hidden layer keeps its box."""
    if not layer.visible:
        return _fixed(layer, x, y, layer.width, layer.height)
    placed = _fixed(layer, x, y, node.layout_width, node.layout_height)
    if not isinstance(layer, FrameLayer):
        return placed
    children = []
    for index, child in enumerate(layer.layers):
        child_node = node.get_child(index)
        children.append(_placed(child, child_node, x + child_node.layout_left, y + child_node.layout_top))
    return evolve(placed, layers=tuple(children))  # type: ignore[arg-type]


#: A box past this many px from the canvas's corner is no layout: a combination of fills
#: and hugs that Yoga could not resolve (it answers with sizes near 2**32)
UNBOUNDED = 1_000_000.0


def _check_bounded(layer: AnyLayer, ctx: LayoutContext) -> None:
    """Refuse, naming the layer, a box Yoga left unbounded, before painting meets it."""
    box = (layer.x, layer.y, layer.width, layer.height)
    if not all(math.isfinite(value) and abs(value) < UNBOUNDED for value in box):
        size = f"{layer.width:,.0f} x {layer.height:,.0f} px at ({layer.x:,.0f}, {layer.y:,.0f})"
        raise ctx.layer_error(
            layer.name,
            f"layer {layer.name!r}: auto layout gave it no bounded box ({size}); give a number to one "
            "of its sides, or to a frame around it, where a side that fills sits in one that hugs",
        )
    if isinstance(layer, FrameLayer):
        for child in layer.layers:
            _check_bounded(child, ctx)


def _fixed(layer: AnyLayer, x: float, y: float, width: float, height: float) -> AnyLayer:
    return evolve(
        layer,
        x=x,
        y=y,
        width=max(width, 1e-3),
        height=max(height, 1e-3),
        width_sizing="fixed",
        height_sizing="fixed",
    )
