"""Paths as pixels: curves flattened to polygons, filled and stroked into a coverage
mask drawn at four times the resolution and reduced, as the raster painter draws every
curved shape.

Both fill rules are exact for contours that do not cross themselves. Strokes are
centred on the path, with round or square caps and round, bevelled or mitred joins as
the path says.
"""

from __future__ import annotations

import math

from PIL import Image as PILImage
from PIL import ImageChops, ImageDraw

from templatekit.scene import MITRE_LIMIT, Path, Point

SUPERSAMPLE = 4
ZERO = 128  # the winding count zero in the 8-bit count image
_SAME = 1e-6  # how close (in mask pixels) a point may be to the one before and count as it


def dashed(
    lines: list[tuple[list[Point], bool]], pattern: tuple[float, ...], offset: float = 0.0
) -> list[tuple[list[Point], bool]]:
    """The dashes of a dash ``pattern`` (on, off, on, … in px; an odd count repeats, as
    in SVG) laid along each line from its start, ``offset`` px into the pattern there (as
    PDF's dash phase), as open lines."""
    lengths = list(pattern) * (2 if len(pattern) % 2 else 1)
    if sum(lengths) <= 0:
        return lines
    dashes: list[tuple[list[Point], bool]] = []
    for points, closed in lines:
        run = [*points, points[0]] if closed else points
        index, left, on = _start(lengths, offset)
        current: list[Point] = [run[0]]
        for a, b in zip(run, run[1:], strict=False):
            segment = math.dist(a, b)
            travelled = 0.0
            while segment - travelled > left:
                travelled += left
                t = travelled / segment
                point = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
                if on:
                    current.append(point)
                    dashes.append((current, False))
                current = [point]
                index = (index + 1) % len(lengths)
                left, on = lengths[index], not on
            left -= segment - travelled
            if on:
                current.append(b)
            else:
                current = [b]
        if on and len(current) > 1:
            dashes.append((current, False))
    return dashes


def _start(lengths: list[float], offset: float) -> tuple[int, float, bool]:
    """Where the pattern stands ``offset`` px in: which length, how much of it is left,
    and whether it is a dash (a dash of length 0, a dot, is drawn where it starts)."""
    offset %= sum(lengths)
    index = 0
    while offset > 0 and offset >= lengths[index]:
        offset -= lengths[index]
        index = (index + 1) % len(lengths)
    return index, lengths[index] - offset, index % 2 == 0


def path_mask(path: Path, scale: float, origin: Point, size: tuple[int, int], stroke: bool) -> PILImage.Image:
    """Coverage of the path's fill (or of its stroke) on an image of ``size`` pixels
    whose top-left corner is scene point ``origin``, at ``scale`` pixels per px."""
    k = scale * SUPERSAMPLE
    big = (size[0] * SUPERSAMPLE, size[1] * SUPERSAMPLE)  # two such 8-bit images at most: the count and a contour

    def device(points: list[Point]) -> list[Point]:
        return [((x - origin[0]) * k, (y - origin[1]) * k) for x, y in points]

    if stroke:
        mask = PILImage.new("L", big, 0)
        lines = dashed(path.contours(), path.dash, path.dash_offset) if path.dash else path.contours()
        _stroke(ImageDraw.Draw(mask), [(device(p), closed) for p, closed in lines], path, k)
        return mask.reduce(SUPERSAMPLE)
    return _fill(path, [device(points) for points, _ in path.contours() if len(points) > 2], big).reduce(SUPERSAMPLE)


def _fill(path: Path, polygons: list[list[Point]], size: tuple[int, int]) -> PILImage.Image:
    """Coverage by the fill rule: the winding number of a point is the sum, over the
    contours around it, of each contour's direction (+1 or -1); non-zero fills where the
    sum is not zero, even-odd where it is odd. Counts are kept around 128 in an 8-bit image."""
    if len(polygons) == 1:
        mask = PILImage.new("L", size, 0)
        ImageDraw.Draw(mask).polygon(polygons[0], fill=255)
        return mask
    count = PILImage.new("L", size, ZERO)
    for polygon in polygons:
        layer = PILImage.new("L", size, 0)
        ImageDraw.Draw(layer).polygon(polygon, fill=1)
        count = ImageChops.add(count, layer) if _signed_area(polygon) >= 0 else ImageChops.subtract(count, layer)
    inside = (lambda v: 255 if (v - ZERO) % 2 else 0) if path.even_odd else (lambda v: 255 if v != ZERO else 0)
    return count.point(inside)


def _signed_area(polygon: list[Point]) -> float:
    return sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(polygon, [*polygon[1:], polygon[0]], strict=True))


