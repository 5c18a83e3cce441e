"""The Scene: an ordered display list of primitives, in canvas pixels.

Layout produces it; painters consume it. Paint order is list order. Painters know
these primitives and nothing about layer kinds. Everything here is resolved: fonts
are files, images are decoded, colours are RGBA; a painter cannot fail on a Scene.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, TypedDict, Union

from attrs import evolve, field, frozen
from PIL import Image as PILImage

from templatekit.cache import memoized
from templatekit.model.values import Color, Gradient
from templatekit.scene.geometry import IDENTITY, Box, Transform, grown, overlap, union

Paint = Union[Color, Gradient]
Point = tuple[float, float]
LineCap = Literal["butt", "round", "square"]
LineJoin = Literal["miter", "round", "bevel"]
FLATNESS = 0.2  # px: how far a curve flattened to a polyline may stray from the curve


# A shadow's spread grows a shape geometrically, as CSS grows a box's shadow (Backgrounds
# 3, "Shadow Shape"): each primitive's ``spread`` is the primitive grown by ``by`` px on
# every side (shrunk below zero), or None where only its pixels can be grown (glyphs,
# pictures with transparency).


class BoxFields(TypedDict):
    x: float
    y: float
    width: float
    height: float


def outset(x: float, y: float, width: float, height: float, by: float) -> BoxFields:
    """The fields of a box grown by ``by`` on every side, at least empty."""
    return {"x": x - by, "y": y - by, "width": max(0.0, width + 2 * by), "height": max(0.0, height + 2 * by)}


def spread_radius(radius: float, by: float) -> float:
    """A corner's radius once its box is grown by ``by``, as CSS has it: it grows with the
    box, but a sharp corner stays sharp and one rounded less than ``by`` grows less
    (by (1 + (r/by - 1)³): no jump between sharp and round); a shrunk one stops at 0."""
    if 0 < radius < by:
        return radius + by * (1 + (radius / by - 1) ** 3)
    return max(0.0, radius + by) if radius > 0 else 0.0


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

    def spread(self, by: float) -> Rect:
        box = outset(self.x, self.y, self.width, self.height, by)
        return evolve(self, **box, stroke_width=_wider(self.stroke_width, by), radius=spread_radius(self.radius, by))

    def bounds(self) -> Box | None:
        return (self.x, self.y, self.x + self.width, self.y + self.height)

    def overlaps_itself(self) -> bool:
        """Whether painting it lays one part of it over another (here its stroke over its
        fill): a painter that fades it part by part must fade it as a whole instead, as
        the PNG does. Every primitive answers."""
        return self.fill is not None and self.stroke is not None and self.stroke_width > 0

    def weight(self) -> int:
        """Roughly the bytes the item holds, for the caches that keep laid-out items."""
        return 200


@frozen(cache_hash=True)
class Ellipse:
    x: float
    y: float
    width: float
    height: float
    fill: Paint | None = None
    stroke: Color | None = None
    stroke_width: float = 0.0

    def spread(self, by: float) -> Ellipse:
        """Both axes grown by ``by``: CSS's 50% corners on the grown box."""
        box = outset(self.x, self.y, self.width, self.height, by)
        return evolve(self, **box, stroke_width=_wider(self.stroke_width, by))

    def bounds(self) -> Box | None:
        return (self.x, self.y, self.x + self.width, self.y + self.height)

    def overlaps_itself(self) -> bool:
        """Its stroke is drawn over its fill."""
        return self.fill is not None and self.stroke is not None and self.stroke_width > 0

    def weight(self) -> int:
        return 200


@frozen(cache_hash=True)
class Line:
    start: Point
    end: Point
    color: Color
    width: float = 1.0

    def spread(self, by: float) -> None:
        return None

    def bounds(self) -> Box | None:
        xs, ys = (self.start[0], self.end[0]), (self.start[1], self.end[1])
        return grown((min(xs), min(ys), max(xs), max(ys)), self.width)

    def overlaps_itself(self) -> bool:
        return False  # one stroke

    def weight(self) -> int:
        return 200


@frozen(cache_hash=True)
class Polygon:
    """One or more closed polygons filled with the non-zero rule."""

    contours: tuple[tuple[Point, ...], ...]
    fill: Paint

    def spread(self, by: float) -> Path | None:
        commands = tuple(
            command for c in self.contours for command in (("M", *c[0]), *(("L", *p) for p in c[1:]), ("Z",))
        )
        return Path(commands, fill=self.fill).spread(by)

    def bounds(self) -> Box | None:
        points = [p for contour in self.contours for p in contour]
        if not points:
            return None
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        return (min(xs), min(ys), max(xs), max(ys))

    def overlaps_itself(self) -> bool:
        return False  # one fill of all its contours

    def weight(self) -> int:
        return 200 + 24 * sum(len(contour) for contour in self.contours)


