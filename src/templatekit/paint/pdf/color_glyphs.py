"""Colour glyphs (COLR v0 and v1 emoji) as PDF vector drawings.

HarfBuzz walks a glyph's paint graph and calls back for each step; each step becomes
PDF: transforms are ``cm``, clips are glyph outlines or rectangles with ``W n``, solid
colours fill the clip, linear and radial gradients are axial and radial shadings (with
a luminosity soft mask when their stops are translucent), and groups are transparency
groups composited by blend mode. A ``SRC_IN`` composite shows its source through the
alpha of what was painted before it (an alpha soft mask). Each glyph is one form
XObject, in font units, drawn wherever the glyph is.
"""

from __future__ import annotations

from typing import Any, Protocol

import uharfbuzz as hb

from templatekit.font_file import HbFont
from templatekit.paint.pdf.objects import Document, Name, Ref, number

_EVERYWHERE = "-32768 -32768 65536 65536 re"
_BLEND = {
    hb.PaintCompositeMode.MULTIPLY: "Multiply",
    hb.PaintCompositeMode.SCREEN: "Screen",
    hb.PaintCompositeMode.OVERLAY: "Overlay",
    hb.PaintCompositeMode.DARKEN: "Darken",
    hb.PaintCompositeMode.LIGHTEN: "Lighten",
    hb.PaintCompositeMode.COLOR_DODGE: "ColorDodge",
    hb.PaintCompositeMode.COLOR_BURN: "ColorBurn",
    hb.PaintCompositeMode.HARD_LIGHT: "HardLight",
    hb.PaintCompositeMode.SOFT_LIGHT: "SoftLight",
    hb.PaintCompositeMode.DIFFERENCE: "Difference",
    hb.PaintCompositeMode.EXCLUSION: "Exclusion",
    hb.PaintCompositeMode.HSL_HUE: "Hue",
    hb.PaintCompositeMode.HSL_SATURATION: "Saturation",
    hb.PaintCompositeMode.HSL_COLOR: "Color",
    hb.PaintCompositeMode.HSL_LUMINOSITY: "Luminosity",
}


class OutlinePen:
    """A glyph outline as PDF path operators (quadratic curves made cubic)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.last = (0.0, 0.0)

    def moveTo(self, point: tuple[float, float]) -> None:  # noqa: N802 - the fontTools pen protocol
        self.parts.append(f"{number(point[0])} {number(point[1])} m")
        self.last = point

    def lineTo(self, point: tuple[float, float]) -> None:  # noqa: N802
        self.parts.append(f"{number(point[0])} {number(point[1])} l")
        self.last = point

    def curveTo(self, *points: tuple[float, float]) -> None:  # noqa: N802
        values = " ".join(f"{number(x)} {number(y)}" for x, y in points)
        self.parts.append(f"{values} c")
        self.last = points[-1]

    def qCurveTo(self, *points: tuple[float, float]) -> None:  # noqa: N802
        """A run of quadratic segments, with implied on-curve points between controls."""
        controls, end = list(points[:-1]), points[-1]
        for index, control in enumerate(controls):
            if index + 1 < len(controls):
                following = controls[index + 1]
                target = ((control[0] + following[0]) / 2, (control[1] + following[1]) / 2)
            else:
                target = end
            start = self.last
            first = (start[0] + 2 / 3 * (control[0] - start[0]), start[1] + 2 / 3 * (control[1] - start[1]))
            second = (target[0] + 2 / 3 * (control[0] - target[0]), target[1] + 2 / 3 * (control[1] - target[1]))
            self.curveTo(first, second, target)
        if not controls:
            self.lineTo(end)

    def closePath(self) -> None:  # noqa: N802
        self.parts.append("h")

    def endPath(self) -> None:  # noqa: N802
        pass


class Names(Protocol):
    """The document's shared resources, which name what the glyphs use."""

    def state(self, entries: dict[str, object]) -> str: ...
    def xobject(self, ref: Ref) -> str: ...
    def shading(self, ref: Ref) -> str: ...


class ColorGlyphs:
    """The colour glyphs of one PDF, each written once as a form XObject."""

    def __init__(self, document: Document, names: Names) -> None:
        self.document = document
        self.names = names
        self.forms: dict[tuple[object, int], Ref | None] = {}

    def form(self, font: HbFont, key: object, glyph: int) -> Ref | None:
        """The glyph as a form XObject in font units (y up), or None when the font has
        no colour paint for it."""
        if (key, glyph) not in self.forms:
            self.forms[(key, glyph)] = self._draw(font, glyph)
        return self.forms[(key, glyph)]

    def _draw(self, font: HbFont, glyph: int) -> Ref | None:
        if not painted(font, glyph):
            return None
        painter = _Painter(font, self)
        font.font.paint_glyph(glyph, painter.funcs, None, 0, hb.Color(0, 0, 0, 255))
        (content,) = painter.stack
        return self.group(content.encode("latin-1"))

    def group(self, content: bytes) -> Ref:
        """Content as a transparency group form XObject that holds anything painted."""
        return self.document.add_stream(
            {
                "Type": Name("XObject"),
                "Subtype": Name("Form"),
                "BBox": [-32768, -32768, 32768, 32768],
                "Group": {"S": Name("Transparency"), "CS": Name("DeviceRGB")},
            },
            content,
        )


