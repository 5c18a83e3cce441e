"""The Scene: an ordered display list of primitives, in canvas pixels.

Layout produces it; painters consume it. Paint order is list order. Painters know
these primitives and nothing about layer kinds. Everything here is resolved: fonts
are files, images are decoded, colours are RGBA; a painter cannot fail on a Scene.
"""

from __future__ import annotations

from typing import Any, Literal, Union

from attrs import field, frozen
from PIL import Image as PILImage

from templatekit.model.values import Color, Gradient

Paint = Union[Color, Gradient]
Point = tuple[float, float]
LineCap = Literal["butt", "round", "square"]
LineJoin = Literal["miter", "round", "bevel"]


@frozen(cache_hash=True)
class FontFile:
    """A font file by path, or by content for fonts supplied with a template."""

    path: str
    data: bytes | None = field(default=None, eq=False, repr=False)  # path names the content
    index: int = 0


@frozen(cache_hash=True)
class Rect:
    x: float
    y: float
    width: float
    height: float
    fill: Paint | None = None
    stroke: Color | None = None
    stroke_width: float = 0.0
    radius: float = 0.0


@frozen(cache_hash=True)
class Ellipse:
    x: float
    y: float
    width: float
    height: float
    fill: Paint | None = None
    stroke: Color | None = None
    stroke_width: float = 0.0


@frozen(cache_hash=True)
class Line:
    start: Point
    end: Point
    color: Color
    width: float = 1.0


@frozen(cache_hash=True)
class Polygon:
    """One or more closed polygons filled with the non-zero rule."""

    contours: tuple[tuple[Point, ...], ...]
    fill: Paint


@frozen(cache_hash=True)
class Path:
    """Contours of straight and cubic Bézier segments: ``("M", x, y)``, ``("L", x, y)``,
    ``("C", x1, y1, x2, y2, x, y)``, ``("Z",)``; filled by the non-zero rule (even-odd
    with ``even_odd``) and stroked along the path (centred on it)."""

    commands: tuple[tuple[Any, ...], ...]
    fill: Paint | None = None
    stroke: Color | None = None
    stroke_width: float = 0.0
    even_odd: bool = False
    line_cap: LineCap = "butt"
    line_join: LineJoin = "miter"
    dash: tuple[float, ...] = ()  # px on, off, on, … along the stroke; () is solid

    def bounds(self) -> tuple[float, float, float, float]:
        """The box of the path's points (control points included: it holds the curves)."""
        xs = [v for c in self.commands for v in c[1::2]]
        ys = [v for c in self.commands for v in c[2::2]]
        if not xs:
            return (0.0, 0.0, 0.0, 0.0)
        return (min(xs), min(ys), max(xs), max(ys))


@frozen(cache_hash=True)
class Bars:
    """Axis-aligned filled rectangles of one colour (QR modules, barcode bars).

    Kept apart from ``Rect`` so that painters can draw hundreds of them in one pass
    and snap them to whole pixels, which keeps codes crisp and scannable."""

    rects: tuple[tuple[float, float, float, float], ...]  # x, y, width, height
    color: Color


@frozen(cache_hash=True)
class Outline:
    """A line of ``width`` px around glyphs, outside them (the glyphs are drawn over it)."""

    width: float
    color: Color


@frozen(cache_hash=True)
class GlyphRun:
    """Shaped text: glyphs of one font, size and colour, each drawn at ``positions[i]``
    (px from the run's origin ``x, y`` on the baseline; y points down). ``text`` is the
    source text the glyphs draw, in logical order, and ``clusters[i]`` the index in it of
    the first character of glyph i's cluster: what a PDF maps back to for search and
    copy. ``width`` is the run's advance as laid out. Painters draw the glyphs as given."""

    x: float
    y: float
    font: FontFile
    size: float
    color: Color
    glyphs: tuple[int, ...]
    positions: tuple[tuple[float, float], ...]
    width: float
    text: str
    clusters: tuple[int, ...]
    rtl: bool = False
    letter_spacing: float = 0.0  # px after each glyph cluster, included in ``positions``
    offset: int = 0  # where ``text`` starts in the text of its block: runs in reading order
    outline: Outline | None = None


