"""SVG images: vetted (no scripts, entities or external references), then rasterised
with resvg using the bundled fonts only."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

import resvg_py
from defusedxml import DefusedXmlException, DTDForbidden
from defusedxml.ElementTree import DefusedXMLParser
from PIL import Image as PILImage
from PIL import PngImagePlugin

from templatekit import budget
from templatekit.assets.common import Problem, decode_data_uri, is_svg, megapixels, shown

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
# Text in SVGs is drawn in the bundled sans family, every weight and italic of it, as the
# PDF draws it; handing resvg the whole font folder (24 MB, emoji and CJK included) would
# make every SVG slow to draw.
FONT_FILES = sorted(str(path) for path in FONT_DIR.glob("Inter-*.otf"))
FAMILY = "Inter"
SizeHint = tuple[int, int] | None
#: Deeper nesting or more elements than any drawing needs; resvg walks the tree recursively.
MAX_DEPTH = 256
MAX_ELEMENTS = 200_000
_EMBEDDED_FORMATS = ("PNG", "JPEG", "WEBP", "GIF")


def rasterise(data: bytes, size_hint: SizeHint, max_pixels: int) -> PILImage.Image:
    """The SVG drawn at twice ``size_hint`` (keeping its aspect), or at its natural size."""
    root = _check_svg(data, max_pixels)
    text = _svg_text(data)
    width, height = _raster_size(_svg_size(root), size_hint, max_pixels)
    budget.hold_image((width, height), "the SVG drawn")
    try:
        png = resvg_py.svg_to_bytes(
            svg_string=text,
            width=width,
            height=height,
            dpi=96,  # physical units (in, mm, pt) as CSS defines them
            skip_system_fonts=True,
            font_files=FONT_FILES,
            # Whatever family the SVG names falls back to Inter: resvg's own defaults
            # (Times New Roman, Arial, ...) are not among its fonts, and it would draw no text.
            font_family=FAMILY,
            serif_family=FAMILY,
            sans_serif_family=FAMILY,
            cursive_family=FAMILY,
            fantasy_family=FAMILY,
            monospace_family=FAMILY,
        )
    except (ValueError, RuntimeError) as exc:
        raise Problem(f"the SVG could not be drawn ({exc})") from None
    # resvg gives a PNG: read as one, without Pillow loading every format it knows
    # (a tenth of a new process's first render)
    return PngImagePlugin.PngImageFile(io.BytesIO(bytes(png))).convert("RGBA")


_URL_IN_CSS = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)""", re.IGNORECASE | re.DOTALL)
_IMPORT_IN_CSS = re.compile(r"""@import\s+(?:url\(\s*)?['"]?\s*([^'")\s;]*)""", re.IGNORECASE)


def _local(name: str) -> str:
    return name.rpartition("}")[2]


class _SVGParser(DefusedXMLParser):
    """defusedxml's parser, accepting a DOCTYPE without an internal subset: the standard
    SVG 1.1 DOCTYPE is common, and neither expat nor resvg loads the DTD it names."""

    def __init__(self) -> None:
        super().__init__(forbid_dtd=True, forbid_entities=True, forbid_external=True)

    def defused_start_doctype_decl(
        self, name: str, sysid: str | None, pubid: str | None, has_internal_subset: bool
    ) -> None:
        if has_internal_subset:
            raise DTDForbidden(name, sysid, pubid)


def check_svg(data: bytes, max_pixels: int) -> None:
    """Problem when the SVG is one ``rasterise`` refuses (scripts, event attributes,
    external references, entities, too many elements or pixels): a service checks an
    upload by the same rules before it keeps it."""
    _check_svg(data, max_pixels)


def _check_svg(data: bytes, max_pixels: int) -> Element:
    """The parsed SVG, refused if it could run code or reach outside itself: no entities,
    no internal DTD, no ``<script>``, no event attributes, and no reference (href, CSS
    ``url()`` or ``@import``) to anything but the document itself or a data URI. Images
    in data URIs are held to the pixel limit and the render's memory budget, as images
    of layers are, since resvg decodes them itself."""
    parser = _SVGParser()
    try:
        parser.feed(data)
        root = parser.close()
    except DTDForbidden:
        raise Problem("SVGs with an internal DTD are not allowed") from None
    except DefusedXmlException as exc:
        raise Problem(f"the SVG declares entities or external references ({exc})") from None
    except ParseError as exc:
        raise Problem(f"the SVG is not well-formed XML ({exc})") from None
    if _local(root.tag) != "svg":
        raise Problem(f"the document is <{_local(root.tag)}>, not <svg>")
    for element in _elements(root):
        _check_element(element, max_pixels)
    return root


