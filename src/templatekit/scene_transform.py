"""Scene items moved and scaled: what a layer looks like when a video moves or zooms it,
for outputs that draw the Scene itself (PDF, the debug view, ``prepare``).

A point p becomes ``centre + (p - centre) * scale + (dx, dy)``; lengths (sizes, stroke
widths, radii, glyph sizes) are multiplied by ``scale``.
"""

from __future__ import annotations

from attrs import evolve, frozen

from templatekit.scene import (
    Bars,
    Clip,
    Effects,
    Ellipse,
    GlyphRun,
    Group,
    Image,
    Item,
    Line,
    Path,
    Point,
    Polygon,
    Rect,
)


@frozen
class Move:
    dx: float = 0.0
    dy: float = 0.0
    scale: float = 1.0
    centre: Point = (0.0, 0.0)

    def point(self, p: Point) -> Point:
        cx, cy = self.centre
        return (cx + (p[0] - cx) * self.scale + self.dx, cy + (p[1] - cy) * self.scale + self.dy)


def moved(item: Item, move: Move) -> Item:
    """``item`` as ``move`` places it."""
    k = move.scale
    if isinstance(item, Rect):
        x, y = move.point((item.x, item.y))
        width, height, stroke = item.width * k, item.height * k, item.stroke_width * k
        return evolve(item, x=x, y=y, width=width, height=height, stroke_width=stroke, radius=item.radius * k)
    if isinstance(item, Ellipse):
        x, y = move.point((item.x, item.y))
        return evolve(item, x=x, y=y, width=item.width * k, height=item.height * k, stroke_width=item.stroke_width * k)
    if isinstance(item, Image):
        x, y = move.point((item.x, item.y))
        vector = None if item.vector is None else moved_group(item.vector, move)
        return evolve(item, x=x, y=y, width=item.width * k, height=item.height * k, vector=vector)
    if isinstance(item, Line):
        return evolve(item, start=move.point(item.start), end=move.point(item.end), width=item.width * k)
    if isinstance(item, Polygon):
        return evolve(item, contours=tuple(tuple(move.point(p) for p in contour) for contour in item.contours))
    if isinstance(item, Path):
        return evolve(
            item, commands=tuple(_command(c, move) for c in item.commands), stroke_width=item.stroke_width * k
        )
    if isinstance(item, Bars):
        rects = []
        for x, y, width, height in item.rects:
            left, top = move.point((x, y))
            rects.append((left, top, width * k, height * k))
        return evolve(item, rects=tuple(rects))
    if isinstance(item, GlyphRun):
        x, y = move.point((item.x, item.y))
        positions = tuple((px * k, py * k) for px, py in item.positions)
        return evolve(
            item, x=x, y=y, size=item.size * k, positions=positions, width=item.width * k,
            letter_spacing=item.letter_spacing * k,
        )  # fmt: skip
    return moved_group(item, move)


def moved_group(group: Group, move: Move) -> Group:
    clip = None if group.clip is None else _clip(group.clip, move)
    items = tuple(moved(inner, move) for inner in group.items)
    mask = None if group.mask is None else evolve(group.mask, items=tuple(moved(i, move) for i in group.mask.items))
    effects = None if group.effects is None else _effects(group.effects, move.scale)
    return evolve(group, items=items, origin=move.point(group.origin), clip=clip, mask=mask, effects=effects)


def _effects(effects: Effects, k: float) -> Effects:
    shadows = tuple(evolve(s, x=s.x * k, y=s.y * k, blur=s.blur * k, spread=s.spread * k) for s in effects.shadows)
    return evolve(effects, shadows=shadows, blur=effects.blur * k)


def _command(command: tuple[object, ...], move: Move) -> tuple[object, ...]:
    op, values = command[0], command[1:]
    points = [move.point((float(values[i]), float(values[i + 1]))) for i in range(0, len(values), 2)]  # type: ignore[arg-type]
    return (op, *(v for p in points for v in p))


def _clip(clip: Clip, move: Move) -> Clip:
    x, y = move.point((clip.x, clip.y))
    return evolve(
        clip, x=x, y=y, width=clip.width * move.scale, height=clip.height * move.scale, radius=clip.radius * move.scale
    )