@frozen(cache_hash=True)
class EncodedSource:
    """The encoded file an Image was decoded from, and the part of it (in its pixels)
    that the Image shows: lets the PDF writer embed a JPEG as it came."""

    data: bytes = field(eq=False, repr=False)
    format: str
    size: tuple[int, int]
    crop: tuple[float, float, float, float]


@frozen(cache_hash=True)
class Image:
    """A decoded image drawn into a box. ``key`` identifies its content (and crop):
    images compare by key, and the painters cache by it. ``smooth`` False keeps hard
    pixel edges when scaling."""

    x: float
    y: float
    width: float
    height: float
    image: PILImage.Image = field(eq=False)  # compared through key
    key: str
    smooth: bool = True
    source: EncodedSource | None = field(default=None, eq=False)
    vector: Group | None = field(default=None, eq=False)  # the same picture as paths, for vector output


@frozen(cache_hash=True)
class Clip:
    """A clip region: a (rounded) rectangle, or an ellipse."""

    x: float
    y: float
    width: float
    height: float
    radius: float = 0.0
    ellipse: bool = False


@frozen(cache_hash=True)
class DropShadow:
    """The group's coverage grown by ``spread``, blurred (``blur`` is the CSS radius,
    twice the Gaussian's standard deviation), moved by ``x``, ``y``, in ``color``."""

    x: float
    y: float
    blur: float
    spread: float
    color: Color


@frozen(cache_hash=True)
class Effects:
    """What a group's pixels go through before they are composited: a blur (``blur`` is
    the Gaussian's standard deviation, as in CSS ``filter: blur()``), shadows drawn under
    them (the first on top, as in CSS), and how they blend with what is under them."""

    shadows: tuple[DropShadow, ...] = ()
    blur: float = 0.0
    blend: str = "normal"  # a CSS mix-blend-mode

    @property
    def reach(self) -> float:
        """How far past the group's own pixels its effects can paint: a Gaussian three
        standard deviations out (what it adds beyond is under half a level of 255)."""
        shadows = (abs(s.x) + abs(s.y) + s.spread + 3 * s.blur / 2 for s in self.shadows)
        return max((3 * self.blur, *shadows), default=0.0)


@frozen(cache_hash=True)
class Mask:
    """Where a group shows: where ``items`` cover (their alpha, or with ``luminance``
    their luminance times their alpha), or where they do not when ``invert``."""

    items: tuple[Item, ...]
    luminance: bool = False
    invert: bool = False


@frozen(cache_hash=True)
class Group:
    """Items drawn together, then rotated by ``rotation`` degrees (clockwise) about
    ``origin``, clipped, masked, given its ``effects``, and composited with ``opacity``.
    The mask is in the group's frame: it turns with it."""

    items: tuple[Item, ...]
    opacity: float = 1.0
    rotation: float = 0.0
    origin: Point = (0.0, 0.0)
    clip: Clip | None = None
    label: str | None = None  # the layer name, for debug drawing
    effects: Effects | None = None
    mask: Mask | None = None


Item = Union[Rect, Ellipse, Line, Polygon, Path, Bars, GlyphRun, Image, Group]


@frozen(cache_hash=True)
class Scene:
    width: int
    height: int
    background: Color | None
    items: tuple[Item, ...]


def approx_bytes(item: Item) -> int:
    """Roughly what ``item`` holds in memory, for the caches that keep laid-out items: a
    few hundred bytes an item, more for each glyph, point and pixel."""
    if isinstance(item, Group):
        masked = sum(approx_bytes(child) for child in item.mask.items) if item.mask is not None else 0
        return 200 + masked + sum(approx_bytes(child) for child in item.items)
    if isinstance(item, GlyphRun):
        return 300 + 48 * len(item.glyphs) + 2 * len(item.text)
    if isinstance(item, Image):
        pixels = item.image.width * item.image.height * len(item.image.getbands())
        return 300 + pixels + (approx_bytes(item.vector) if item.vector is not None else 0)
    if isinstance(item, Bars):
        return 200 + 40 * len(item.rects)
    if isinstance(item, Polygon):
        return 200 + 24 * sum(len(contour) for contour in item.contours)
    if isinstance(item, Path):
        return 200 + 48 * len(item.commands)
    return 200