#: How far a mitred join may reach, in stroke widths, before it is bevelled: PDF's default,
#: which the PDF painter keeps and the raster painter follows.
MITRE_LIMIT = 10.0


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
    dash_offset: float = 0.0  # px into the pattern where each contour starts (PDF's dash phase)

    def contours(self) -> list[tuple[list[Point], bool]]:
        """The contours as polylines, each with whether it is closed; curves are
        flattened to within ``FLATNESS`` px."""
        found: list[tuple[list[Point], bool]] = []
        points: list[Point] = []
        for command in self.commands:
            kind = command[0]
            if kind == "M":
                if len(points) > 1:
                    found.append((points, False))
                points = [(command[1], command[2])]
            elif kind == "L":
                points.append((command[1], command[2]))
            elif kind == "C" and points:
                points.extend(_cubic(points[-1], command[1:3], command[3:5], command[5:7]))
            elif kind == "Z" and points:
                found.append((points, True))
                points = [points[0]]
        if len(points) > 1:
            found.append((points, False))
        return found

    def spread(self, by: float) -> Path | None:
        """Grown by a round-joined stroke ``by`` px wider on each side: every point within
        ``by`` of the shape. A dashed one, or one shrunk, only in pixels."""
        if by < 0 or self.dash:
            return None
        alpha = self.fill.a if isinstance(self.fill, Color) else 255
        stroke = self.stroke if self.stroke is not None else Color(0, 0, 0, alpha)
        width = self.stroke_width + 2 * by
        return evolve(self, stroke=stroke, stroke_width=width, line_join="round", line_cap="round")

    def hull(self) -> Box:
        """The box of the path's points (control points included: it holds the curves)."""
        xs = [v for c in self.commands for v in c[1::2]]
        ys = [v for c in self.commands for v in c[2::2]]
        if not xs:
            return (0.0, 0.0, 0.0, 0.0)
        return (min(xs), min(ys), max(xs), max(ys))

    def bounds(self) -> Box | None:
        """The hull grown by the stroke (a square cap's corner reaches √2 half widths
        beyond an end), or by its mitres' points where its joins are mitred (at most
        ``MITRE_LIMIT`` half widths beyond a corner)."""
        mitred = self.line_join == "miter" and self.stroke is not None
        return grown(self.hull(), self.stroke_width * (MITRE_LIMIT / 2 if mitred else 1))

    def overlaps_itself(self) -> bool:
        """Its stroke is drawn over its fill."""
        return self.fill is not None and self.stroke is not None and self.stroke_width > 0

    def weight(self) -> int:
        return 200 + 48 * len(self.commands)