def _elements(root: Element) -> list[Element]:
    """Every element, walked without recursion, refused past ``MAX_DEPTH`` levels or
    ``MAX_ELEMENTS`` elements."""
    found: list[Element] = []
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Problem(f"the SVG nests elements more than {MAX_DEPTH} deep")
        found.append(element)
        if len(found) > MAX_ELEMENTS:
            raise Problem(f"the SVG has more than {MAX_ELEMENTS:,} elements")
        stack.extend((child, depth + 1) for child in reversed(element))
    return found


def _check_element(element: Element, max_pixels: int) -> None:
    name = _local(element.tag)
    if name.lower() == "script":
        raise Problem("the SVG has a <script> element")
    for attribute, value in element.attrib.items():
        local = _local(attribute)
        if local.lower().startswith("on"):
            raise Problem(f"the SVG has an event attribute ({local})")
        if local == "href":
            _check_reference(value, max_pixels)
        _check_css(value, max_pixels)
    if name == "style":
        _check_css(element.text or "", max_pixels)


def _check_reference(target: str, max_pixels: int) -> None:
    value = target.strip()
    if value.startswith("#"):
        return
    if value[:5].lower() != "data:":
        raise Problem(f"the SVG refers to an external resource ({shown(value)[:80]})")
    data = decode_data_uri(value)
    if is_svg(data):
        _check_svg(data, max_pixels)
    else:
        _check_embedded_image(data, max_pixels)


def _check_embedded_image(data: bytes, max_pixels: int) -> None:
    """An image inside the SVG, judged from its header as the loader judges images."""
    try:
        width, height = PILImage.open(io.BytesIO(data), formats=_EMBEDDED_FORMATS).size
    except PILImage.DecompressionBombError:
        raise Problem("the SVG embeds an image with too many pixels") from None
    except (OSError, ValueError, SyntaxError, EOFError):
        raise Problem("the SVG embeds data that is not a PNG, JPEG, WebP or GIF image") from None
    if width * height > max_pixels:
        limit = megapixels(max_pixels)
        raise Problem(f"the SVG embeds a {width}x{height} px image, more than the {limit} limit")
    budget.current().hold(
        budget.image_bytes("RGBA", (width, height)), f"an image inside the SVG ({width:,}x{height:,} px)"
    )


def _check_css(text: str, max_pixels: int) -> None:
    for match in _URL_IN_CSS.finditer(text):
        target = match.group(2).strip()
        if not target.startswith("#"):
            _check_reference(target, max_pixels)
    for match in _IMPORT_IN_CSS.finditer(text):
        if match.group(1)[:5].lower() != "data:":
            raise Problem(f"the SVG imports a style sheet ({shown(match.group(1))[:80]})")


def _svg_text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Problem("the SVG is not UTF-8 text") from None


_LENGTH = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(px|pt|pc|mm|cm|in)?\s*")
_PX_PER_UNIT = {None: 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}


def _svg_length(value: str | None) -> float | None:
    match = _LENGTH.fullmatch(value or "")
    if match is None:
        return None
    length = float(match.group(1)) * _PX_PER_UNIT[match.group(2)]
    return length if 0 < length < math.inf else None


def _svg_size(root: Element) -> tuple[float, float]:
    """The natural size of an SVG in px, as resvg reads it: width and height, completed
    from the viewBox's aspect ratio, or 100 x 100."""
    width, height = _svg_length(root.get("width")), _svg_length(root.get("height"))
    view = _view_box_size(root.get("viewBox"))
    if view is not None:
        view_width, view_height = view
        if width is not None and height is None:
            height = width * view_height / view_width
        elif height is not None and width is None:
            width = height * view_width / view_height
        elif width is None and height is None:
            width, height = view_width, view_height
    return (width or 100.0, height or 100.0)


def _view_box_size(value: str | None) -> tuple[float, float] | None:
    try:
        numbers = [float(v) for v in re.split(r"[\s,]+", (value or "").strip()) if v]
    except ValueError:
        return None
    if len(numbers) != 4 or not all(0 < n < math.inf for n in numbers[2:]):
        return None
    return numbers[2], numbers[3]


def _raster_size(natural: tuple[float, float], size_hint: SizeHint, max_pixels: int) -> tuple[int, int]:
    """The size to draw an SVG at: twice the box it fills, covering it whatever the fit,
    bounded by the pixel limit and, for extreme aspect ratios, by 4x that doubled box."""
    width, height = natural
    if size_hint is None:
        if width * height > max_pixels:
            limit = megapixels(max_pixels)
            raise Problem(f"the SVG is {width:g}x{height:g} px, more than the {limit} limit")
        scale, budget = 1.0, max_pixels
    else:
        box_width, box_height = 2 * max(1, size_hint[0]), 2 * max(1, size_hint[1])
        scale = max(box_width / width, box_height / height)
        budget = min(max_pixels, 4 * box_width * box_height)
        scale = min(scale, math.sqrt(budget / (width * height)))
    # A side under 1 px is drawn 1 px wide; capping the other keeps the area within budget.
    return min(max(1, round(width * scale)), budget), min(max(1, round(height * scale)), budget)
