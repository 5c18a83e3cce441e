"""One attrs class per layer kind of the template format (v1).

Field names are snake_case here and camelCase in JSON (the converter renames them).
``MAIN_FIELD`` is the field that a plain value in an object-form modification sets.
``problems()`` holds the checks that involve more than one field.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any, ClassVar, Literal, Union

import attrs
from attrs import frozen

from templatekit.model.checks import (
    FONT_FAMILY,
    MAX_COLUMNS,
    MAX_EXTENT,
    MAX_FONT_SIZE,
    MAX_NAME,
    MAX_ROWS,
    MAX_TEXT,
    PATH,
    SOURCE,
    TEXT,
    WEIGHT_STEP,
    all_of,
    at_most,
    at_most_items,
    at_most_keys,
    between,
    described,
    each,
    field,
    max_length,
    non_empty,
    non_negative,
    positive,
    within,
)
from templatekit.model.easing import control_points
from templatekit.model.legibility import scan_problem
from templatekit.model.markup import MarkupError
from templatekit.model.values import CellText, Color, Gradient, Insets, Length, Source
from templatekit.numbers import FormatError, NumberFormat

MAX_SPANS = 1_000
MAX_OUTLINE = 100.0
MAX_POINTS = 10_000
MAX_DASHES = 16
#: px: the shortest a dash pattern may repeat every (a line is drawn as one dash a period).
MIN_DASH_PERIOD = 1.0
#: The largest value a chart plots (a thousand trillion): its axis labels stay exact.
MAX_CHART_VALUE = 1e15
#: Animations of one layer: every preset and property several times over.
MAX_ANIMATIONS = 32
#: Keyframes of one animation: one every 0.3 s of the longest video.
MAX_KEYFRAMES = 1_000
#: Colours of a chart's palette: ten times the default palette's.
MAX_COLORS = 100
#: Rows of a key-value layer: far more than one box shows.
MAX_PAIRS = 1_000
#: Font sizes: below a tenth of a pixel nothing is drawn, and scales underflow.
FONT_SIZE = all_of(positive, between(0.1, MAX_FONT_SIZE))
#: A name: not empty, at most MAX_NAME characters.
NAME = all_of(non_empty, max_length(MAX_NAME))

Easing = str
#: How a layer's width or height is set: a number, its content's size, the space left.
SizeMode = Literal["fixed", "hug", "fill"]
#: A number, or what a frame works out (the schema of ``width`` and ``height``).
SIZE_MODES = {"x-size-modes": ["hug", "fill"]}
#: ``x`` and ``y``: needed on the canvas and in ``none`` frames, not where a row or column
#: places the layer; the model says which by the layer's path, so the schema asks neither.
PLACED = {"x-not-required": True, "description": "px; not used inside a row or column frame"}
#: A field the JSON does not have (it is written in another field).
INTERNAL = {"x-internal": True}
Direction = Literal["left", "right", "top", "bottom"]
Fit = Literal["cover", "contain", "fill", "none"]
CellValue = Union[str, int, float, bool, None]

PRESETS = ("fade-in", "fade-out", "slide-in", "slide-out", "zoom-in", "ken-burns", "typewriter")
#: What keyframes move: a layer's placement, its effects (the shadow ones change its
#: first shadow), and an image's filters.
PLACEMENT = ("opacity", "x", "y", "scale", "rotation")
EFFECTS = ("blur", "shadowX", "shadowY", "shadowBlur", "shadowSpread")
FILTERS = ("brightness", "contrast", "saturation", "hueRotate", "sepia", "invert")
#: Colours keyframes move: a layer's colour, a shape's or frame's solid fill, a text box's fill.
COLOURS = ("color", "fill", "background")
PROPERTIES = (*PLACEMENT, *EFFECTS, *FILTERS, *COLOURS)


def _text(default: Any = "") -> Any:
    """A text field of at most MAX_TEXT characters; ``_text(attrs.NOTHING)`` is required."""
    return field(default, check=TEXT)


def _short(default: Any = None) -> Any:
    """A short text (an id, a hint) of at most MAX_NAME characters."""
    return field(default, check=max_length(MAX_NAME))


def family(default: Any = attrs.NOTHING) -> Any:
    """A font family: a name that an editor offers the fonts for."""
    return field(default, check=max_length(MAX_NAME), schema=FONT_FAMILY)


def _easing(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        control_points(value)
    except ValueError as exc:
        return str(exc)
    return None


@frozen(kw_only=True)
class Keyframe:
    time: float = field(check=non_negative)
    value: float | Color  # a colour for ``color``, ``fill`` and ``background``


@frozen(kw_only=True)
class Animation:
    """A preset (``fade-in``…) or keyframes of one property."""

    preset: Literal[PRESETS] | None = None  # type: ignore[valid-type]
    property: Literal[PROPERTIES] | None = None  # type: ignore[valid-type]
    keyframes: tuple[Keyframe, ...] = field((), check=at_most_items(MAX_KEYFRAMES))
    from_: Direction | None = None
    duration: float | None = field(None, check=positive)
    delay: float = field(0.0, check=non_negative)
    easing: Easing | None = field(
        None, check=all_of(max_length(MAX_NAME), _easing)
    )  # None: linear for ken-burns, typewriter and keyframes, else ease-out

    def problems(self) -> Iterator[tuple[str, str]]:
        if (self.preset is None) == (self.property is None):
            yield "preset", "give either a preset or a property with keyframes"
        if self.property is not None and not self.keyframes:
            yield "keyframes", "a property animation needs at least one keyframe"
        colour = self.property in COLOURS
        for index, keyframe in enumerate(self.keyframes):
            if self.property is not None and isinstance(keyframe.value, Color) != colour:
                wanted = "a colour" if colour else "a number"
                got = keyframe.value.hex if isinstance(keyframe.value, Color) else f"{keyframe.value:g}"
                yield f"keyframes[{index}].value", f"{self.property!r} keyframes take {wanted} (got {got})"


BlendMode = Literal[
    "normal",
    "multiply",
    "screen",
    "overlay",
    "darken",
    "lighten",
    "color-dodge",
    "color-burn",
    "hard-light",
    "soft-light",
    "difference",
    "exclusion",
    "hue",
    "saturation",
    "color",
    "luminosity",
]
#: Shadow blur radii and spreads: beyond this a shadow is a haze, and blurring costs grow.
MAX_BLUR = 250.0
#: A layer's blur, a standard deviation: at most the widest shadow blur's (half its
#: radius), the same largest Gaussian and the same cost.
MAX_LAYER_BLUR = MAX_BLUR / 2
MAX_SHADOWS = 8


@frozen(kw_only=True)
class Shadow:
    """A drop shadow as CSS draws one: the layer's shape, grown by ``spread``, blurred by
    ``blur`` (the CSS blur radius: twice the Gaussian's standard deviation), moved by
    ``x`` and ``y``, in ``color``."""

    x: float = field(0.0, check=within(MAX_EXTENT))
    y: float = field(4.0, check=within(MAX_EXTENT))
    blur: float = field(8.0, check=between(0, MAX_BLUR))
    spread: float = field(0.0, check=within(MAX_BLUR))
    color: Color = Color(0, 0, 0, 64)


@frozen(kw_only=True, slots=False)  # without slots of its own: it is a second base of ShapeLayer
class ShapeGeometry:
    """How a shape fills its box: its corners' radii, a polygon's points or SVG path data
    (for a shape layer, and for a mask in the shape of one)."""

    radius: float = field(0.0, check=non_negative)
    #: each corner's radius: top-left, top-right, bottom-right, bottom-left (rect)
    radii: tuple[float, float, float, float] | None = None
    #: the polygon's corners, as fractions of the box (0, 0 top-left; 1, 1 bottom-right)
    points: tuple[tuple[float, float], ...] = field((), check=at_most_items(MAX_POINTS))
    path: str | None = field(None, check=PATH)  # SVG path data, ``d``
    #: the coordinates of ``path`` that fill the box: x, y, width, height (SVG's viewBox)
    view_box: tuple[float, float, float, float] | None = None
    fill_rule: Literal["nonzero", "evenodd"] = "nonzero"

    def geometry_problems(self, shape: str | None) -> Iterator[tuple[str, str]]:
        if self.radii is not None and any(corner < 0 for corner in self.radii):
            yield "radii", f"corners cannot be negative (got {list(self.radii)})"
        if shape == "polygon" and len(self.points) < 3:
            yield "points", f"a polygon needs at least 3 points (got {len(self.points)})"
        if any(abs(v) > 10 for point in self.points for v in point):
            yield "points", "are fractions of the box, within -10 and 10"
        if self.view_box is not None and (self.view_box[2] <= 0 or self.view_box[3] <= 0):
            yield "viewBox", f"width and height must be more than 0 (got {list(self.view_box)})"
        if shape == "path":
            from templatekit.model.path_data import PathDataError, parse_path_data

            if not self.path:
                yield "path", "a path shape needs SVG path data, e.g. 'M 0 0 L 100 0 L 50 80 Z'"
            elif PATH(self.path) is None:  # data over its length is refused unread
                try:
                    parse_path_data(self.path)
                except PathDataError as exc:
                    yield "path", str(exc)


@frozen(kw_only=True)
class Mask(ShapeGeometry):
    """What of a layer shows: where another layer draws (``layer``: that layer is then
    drawn only as the mask), or inside a shape in the layer's own box (``shape``).
    ``mode``: the mask's alpha, or its luminance (white shows, black hides); ``invert``
    shows what the mask hides."""

    layer: str | None = field(None, check=NAME)
    shape: Literal["rect", "ellipse", "polygon", "path"] | None = None
    mode: Literal["alpha", "luminance"] = "alpha"
    invert: bool = False

    def problems(self) -> Iterator[tuple[str, str]]:
        if (self.layer is None) == (self.shape is None):
            yield "layer", "a mask is another layer (layer: its name) or a shape (shape: rect, ellipse, polygon, path)"
        yield from self.geometry_problems(self.shape)


@frozen(kw_only=True)
class Layer:
    """Fields common to every layer kind."""

    TYPE: ClassVar[str]
    MAIN_FIELD: ClassVar[str | None] = None
    #: whether the layer changes over a video by its own content (a clip, captions), so
    #: that it is never still, and needs a video template
    PLAYS: ClassVar[bool] = False
    #: fields that are each other's alternative: a modification of the one unsets the
    #: other (the field it unsets, and that field's unset value)
    ALTERNATIVES: ClassVar[dict[str, tuple[str, Any]]] = {}

    name: str = field(check=NAME)
    x: float = field(check=within(MAX_EXTENT), schema=PLACED)
    y: float = field(check=within(MAX_EXTENT), schema=PLACED)
    width: float = field(check=all_of(positive, at_most(MAX_EXTENT)), schema=SIZE_MODES)
    height: float = field(check=all_of(positive, at_most(MAX_EXTENT)), schema=SIZE_MODES)
    #: ``width`` and ``height`` as the JSON gives them when they are not numbers ("hug",
    #: "fill"; the numbers are then worked out by the frame the layer is in)
    width_sizing: SizeMode = field("fixed", schema=INTERNAL)
    height_sizing: SizeMode = field("fixed", schema=INTERNAL)
    id: str | None = _short()
    rotation: float = 0.0
    opacity: float = field(1.0, check=between(0, 1))
    visible: bool = True
    #: the editor neither moves nor resizes it; renders ignore it
    locked: bool = False
    suggest_input: str | None = _short()
    start: float | None = field(None, check=non_negative)
    duration: float | None = field(None, check=positive)
    animations: tuple[Animation, ...] = field((), check=at_most_items(MAX_ANIMATIONS))
    shadows: tuple[Shadow, ...] = field((), check=at_most_items(MAX_SHADOWS))
    blur: float = field(
        0.0,
        check=between(0, MAX_LAYER_BLUR),
        schema={"description": "Blurs the whole layer as CSS filter: blur(): px, the Gaussian's standard deviation."},
    )
    blend: BlendMode = "normal"  # how the layer mixes with what is under it
    mask: Mask | None = None  # what of the layer shows

    #: whether ``"hug"`` means something for the kind: its content has a size of its own
    HUGS: ClassVar[bool] = False

    @property
    def kind(self) -> str:
        """The layer's ``type`` in the JSON."""
        return self.TYPE

    def problems(self) -> Iterator[tuple[str, str]]:
        return iter(())

    def sizing_problems(self) -> Iterator[tuple[str, str]]:
        """``"hug"`` on a kind without a size of its own."""
        if self.HUGS:
            return
        for side, mode in (("width", self.width_sizing), ("height", self.height_sizing)):
            if mode == "hug":
                yield side, f'"hug" means the size of the content, and a {self.kind} layer has none: give a number'


@frozen(kw_only=True)
class UnknownLayer(Layer):
    """A layer of a kind this version does not know, read from a newer template when
    loading leniently. It is not drawn, and written back exactly as it came."""

    TYPE = "unknown"

    type_name: str
    data: dict[str, Any] = field(factory=dict)

    @property
    def kind(self) -> str:
        return self.type_name


@frozen(kw_only=True)
class TextOutline:
    """A line around the letters, outside them, as designers draw one."""

    width: float = field(2.0, check=all_of(positive, at_most(MAX_OUTLINE)))
    color: Color = Color(0, 0, 0)


@frozen(kw_only=True)
class TextSpan:
    """A part of a text layer's rich text in a style of its own; unset fields keep the
    layer's."""

    text: str = _text()
    color: Color | None = None
    font: str | None = family(None)
    weight: int | None = field(None, check=between(100, 900), schema=WEIGHT_STEP)
    italic: bool | None = None
    size: float | None = field(None, check=FONT_SIZE)
    letter_spacing: float | None = field(None, check=within(MAX_FONT_SIZE))
    underline: bool | None = None
    strikethrough: bool | None = None
    highlight: Color | None = None  # a background behind the span's text


#: The template's locale unless it names one.
DEFAULT_LOCALE = "en-US"


def _locale(value: str | None) -> str | None:
    if value is None or value == DEFAULT_LOCALE:  # known good: the import of ICU is spared
        return None
    from templatekit.model.locale_tags import locale_problem  # ICU, imported when a locale is given

    return locale_problem(value)


#: A BCP 47 language tag that ICU reads (``de-DE``, ``ja-JP``, ``pt-BR``).
LOCALE = all_of(max_length(MAX_NAME), described(_locale, {"examples": ["en-US", "de-DE"]}))


def _currency(value: str | None) -> str | None:
    if value is not None and not (len(value) == 3 and value.isascii() and value.isalpha()):
        return f"must be an ISO 4217 code of three letters, e.g. EUR or USD (got {value!r})"
    return None


@frozen(kw_only=True)
class ValueFormat:
    """How a value is written: a number in a locale's way (``decimal``, ``currency``,
    ``percent``: 0.25 is 25 %), or an ISO 8601 date (``date``, ``datetime``) in the
    locale's ``short`` to ``full`` form. ``locale`` defaults to the template's."""

    style: Literal["decimal", "currency", "percent", "date", "datetime"] = "decimal"
    locale: str | None = field(None, check=LOCALE)
    currency: str | None = field(None, check=described(_currency, {"pattern": "^[A-Za-z]{3}$", "maxLength": 3}))
    decimals: int | None = field(None, check=between(0, 20))
    date: Literal["short", "medium", "long", "full"] = "medium"

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.style == "currency" and self.currency is None:
            yield "currency", "a currency format needs its ISO 4217 code, e.g. EUR"


@frozen(kw_only=True)
class TextLayer(Layer):
    TYPE = "text"
    MAIN_FIELD = "text"
    ALTERNATIVES = {"text": ("spans", ()), "spans": ("text", "")}
    HUGS = True

    text: str = _text()
    color: Color = Color(0, 0, 0)
    font: str = family("Inter")
    weight: int = field(400, check=between(100, 900), schema=WEIGHT_STEP)
    italic: bool = False
    size: float = field(32.0, check=FONT_SIZE)
    line_height: float = field(1.2, check=all_of(positive, at_most(10)))  # times the size
    letter_spacing: float = field(0.0, check=within(MAX_FONT_SIZE))
    align: Literal["left", "center", "right", "justify"] = "left"
    vertical_align: Literal["top", "middle", "bottom"] = "top"
    max_lines: int | None = field(None, check=positive)
    auto_fit: Literal["none", "shrink"] = "none"
    min_size: float = field(8.0, check=FONT_SIZE)
    ellipsis: bool = True
    transform: Literal["none", "uppercase", "lowercase"] = "none"
    padding: Insets = Insets()
    background: Color | Gradient | None = None
    radius: float = field(0.0, check=non_negative)
    markup: bool = False  # ``text`` is rich text in the HTML subset of templatekit.model.markup
    outline: TextOutline | None = None
    spans: tuple[TextSpan, ...] = field((), check=at_most_items(MAX_SPANS))  # rich text instead of ``text``
    format: ValueFormat | None = None  # ``text`` is a value, written as this says

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.auto_fit == "shrink" and self.min_size > self.size:
            yield "minSize", f"must not be larger than size ({self.min_size:g} > {self.size:g})"
        if self.spans and self.text:
            yield "spans", "a text layer has text or spans, not both (spans are its text)"
        if sum(len(span.text) for span in self.spans) > MAX_TEXT:
            yield "spans", f"must have at most {MAX_TEXT:,} characters in all"
        if self.markup and not self.spans and TEXT(self.text) is None:  # longer: refused unread
            from templatekit.model.markup_parser import parse_markup  # markup only (start-up time)

            try:
                parse_markup(self.text)
            except MarkupError as exc:
                yield "text", str(exc)


@frozen(kw_only=True)
class Focus:
    x: float = field(0.5, check=between(0, 1))
    y: float = field(0.5, check=between(0, 1))


@frozen(kw_only=True)
class Border:
    width: float = field(1.0, check=non_negative)
    color: Color = Color(0, 0, 0)


@frozen(kw_only=True)
class ImageFilters:
    """The CSS filter functions of an image, applied in this order: 1, 1, 1, 0, 0, 0
    change nothing."""

    brightness: float = field(1.0, check=between(0, 10))  # times the light
    contrast: float = field(1.0, check=between(0, 10))  # 0: all mid-grey
    saturation: float = field(1.0, check=between(0, 10))  # 0: grey; above 1: more vivid
    hue_rotate: float = field(0.0, check=within(3600))  # degrees round the colour wheel
    sepia: float = field(0.0, check=between(0, 1))
    invert: float = field(0.0, check=between(0, 1))

    @property
    def identity(self) -> bool:
        return self == ImageFilters()


@frozen(kw_only=True)
class ImageLayer(Layer):
    TYPE = "image"
    MAIN_FIELD = "src"
    HUGS = True  # its pixels' size, or their proportions

    src: Source = field(check=SOURCE)
    fit: Fit = "cover"
    focus: Focus = Focus()
    radius: Length = Length(0)
    border: Border | None = None
    grayscale: bool = False
    filters: ImageFilters = ImageFilters()


@frozen(kw_only=True)
class ShapeLayer(ShapeGeometry, Layer):
    TYPE = "shape"
    MAIN_FIELD = "fill"

    shape: Literal["rect", "ellipse", "line", "polygon", "path"] = "rect"
    fill: Color | Gradient | None = Color(0, 0, 0)
    stroke: Color | None = None
    stroke_width: float = field(1.0, check=non_negative)
    stroke_dash: tuple[float, ...] = field((), check=at_most_items(MAX_DASHES))  # px on, off, …
    line_cap: Literal["butt", "round", "square"] = "butt"
    arrow_start: bool = False  # lines: an arrowhead at the start
    arrow_end: bool = False

    def problems(self) -> Iterator[tuple[str, str]]:
        dashes = self.stroke_dash
        period = sum(dashes) * (2 if len(dashes) % 2 else 1)
        if any(length < 0 for length in dashes) or (dashes and not any(dashes)):
            yield "strokeDash", f"lengths must be 0 or more, and not all 0 (got {list(dashes)})"
        elif dashes and period < MIN_DASH_PERIOD:
            # finer dashes look like a solid line, and would number millions
            yield (
                "strokeDash",
                f"the pattern repeats every {period:g} px: at least {MIN_DASH_PERIOD:g} px (got {list(dashes)})",
            )
        yield from self.geometry_problems(self.shape)


@frozen(kw_only=True)
class AlertLayer(Layer):
    TYPE = "alert"
    MAIN_FIELD = "text"

    title: str = _text()
    text: str = _text()
    variant: Literal["info", "success", "warning", "error"] = "info"
    font: str = family("Inter")
    size: float = field(16.0, check=FONT_SIZE)


@frozen(kw_only=True)
class SignatureLayer(Layer):
    TYPE = "signature"
    MAIN_FIELD = "text"

    text: str = _text()
    title: str = _text()
    date: str = _text()
    font: str = family("Dancing Script")
    color: Color = Color(15, 23, 42)
    line_color: Color = Color(100, 116, 139)


Symbology = Literal["code128", "code39", "ean13", "ean8", "upca", "upce", "isbn13", "issn", "itf", "gs1_128"]


@frozen(kw_only=True)
class BarcodeLayer(Layer):
    TYPE = "barcode"
    MAIN_FIELD = "barcode"

    barcode: str = field(check=all_of(non_empty, max_length(MAX_TEXT)))
    symbology: Symbology = "code128"
    show_text: bool = True
    color: Color = Color(0, 0, 0)
    background: Color = Color(255, 255, 255)

    def scan_problem(self) -> str | None:
        return scan_problem(self.color, self.background, reversible=False)


@frozen(kw_only=True)
class QRCodeLayer(Layer):
    TYPE = "qrcode"
    MAIN_FIELD = "qrcode"

    qrcode: str = field(check=all_of(non_empty, max_length(MAX_TEXT)))
    error_correction: Literal["L", "M", "Q", "H"] = "M"
    color: Color = Color(0, 0, 0)
    background: Color = Color(255, 255, 255)
    margin: int = field(2, check=between(0, 20))

    def scan_problem(self) -> str | None:
        return scan_problem(self.color, self.background, reversible=True)


@frozen(kw_only=True)
class StarLayer(Layer):
    TYPE = "star"
    MAIN_FIELD = "star"

    star: float = field(0.0, check=non_negative)
    max: int = field(5, check=between(1, 20))
    color: Color = Color(250, 204, 21)
    empty_color: Color = Color(226, 232, 240)

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.star > self.max:
            yield "star", f"must not be more than max ({self.star:g} > {self.max})"


@frozen(kw_only=True)
class Column:
    key: str = field(check=NAME)
    header: str | None = _text(None)  # none: its key
    align: Literal["left", "center", "right"] | None = None
    width: Length | None = None
    format: ValueFormat | None = None  # the column's values written as this says


@frozen(kw_only=True)
class TableLayer(Layer):
    TYPE = "table"
    MAIN_FIELD = "rows"
    HUGS = True  # its adaptive size: columns as wide as their content, rows as their cells

    rows: tuple[dict[str, CellValue], ...] = field(
        (), check=all_of(at_most_items(MAX_ROWS), each(at_most_keys(MAX_COLUMNS, MAX_NAME)))
    )
    columns: tuple[Column, ...] = field((), check=at_most_items(MAX_COLUMNS))
    theme: Literal["none", "default", "bright", "simplify", "arco"] = "default"
    header_background: Color | None = None
    header_color: Color | None = None
    stripe: Color | None = None
    border: Color | None = None
    font: str = family("Inter")
    size: float = field(14.0, check=FONT_SIZE)
    width_mode: Literal["standard", "adaptive"] = "standard"
    height_mode: Literal["standard", "adaptive"] = "standard"


@frozen(kw_only=True)
class ChartPoint:
    label: str = _text(attrs.NOTHING)
    value: float = field(attrs.NOTHING, check=within(MAX_CHART_VALUE))
    color: Color | None = None


@frozen(kw_only=True)
class ChartSeries:
    name: str = _text(attrs.NOTHING)
    data: tuple[ChartPoint, ...] = field(check=at_most_items(MAX_ROWS))
    color: Color | None = None


PlotlyFigure = typing.NewType("PlotlyFigure", dict)
"""A whole Plotly figure as JSON data: ``data`` (traces) and ``layout``."""


def _number_format(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        NumberFormat.parse(value)
    except FormatError as exc:
        return str(exc)
    return None


@frozen(kw_only=True)
class ChartLayer(Layer):
    TYPE = "chart"
    MAIN_FIELD = "rows"

    rows: tuple[ChartPoint, ...] | tuple[ChartSeries, ...] = field((), check=at_most_items(MAX_ROWS))
    chart_type: Literal["bar", "horizontalBar", "line", "area", "pie", "doughnut", "scatter"] = "bar"
    title: str | None = _text(None)
    legend: bool = True
    colors: tuple[Color, ...] = field((), check=at_most_items(MAX_COLORS))
    stacked: bool = False
    font: str = family("Inter")
    value_format: str | None = field(None, check=all_of(max_length(MAX_NAME), _number_format))
    locale: str | None = field(None, check=LOCALE)  # whose digits valueFormat writes; the template's by default
    value_labels: bool = False
    max_slices: int | None = field(10, check=between(2, 1000))
    figure: PlotlyFigure | None = None

    @property
    def is_pie(self) -> bool:
        return self.chart_type in ("pie", "doughnut")

    def problems(self) -> Iterator[tuple[str, str]]:
        """At most ``MAX_ROWS`` points in all series; a slice cannot be negative: its
        share of the whole would be meaningless."""
        points = sum(len(row.data) if isinstance(row, ChartSeries) else 1 for row in self.rows)
        if points > MAX_ROWS:
            yield "rows", f"must have at most {MAX_ROWS:,} data points in all (got {points:,})"
        if self.figure is not None or not self.is_pie:
            return
        for index, row in enumerate(self.rows):
            if isinstance(row, ChartSeries):
                for number, point in enumerate(row.data):
                    if point.value < 0:
                        yield f"rows[{index}].data[{number}].value", _negative_slice(point)
            elif isinstance(row, ChartPoint) and row.value < 0:
                yield f"rows[{index}].value", _negative_slice(row)


def _negative_slice(point: ChartPoint) -> str:
    return f"pie and doughnut slices cannot be negative (label {point.label!r}: {point.value:g})"


@frozen(kw_only=True)
class StyleOverride:
    """What a key-value row changes of its layer's text style (unset: the layer's)."""

    color: Color | None = None
    weight: int | None = field(None, check=between(100, 900), schema=WEIGHT_STEP)
    italic: bool | None = None
    size: float | None = field(None, check=FONT_SIZE)


@frozen(kw_only=True)
class KeyValueRow:
    key: str = _text(attrs.NOTHING)
    value: CellText = _text(attrs.NOTHING)
    value_color: Color | None = None
    value_style: StyleOverride | None = None
    key_style: StyleOverride | None = None


@frozen(kw_only=True)
class KeyValueLayer(Layer):
    TYPE = "keyvalue"
    MAIN_FIELD = "rows"

    rows: tuple[KeyValueRow, ...] = field((), check=at_most_items(MAX_PAIRS))
    font: str = family("Inter")
    size: float = field(16.0, check=FONT_SIZE)
    key_color: Color = Color(100, 116, 139)
    value_color: Color = Color(15, 23, 42)
    divider: Color | None = Color(226, 232, 240)


@frozen(kw_only=True)
class Trim:
    start: float = field(0.0, check=non_negative)
    end: float | None = field(None, check=positive)

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.end is not None and self.end <= self.start:
            yield "end", f"must be after start ({self.end:g} <= {self.start:g})"


@frozen(kw_only=True)
class VideoLayer(Layer):
    TYPE = "video"
    MAIN_FIELD = "src"
    PLAYS = True

    src: Source = field(check=SOURCE)
    fit: Fit = "cover"
    loop: bool = False
    trim: Trim | None = None
    muted: bool = False


#: Cues of a captions layer.
MAX_CUES = 10_000


@frozen(kw_only=True)
class Cue:
    """Text on screen from ``start`` until ``end`` (seconds), as WebVTT cue text: ``<b>``,
    ``<i>`` and ``<u>``, and ``<00:00:01.200>`` timestamps where a word begins."""

    start: float = field(check=between(0, 300))
    end: float = field(check=between(0, 300))
    text: str = _text()

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.end <= self.start:
            yield "end", f"must be after start ({self.end:g} <= {self.start:g})"


@frozen(kw_only=True)
class WordHighlight:
    """How the word being spoken is set apart: its colour, a background behind it."""

    color: Color | None = Color(250, 204, 21)
    background: Color | None = None


@frozen(kw_only=True)
class CaptionsLayer(Layer):
    """Subtitles: the cue of ``src`` (an SRT or WebVTT file) or of ``cues`` shown at each
    moment, set as a text layer sets its text in the layer's box, shrunk to fit down to
    ``minSize`` and then split into pages; ``wordHighlight`` colours each word while it
    is spoken."""

    TYPE = "captions"
    MAIN_FIELD = "src"
    PLAYS = True
    ALTERNATIVES = {"src": ("cues", ()), "cues": ("src", None)}

    src: Source | None = field(None, check=SOURCE)
    cues: tuple[Cue, ...] = field((), check=at_most_items(MAX_CUES))
    color: Color = Color(255, 255, 255)
    font: str = family("Inter")
    weight: int = field(600, check=between(100, 900), schema=WEIGHT_STEP)
    italic: bool = False
    size: float = field(40.0, check=FONT_SIZE)
    min_size: float = field(20.0, check=FONT_SIZE)
    line_height: float = field(1.25, check=all_of(positive, at_most(10)))
    letter_spacing: float = field(0.0, check=within(MAX_FONT_SIZE))
    align: Literal["left", "center", "right"] = "center"
    vertical_align: Literal["top", "middle", "bottom"] = "bottom"
    max_lines: int | None = field(2, check=positive)
    transform: Literal["none", "uppercase", "lowercase"] = "none"
    padding: Insets = Insets()
    background: Color | None = None
    radius: float = field(0.0, check=non_negative)
    outline: TextOutline | None = None
    word_highlight: WordHighlight | None = None

    def problems(self) -> Iterator[tuple[str, str]]:
        if (self.src is None) == (not self.cues):
            yield "src", "captions come from a subtitle file (src) or from cues, one of the two"
        if self.min_size > self.size:
            yield "minSize", f"must not be larger than size ({self.min_size:g} > {self.size:g})"


#: Layers in frames, frames in frames: at most this deep.
MAX_FRAME_DEPTH = 16
#: Layers one frame holds (the template's own limit holds for all of them together).
MAX_FRAME_LAYERS = 500


@frozen(kw_only=True)
class FrameLayer(Layer):
    """A layer that holds layers: placed one after another as CSS flexbox does
    (``row``, ``column``), or where their own ``x`` and ``y`` say, from the frame's corner
    (``none``); with a box of its own (``fill``, ``stroke``, ``radius``) and, with
    ``clip``, cutting them at its edge."""

    TYPE = "frame"
    HUGS = True

    layers: tuple[AnyLayer, ...] = field((), check=at_most_items(MAX_FRAME_LAYERS))
    layout: Literal["none", "row", "column"] = "none"
    gap: float = field(0.0, check=all_of(non_negative, at_most(MAX_EXTENT)))
    padding: Insets = Insets()
    align: Literal["start", "center", "end", "stretch"] = "start"
    justify: Literal["start", "center", "end", "space-between"] = "start"
    wrap: bool = False
    clip: bool = False
    fill: Color | Gradient | None = None
    stroke: Color | None = None
    stroke_width: float = field(1.0, check=non_negative)
    radius: float = field(0.0, check=non_negative)

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.wrap and self.layout != "row":
            yield "wrap", f'only a "row" frame wraps (this one is "{self.layout}")'


AnyLayer = Union[
    TextLayer,
    ImageLayer,
    ShapeLayer,
    AlertLayer,
    SignatureLayer,
    BarcodeLayer,
    QRCodeLayer,
    StarLayer,
    TableLayer,
    ChartLayer,
    KeyValueLayer,
    VideoLayer,
    CaptionsLayer,
    FrameLayer,
    UnknownLayer,
]


def walk_layers(layers: tuple[AnyLayer, ...]) -> Iterator[AnyLayer]:
    """Every layer of ``layers``, each frame followed by the layers it holds, at any depth."""
    for layer in layers:
        yield layer
        if isinstance(layer, FrameLayer):
            yield from walk_layers(layer.layers)


def replaced_layers(layers: tuple[AnyLayer, ...], changed: dict[str, AnyLayer]) -> tuple[AnyLayer, ...]:
    """``layers`` with the ``changed`` ones (by name, at any depth) in their place; a
    frame whose layers changed is a new frame, the others stay the same objects."""
    result = []
    for layer in layers:
        layer = changed.get(layer.name, layer)
        if isinstance(layer, FrameLayer) and layer.layers:
            inner = replaced_layers(layer.layers, changed)
            if any(a is not b for a, b in zip(inner, layer.layers, strict=True)):
                layer = attrs.evolve(layer, layers=inner)
        result.append(layer)
    return tuple(result)


def layer_paths(
    layers: tuple[AnyLayer, ...], parent: FrameLayer | None = None, at: str = "layers"
) -> Iterator[tuple[str, AnyLayer, FrameLayer | None]]:
    """(path, layer, the frame holding it) of every layer, frames first: the path as
    problems name it (``layers[2].layers[0]``)."""
    for index, layer in enumerate(layers):
        path = f"{at}[{index}]"
        yield path, layer, parent
        if isinstance(layer, FrameLayer):
            yield from layer_paths(layer.layers, layer, f"{path}.layers")


# The layer kinds of the format by their ``type``, in the order of the format.
#: The layer kinds by ``type``: the built-in ones, then any ``templatekit.kinds`` adds.
LAYER_KINDS: dict[str, type[AnyLayer]] = {cls.TYPE: cls for cls in typing.get_args(AnyLayer) if cls is not UnknownLayer}
#: The kinds of the package: each is laid out by ``templatekit.layout.<its type>``.
BUILT_IN_KINDS = frozenset(LAYER_KINDS)