@frozen(cache_hash=True)
class Bars:
    """Axis-aligned filled rectangles of one colour (QR modules, barcode bars).

    Kept apart from ``Rect`` so that painters can draw hundreds of them in one pass
    and snap them to whole pixels, which keeps codes crisp and scannable."""

    rects: tuple[tuple[float, float, float, float], ...]  # x, y, width, height
    color: Color

    def spread(self, by: float) -> None:
        return None

    def bounds(self) -> Box | None:
        if not self.rects:
            return None
        return (
            min(r[0] for r in self.rects),
            min(r[1] for r in self.rects),
            max(r[0] + r[2] for r in self.rects),
            max(r[1] + r[3] for r in self.rects),
        )

    def overlaps_itself(self) -> bool:
        return False  # one fill of all its bars

    def weight(self) -> int:
        return 200 + 140 * len(self.rects)  # a tuple of four ints each, measured


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

    def spread(self, by: float) -> None:
        return None

    def bounds(self) -> Box | None:
        """Generous: half an em either side, an em and a half above the baseline and
        0.8 em below it hold the glyphs of any script, plus the outline."""
        pad = self.outline.width if self.outline is not None else 0.0
        return (
            self.x - self.size * 0.5 - pad,
            self.y - self.size * 1.5 - pad,
            self.x + self.width + self.size * 0.5 + pad,
            self.y + self.size * 0.8 + pad,
        )

    def overlaps_itself(self) -> bool:
        """Its letters are drawn over their outline, and glyphs one by one: two of them
        may touch (a mark on its letter, a kerned pair, negative letter spacing)."""
        return self.outline is not None or len(self.glyphs) > 1

    def weight(self) -> int:
        return 600 + 160 * len(self.glyphs) + 2 * len(self.text)  # an id and a point of floats each, measured


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
    images compare by key, and the painters cache by it. ``from_vector``: the pixels
    were drawn from a vector source (an SVG, a Plotly figure) at more than the box's
    size (twice, by default), so they are shrunk by averaging, which is drawing the
    source at the painted size with more samples a pixel; a filter made for photos
    (Lanczos) rings around such sharp edges."""

    x: float
    y: float
    width: float
    height: float
    image: PILImage.Image = field(eq=False)  # compared through key
    key: str
    from_vector: bool = False
    source: EncodedSource | None = field(default=None, eq=False)
    vector: Group | None = field(default=None, eq=False)  # the same picture as paths, for vector output

    def spread(self, by: float) -> Rect | None:
        """An opaque picture covers its box: grown as a sharp-cornered box."""
        if self.image.mode != "RGB":
            return None
        return Rect(**outset(self.x, self.y, self.width, self.height, by), fill=Color(0, 0, 0))

    def bounds(self) -> Box | None:
        return (self.x, self.y, self.x + self.width, self.y + self.height)

    def overlaps_itself(self) -> bool:
        return False  # its pixels are drawn once; its vector version is a group that fades as a whole

    def weight(self) -> int:
        pixels = self.image.width * self.image.height * len(self.image.getbands())
        return 300 + pixels + (self.vector.weight() if self.vector is not None else 0)


@frozen(cache_hash=True)
class Clip:
    """A clip region: a (rounded) rectangle, or an ellipse."""

    x: float
    y: float
    width: float
    height: float
    radius: float = 0.0
    ellipse: bool = False

    def spread(self, by: float) -> Clip:
        box = outset(self.x, self.y, self.width, self.height, by)
        return evolve(self, **box, radius=spread_radius(self.radius, by))

    def box(self) -> Box:
        return (self.x, self.y, self.x + self.width, self.y + self.height)


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

    def weight(self) -> int:
        return sum(item.weight() for item in self.items)


@frozen(cache_hash=True)
class Group:
    """Items drawn together in the group's own frame, clipped, masked and given its
    ``effects`` there, then placed by ``transform`` (a turn, a zoom, a move) and
    composited with ``opacity``: the clip, the mask and the effects move with it."""

    items: tuple[Item, ...]
    opacity: float = 1.0
    transform: Transform = IDENTITY
    clip: Clip | None = None
    label: str | None = None  # the layer name, for debug drawing
    effects: Effects | None = None
    mask: Mask | None = None

    def spread(self, by: float) -> Group | None:
        """The items and the clip grown (the group's own effects left out); None when one
        of them, or the mask, can only be grown in pixels."""
        items = [item.spread(by) for item in self.items]
        if self.mask is not None or any(item is None for item in items):
            return None
        clip = self.clip.spread(by) if self.clip is not None else None
        return evolve(self, items=tuple(item for item in items if item is not None), clip=clip, effects=None)

    def content_bounds(self) -> Box | None:
        """The box of what the items paint, cut by the clip: the group before its effects
        and its turn."""
        return _content_bounds(self)

    def bounds(self) -> Box | None:
        """A box that holds everything the group paints: with its effects' reach, placed."""
        inner = self.content_bounds()
        if inner is not None and self.effects is not None:
            inner = grown(inner, self.effects.reach)
        if inner is None or self.transform.is_identity:
            return inner
        return self.transform.box(inner)

    def overlaps_itself(self) -> bool:
        return True  # its items, the pictures of its effects, its mask: taken as a whole

    def weight(self) -> int:
        masked = self.mask.weight() if self.mask is not None else 0
        return 200 + masked + sum(item.weight() for item in self.items)


# keyed by the group, which holds its glyphs: a group of new text is not kept unless its
# bounds are asked for again (as when a render is compared with the one before)
@memoized("scene.bounds", 2048, lambda _: 120, second_use=True)
def _content_bounds(group: Group) -> Box | None:
    box = union(item.bounds() for item in group.items)
    if box is None or group.clip is None:
        return box
    return overlap(box, group.clip.box())


def _cubic(start: Point, first: tuple[Any, ...], second: tuple[Any, ...], end: tuple[Any, ...]) -> list[Point]:
    """Points along a cubic Bézier, closer together where it bends more."""
    length = math.dist(start, first) + math.dist(first, second) + math.dist(second, end)
    steps = max(2, min(64, math.ceil(math.sqrt(length / FLATNESS) / 2)))
    points = []
    for step in range(1, steps + 1):
        t = step / steps
        u = 1 - t
        a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
        points.append(
            (
                a * start[0] + b * first[0] + c * second[0] + d * end[0],
                a * start[1] + b * first[1] + c * second[1] + d * end[1],
            )
        )
    return points


def _wider(stroke_width: float, by: float) -> float:
    """A stroke inside a box, as wide as the grown box needs to cover the same ring
    grown: ``by`` more on each side."""
    return max(0.0, stroke_width + 2 * by) if stroke_width > 0 else 0.0


Item = Union[Rect, Ellipse, Line, Polygon, Path, Bars, GlyphRun, Image, Group]


@frozen(cache_hash=True)
class Scene:
    width: int
    height: int
    background: Color | None
    items: tuple[Item, ...]


def glyph_runs(items: Sequence[Item]) -> list[GlyphRun]:
    """The glyph runs among ``items`` and inside their groups, in paint order."""
    found: list[GlyphRun] = []
    for item in items:
        if isinstance(item, Group):
            found.extend(glyph_runs(item.items))
        elif isinstance(item, GlyphRun):
            found.append(item)
    return found
