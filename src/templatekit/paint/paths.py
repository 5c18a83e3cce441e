"""Paths as pixels: a Scene path written as an SVG path and drawn by resvg, which knows
the fill rules, curves, joins and caps and anti-aliases them."""

from __future__ import annotations

import io

import resvg_py
from PIL import Image as PILImage

from templatekit.layout.scene import Path
from templatekit.model.values import Color, Gradient
from templatekit.paint.gradient import gradient_line


def draw_path(path: Path, origin: tuple[float, float], size: tuple[int, int], scale: float) -> PILImage.Image:
    """The path on a transparent RGBA image of ``size`` pixels whose top-left corner is
    scene point ``origin``, at ``scale`` pixels per px."""
    width, height = size
    view = f"{origin[0]:.4f} {origin[1]:.4f} {width / scale:.4f} {height / scale:.4f}"
    defs, fill = "", "none"
    if isinstance(path.fill, Color):
        fill = _color(path.fill, "fill")
    elif isinstance(path.fill, Gradient):
        defs, fill = _gradient(path.fill, path.bounds()), 'fill="url(#g)"'
    else:
        fill = 'fill="none"'
    stroke = ""
    if path.stroke is not None and path.stroke_width > 0:
        stroke = (
            f'{_color(path.stroke, "stroke")} stroke-width="{path.stroke_width:.4f}"'
            f' stroke-linecap="{path.line_cap}" stroke-linejoin="{path.line_join}"'
        )
    rule = "evenodd" if path.even_odd else "nonzero"
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="{view}">{defs}'
        f'<path d="{_data(path)}" {fill} fill-rule="{rule}" {stroke}/></svg>'
    )
    png = resvg_py.svg_to_bytes(svg_string=svg, width=width, height=height, skip_system_fonts=True)
    with PILImage.open(io.BytesIO(bytes(png))) as image:
        return image.convert("RGBA")


def _data(path: Path) -> str:
    return " ".join(command[0] + " ".join(f"{v:.4f}" for v in command[1:]) for command in path.commands)


def _color(color: Color, what: str) -> str:
    return f'{what}="rgb({color.r},{color.g},{color.b})" {what}-opacity="{color.a / 255:.4f}"'


def _gradient(gradient: Gradient, bounds: tuple[float, float, float, float]) -> str:
    """The CSS gradient line over the path's box, as both painters draw it."""
    x0, y0, x1, y1 = bounds
    (ax, ay), (bx, by) = gradient_line(gradient, (x0, y0, x1 - x0, y1 - y0))
    start, end = gradient.from_, gradient.to
    return (
        f'<defs><linearGradient id="g" gradientUnits="userSpaceOnUse" x1="{ax:.4f}" '
        f'y1="{ay:.4f}" x2="{bx:.4f}" y2="{by:.4f}">'
        f'<stop offset="0" stop-color="rgb({start.r},{start.g},{start.b})" stop-opacity="{start.a / 255:.4f}"/>'
        f'<stop offset="1" stop-color="rgb({end.r},{end.g},{end.b})" stop-opacity="{end.a / 255:.4f}"/>'
        "</linearGradient></defs>"
    )