def _stroke(draw: ImageDraw.ImageDraw, lines: list[tuple[list[Point], bool]], path: Path, k: float) -> None:
    width = path.stroke_width * k
    radius = width / 2
    for line, closed in lines:
        points = _distinct(line, closed)
        if len(points) < 2:
            continue
        run = [*points, points[0], points[1]] if closed else points
        for a, b in zip(run, run[1:], strict=False):
            _segment(draw, a, b, radius)
        for before, at, after in zip(run, run[1:], run[2:], strict=False):
            if path.line_join == "round":
                _round_join(draw, before, at, after, radius)
            elif path.line_join != "miter" or not _mitre(draw, before, at, after, radius):
                _bevel(draw, before, at, after, radius)
        if not closed and path.line_cap != "butt":
            for end, towards in ((points[0], points[1]), (points[-1], points[-2])):
                _cap(draw, end, towards, radius, path.line_cap)


def _distinct(points: list[Point], closed: bool) -> list[Point]:
    """The points less each that is (all but) the point before it, and a closed line's
    last point where it is its first: a segment of no length has no direction, so the
    segments on either side of it are joined to each other (mitred, as PDF joins them).
    A line that is a single point (a dot) is kept as it is, for its caps."""
    kept = points[:1]
    for point in points[1:]:
        if math.dist(point, kept[-1]) > _SAME:
            kept.append(point)
    if closed and len(kept) > 2 and math.dist(kept[-1], kept[0]) <= _SAME:
        kept.pop()
    return kept if len(kept) > 1 else points


def _segment(draw: ImageDraw.ImageDraw, a: Point, b: Point, radius: float) -> None:
    if a == b:
        return
    nx, ny = _normal(a, b, radius)
    draw.polygon(
        [(a[0] + nx, a[1] + ny), (b[0] + nx, b[1] + ny), (b[0] - nx, b[1] - ny), (a[0] - nx, a[1] - ny)], fill=255
    )


def _bevel(draw: ImageDraw.ImageDraw, before: Point, at: Point, after: Point, radius: float) -> None:
    """The wedge between two segments' outer edges at their shared point."""
    first, second = _normal(before, at, radius), _normal(at, after, radius)
    for sign in (1, -1):
        draw.polygon(
            [
                at,
                (at[0] + sign * first[0], at[1] + sign * first[1]),
                (at[0] + sign * second[0], at[1] + sign * second[1]),
            ],
            fill=255,
        )


def _round_join(draw: ImageDraw.ImageDraw, before: Point, at: Point, after: Point, radius: float) -> None:
    """The arc between two segments' outer edges at their shared point: the wedge on the
    outer side only, as PDF rounds a join. A whole disc there would stand out past a
    dash's butt end where the dash ends within a radius of the join (curves are many
    short segments)."""
    first, second = _normal(before, at, radius), _normal(at, after, radius)
    outer = -1 if first[0] * (after[0] - at[0]) + first[1] * (after[1] - at[1]) > 0 else 1
    start = math.degrees(math.atan2(outer * first[1], outer * first[0]))
    end = math.degrees(math.atan2(outer * second[1], outer * second[0]))
    if (end - start) % 360 > 180:
        start, end = end, start
    box = (at[0] - radius, at[1] - radius, at[0] + radius, at[1] + radius)
    draw.pieslice(box, start, end, fill=255)


def _mitre(draw: ImageDraw.ImageDraw, before: Point, at: Point, after: Point, radius: float) -> bool:
    """The mitre's point on the outer side of a join, as PDF draws it (the wedge a bevel
    fills and the point beyond it); False where the mitre would be longer than
    ``MITRE_LIMIT`` stroke widths, which PDF bevels."""
    first, second = _normal(before, at, radius), _normal(at, after, radius)
    cosine = ((at[0] - before[0]) * (after[0] - at[0]) + (at[1] - before[1]) * (after[1] - at[1])) / (
        (math.dist(before, at) * math.dist(at, after)) or 1.0
    )
    half = math.sqrt(max(0.0, (1 + cosine) / 2))  # the sine of half the angle between the segments
    if half * MITRE_LIMIT < 1:
        return False
    outer = -1 if first[0] * (after[0] - at[0]) + first[1] * (after[1] - at[1]) > 0 else 1
    middle = (first[0] + second[0], first[1] + second[1])
    reach = radius / half / (math.hypot(*middle) or 1.0)
    point = (at[0] + outer * middle[0] * reach, at[1] + outer * middle[1] * reach)
    draw.polygon(
        [
            at,
            (at[0] + outer * first[0], at[1] + outer * first[1]),
            point,
            (at[0] + outer * second[0], at[1] + outer * second[1]),
        ],
        fill=255,
    )
    return True


def _normal(a: Point, b: Point, radius: float) -> Point:
    length = math.dist(a, b) or 1.0
    return -(b[1] - a[1]) / length * radius, (b[0] - a[0]) / length * radius


def _cap(draw: ImageDraw.ImageDraw, end: Point, towards: Point, radius: float, cap: str) -> None:
    if cap == "round":
        draw.ellipse((end[0] - radius, end[1] - radius, end[0] + radius, end[1] + radius), fill=255)
        return
    length = math.dist(end, towards) or 1.0
    dx, dy = (end[0] - towards[0]) / length * radius, (end[1] - towards[1]) / length * radius
    _segment(draw, end, (end[0] + dx, end[1] + dy), radius)