def painted(font: HbFont, glyph: int) -> bool:
    """Whether a glyph of a colour font is drawn here as vectors, from its COLR paint or
    layers (a bitmap glyph is drawn as an image)."""
    return bool(font.face.glyph_has_color_paint(glyph) or font.face.has_color_layers)


class _Painter:
    """The callbacks for one glyph: a stack of content buffers, one per open group."""

    def __init__(self, font: HbFont, glyphs: ColorGlyphs) -> None:
        self.font = font
        self.glyphs = glyphs
        self.stack = [""]
        # open clips and transformations, innermost last: a clip is [its path, whether
        # written]; a clip is written only once something other than a colour is painted
        # in it (see ``color``); a transformation is None
        self.clips: list[list[Any] | None] = []
        funcs = hb.PaintFuncs()
        for name in (
            "push_transform",
            "pop_transform",
            "push_clip_glyph",
            "push_clip_rectangle",
            "pop_clip",
            "color",
            "linear_gradient",
            "radial_gradient",
            "sweep_gradient",
            "push_group",
            "pop_group",
            "color_glyph",
        ):
            getattr(funcs, f"set_{name}_func")(getattr(self, name))
        self.funcs = funcs

    def out(self, text: str) -> None:
        self._write_clips(len(self.clips))
        self.stack[-1] += text + "\n"

    def _write_clips(self, count: int) -> None:
        """Write the first ``count`` open clips not written yet."""
        for clip in self.clips[:count]:
            if clip is not None and not clip[1]:
                clip[1] = True
                self.stack[-1] += f"q {clip[0]} W n\n"

    def push_transform(self, xx: float, yx: float, xy: float, yy: float, dx: float, dy: float, _: Any) -> None:
        self.out(f"q {' '.join(number(v) for v in (xx, yx, xy, yy, dx, dy))} cm")
        self.clips.append(None)

    def pop_transform(self, _: Any) -> None:
        self.clips.pop()
        self.out("Q")

    def push_clip_glyph(self, glyph: int, _: Any) -> None:
        pen = OutlinePen()
        self.font.font.draw_glyph_with_pen(glyph, pen)
        self.clips.append([" ".join(pen.parts) or "0 0 m", False])

    def push_clip_rectangle(self, x0: float, y0: float, x1: float, y1: float, _: Any) -> None:
        self.clips.append([f"{number(x0)} {number(y0)} {number(x1 - x0)} {number(y1 - y0)} re", False])

    def pop_clip(self, _: Any) -> None:
        clip = self.clips.pop()
        if clip is not None and clip[1]:
            self.out("Q")

    def color(self, color: hb.Color, is_foreground: bool, _: Any) -> None:
        """A colour in a clip not written yet fills the clip's path, not everything the
        clip lets through: Ghostscript neither smooths a clip's edge nor keeps a thin gap
        between two clipped fills (a clip gets every pixel it touches), and drew an
        emoji's fine lines filled in."""
        alpha = self._alpha(color.alpha / 255)
        clip = self.clips[-1] if self.clips else None
        if clip is None or clip[1]:
            self.out(f"q {alpha}{_rgb(color)} rg {_EVERYWHERE} f Q")
            return
        self._write_clips(len(self.clips) - 1)
        self.stack[-1] += f"q {alpha}{_rgb(color)} rg {clip[0]} f Q\n"

    def linear_gradient(
        self, line: hb.ColorLine, x0: float, y0: float, x1: float, y1: float, x2: float, y2: float, _: Any
    ) -> None:  # noqa: E501
        # The colour line runs from p0 to p1 turned to lie across the p0 -> p2 direction.
        dx, dy = x1 - x0, y1 - y0
        px, py = y2 - y0, -(x2 - x0)
        length = px * px + py * py
        scale = (dx * px + dy * py) / length if length else 0.0
        x3, y3 = x0 + px * scale, y0 + py * scale
        stops, start, end = _normalised(line)
        coords = [x0 + (x3 - x0) * start, y0 + (y3 - y0) * start, x0 + (x3 - x0) * end, y0 + (y3 - y0) * end]
        self._shade(2, coords, stops)

    def radial_gradient(
        self, line: hb.ColorLine, x0: float, y0: float, r0: float, x1: float, y1: float, r1: float, _: Any
    ) -> None:  # noqa: E501
        stops, start, end = _normalised(line)

        def at(t: float) -> tuple[float, float, float]:
            return x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, max(0.0, r0 + (r1 - r0) * t)

        self._shade(3, [*at(start), *at(end)], stops)

    def sweep_gradient(self, line: hb.ColorLine, *_: Any) -> None:
        """Drawn in the colour line's middle colour: PDF has no sweep shading."""
        stops = line.color_stops
        self.color(stops[len(stops) // 2].color, False, None)

    def push_group(self, _: Any) -> None:
        self._write_clips(len(self.clips))  # the group is drawn where it is pushed
        self.stack.append("")

    def pop_group(self, mode: hb.PaintCompositeMode, _: Any) -> None:
        names = self.glyphs.names
        name = names.xobject(self.glyphs.group(self.stack.pop().encode("latin-1")))
        if mode == hb.PaintCompositeMode.SRC_IN:
            backdrop = self.glyphs.group(self.stack[-1].encode("latin-1"))
            mask = names.state({"Type": Name("ExtGState"), "SMask": {"S": Name("Alpha"), "G": backdrop}})
            self.stack[-1] = f"q /{mask} gs /{name} Do Q\n"
        elif mode in _BLEND:
            blend = names.state({"Type": Name("ExtGState"), "BM": Name(_BLEND[mode])})
            self.out(f"q /{blend} gs /{name} Do Q")
        else:
            self.out(f"/{name} Do")

    def color_glyph(self, glyph: int, _: Any) -> bool:
        return False  # HarfBuzz expands it into the calls above

    def _alpha(self, alpha: float) -> str:
        if alpha >= 1:
            return ""
        state = self.glyphs.names.state({"Type": Name("ExtGState"), "ca": round(alpha, 4), "CA": round(alpha, 4)})
        return f"/{state} gs "

    def _shade(self, kind: int, coords: list[float], stops: list[tuple[float, hb.Color]]) -> None:
        document, names = self.glyphs.document, self.glyphs.names
        name = names.shading(document.add(_shading(kind, coords, [(t, _channels(c)) for t, c in stops], "DeviceRGB")))
        if all(color.alpha == 255 for _, color in stops):
            self.out(f"/{name} sh")
            return
        alphas = [(t, [color.alpha / 255]) for t, color in stops]
        mask_name = names.shading(document.add(_shading(kind, coords, alphas, "DeviceGray")))
        mask = document.add_stream(
            {
                "Type": Name("XObject"),
                "Subtype": Name("Form"),
                "BBox": [-32768, -32768, 32768, 32768],
                "Group": {"S": Name("Transparency"), "CS": Name("DeviceGray")},
            },
            f"/{mask_name} sh".encode("latin-1"),
        )
        state = names.state({"Type": Name("ExtGState"), "SMask": {"S": Name("Luminosity"), "G": mask}})
        self.out(f"q /{state} gs /{name} sh Q")


def _rgb(color: hb.Color) -> str:
    return " ".join(number(round(c / 255, 4)) for c in _channels_255(color))


def _channels_255(color: hb.Color) -> tuple[int, int, int]:
    return color.red, color.green, color.blue


def _channels(color: hb.Color) -> list[float]:
    return [round(c / 255, 4) for c in _channels_255(color)]


def _normalised(line: hb.ColorLine) -> tuple[list[tuple[float, hb.Color]], float, float]:
    """The stops moved to 0..1, and where 0 and 1 are on the original line."""
    stops = sorted(((stop.offset, stop.color) for stop in line.color_stops), key=lambda s: s[0])
    start, end = stops[0][0], stops[-1][0]
    if end - start < 1e-9:
        return [(0.0, stops[0][1]), (1.0, stops[-1][1])], start, start + 1.0
    return [((t - start) / (end - start), color) for t, color in stops], start, end


def _shading(kind: int, coords: list[float], stops: list[tuple[float, list[float]]], space: str) -> dict[str, object]:
    """An axial (2) or radial (3) shading through the stops, extended at both ends."""
    pieces = [
        {"FunctionType": 2, "Domain": [0, 1], "C0": a, "C1": b, "N": 1}
        for (_, a), (_, b) in zip(stops, stops[1:], strict=False)
    ]
    function: dict[str, object] = (
        pieces[0]
        if len(pieces) == 1
        else {
            "FunctionType": 3,
            "Domain": [0, 1],
            "Functions": pieces,
            "Bounds": [round(t, 5) for t, _ in stops[1:-1]],
            "Encode": [0, 1] * len(pieces),
        }
    )
    return {
        "ShadingType": kind,
        "ColorSpace": Name(space),
        "Coords": [round(v, 3) for v in coords],
        "Function": function,
        "Extend": [True, True],
    }
