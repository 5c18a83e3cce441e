"""Frames against CSS flexbox in Chromium: each layout written as its CSS equivalent with
the bundled Inter, and every layer's box compared with the element's (within 2 px).

The equivalence (as docs/template-format.md gives it): a frame is ``display: flex`` (a
``none`` frame: its layers positioned absolutely from its corner) with its gap, padding,
align-items and justify-content; a number is ``flex: none`` at that size, ``"hug"`` is
the auto size (with CSS's automatic minimum: no smaller than its content allows),
``"fill"`` is ``flex: 1 1 0`` along the layout (with CSS's automatic minimum too) and
``align-self: stretch`` across it; an image is an ``<img>``."""

from __future__ import annotations

import base64
import html
import io
from typing import Any

import pytest

from templatekit.model.layers import walk_layers
from templatekit.options import RenderOptions
from templatekit.pipeline import resolve
from tests.conftest import template
from tests.templatekit.paint.test_effects_chromium import font_faces

pytestmark = pytest.mark.slow
SIZE = (900, 600)
ALIGN = {"start": "flex-start", "center": "center", "end": "flex-end", "stretch": "stretch"}
JUSTIFY = {"start": "flex-start", "center": "center", "end": "flex-end", "space-between": "space-between"}


def css_of(layer: dict[str, Any], parent: str | None) -> str:
    """The element of ``layer`` in a frame of layout ``parent`` (None: the canvas)."""
    style: list[str] = ["box-sizing:border-box", "margin:0"]
    if parent in (None, "none"):
        style += ["position:absolute", f"left:{layer.get('x', 0)}px", f"top:{layer.get('y', 0)}px"]
    if not layer.get("visible", True):
        style.append("display:none")
    along = {"row": "width", "column": "height"}.get(parent or "")
    flex_set = False
    for side in ("width", "height"):
        size = layer.get(side, "hug")
        if isinstance(size, (int, float)):
            style.append(f"{side}:{size}px")
            if side == along:
                style.append("flex:none")
                flex_set = True
        elif size == "fill" and side == along:
            style.append("flex:1 1 0")
            flex_set = True
        elif size == "fill":
            style.append("align-self:stretch")
        elif size == "hug" and parent in (None, "none") and side == "width":
            style.append("width:max-content")
    if parent in ("row", "column") and not flex_set:
        style.append("flex:0 1 auto")
    pad = layer.get("padding", 0)
    pads = pad if isinstance(pad, list) else [pad]
    style.append("padding:" + " ".join(f"{p}px" for p in pads))
    inner = ""
    if layer["type"] == "frame":
        layout = layer.get("layout", "none")
        if layout == "none":
            style.append("position:absolute" if parent in (None, "none") else "position:relative")
        else:
            style += [
                "display:flex" if layer.get("visible", True) else "",
                f"flex-direction:{layout}",
                f"gap:{layer.get('gap', 0)}px",
                f"align-items:{ALIGN[layer.get('align', 'start')]}",
                f"justify-content:{JUSTIFY[layer.get('justify', 'start')]}",
                f"flex-wrap:{'wrap' if layer.get('wrap') else 'nowrap'}",
                "align-content:flex-start",
            ]
        inner = "".join(css_of(child, layout) for child in layer.get("layers", []))
    elif layer["type"] == "text":
        style += [
            "font-family:Inter",
            f"font-size:{layer.get('size', 32)}px",
            f"font-weight:{layer.get('weight', 400)}",
            f"line-height:{layer.get('lineHeight', 1.2)}",
            "white-space:pre-wrap",
            "overflow-wrap:break-word",
        ]
        inner = html.escape(layer["text"])
    if "fill" in layer and isinstance(layer["fill"], str):
        style.append(f"background:{layer['fill']}")
    styled = f'data-name="{layer["name"]}" style="{";".join(s for s in style if s)}"'
    if layer["type"] == "image":
        return f'<img {styled} src="{layer["src"]}">'
    return f"<div {styled}>{inner}</div>"


def chromium_boxes(page: Any, layers: list[dict[str, Any]]) -> dict[str, tuple[float, float, float, float]]:
    page.set_viewport_size({"width": SIZE[0], "height": SIZE[1]})
    body = "".join(css_of(layer, None) for layer in layers)
    head = f"<style>{font_faces()} html,body{{margin:0}}</style>"
    page.set_content(f"<!doctype html><html><head>{head}</head><body>{body}</body></html>")
    page.evaluate("document.fonts.ready")
    found = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('[data-name]')]
             .filter(e => e.getClientRects().length)
             .map(e => { const r = e.getBoundingClientRect();
                         return [e.dataset.name, [r.x, r.y, r.width, r.height]]; }))"""
    )
    return {name: tuple(box) for name, box in found.items()}


def our_boxes(layers: list[dict[str, Any]]) -> dict[str, tuple[float, float, float, float]]:
    arranged, _, _ = resolve(template(*layers, width=SIZE[0], height=SIZE[1]), None, RenderOptions())
    return {
        layer.name: (layer.x, layer.y, layer.width, layer.height)
        for layer in walk_layers(arranged.layers)
        if layer.visible
    }


def text(name: str, value: str, width: Any = "fill", **fields: Any) -> dict[str, Any]:
    return {"type": "text", "name": name, "width": width, "height": "hug", "text": value, **fields}


def box(name: str, width: Any = 60, height: Any = 40, **fields: Any) -> dict[str, Any]:
    return {"type": "shape", "name": name, "width": width, "height": height, "fill": "#94a3b8", **fields}


def picture(name: str, width: Any = "hug", height: Any = "hug") -> dict[str, Any]:
    """An image of 120×80 px (a data URI, so that both sides read the same file)."""
    return {"type": "image", "name": name, "width": width, "height": height, "src": PICTURE, "fit": "fill"}


def _picture() -> str:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (120, 80), "#3b82f6").save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


PICTURE = _picture()

LAYOUTS = {
    "card": [
        {"type": "frame", "name": "card", "x": 30, "y": 20, "width": 520, "height": "hug", "layout": "column",
         "gap": 14, "padding": 24, "fill": "#ffffff", "layers": [
            text("title", "A title long enough to take two lines in this card", size=36, weight=700),
            text("subtitle", "A subtitle that follows it", size=20),
            {"type": "frame", "name": "tags", "width": "hug", "height": "hug", "layout": "row", "gap": 8, "layers": [
                text("tag1", "NEW", "hug", size=14, padding=[6, 10]),
                text("tag2", "Limited edition", "hug", size=14, padding=[6, 10]),
            ]},
        ]},
    ],
    "space-between": [
        {"type": "frame", "name": "bar", "x": 10, "y": 10, "width": 700, "height": "hug", "layout": "row",
         "justify": "space-between", "align": "center", "padding": [8, 16], "layers": [
            box("logo", 48, 48), text("label", "Quarterly report", "hug", size=22), box("avatar", 40, 40),
        ]},
    ],
    "fill-and-gap": [
        {"type": "frame", "name": "row", "x": 20, "y": 40, "width": 600, "height": 80, "layout": "row", "gap": 12,
         "padding": 10, "align": "stretch",
         "layers": [box("fixed", 120, "fill"), box("one", "fill", 30), box("two", "fill", 50)]},
    ],
    "centre-and-hidden": [
        {"type": "frame", "name": "column", "x": 40, "y": 30, "width": 400, "height": "hug", "layout": "column",
         "align": "center", "gap": 10, "layers": [
            box("first", 200), {**box("gone", 300), "visible": False}, text("words", "Centred words", "hug", size=18),
        ]},
    ],
    # too little room: a layer that hugs shrinks no further than its content (CSS's
    # automatic minimum size): texts wrap down to their widest word, frames hold theirs
    "squeezed-row": [
        {"type": "frame", "name": "row", "x": 10, "y": 10, "width": 300, "height": "hug", "layout": "row",
         "layers": [
            {"type": "frame", "name": "tags", "width": "hug", "height": "hug", "layout": "row", "gap": 4,
             "layers": [box("tag1", 80, 30), box("tag2", 80, 30)]},
            box("wide", 200, 30),
        ]},
        {"type": "frame", "name": "words", "x": 10, "y": 100, "width": 260, "height": "hug", "layout": "row",
         "gap": 6, "layers": [
            text("a", "alpha beta gamma", "hug", size=16), text("b", "delta epsilon zeta eta", "hug", size=16),
            text("c", "theta", "hug", size=16),
        ]},
        {"type": "frame", "name": "beside", "x": 10, "y": 200, "width": 300, "height": "hug", "layout": "row",
         "layers": [box("block", 250, 30), text("two", "Two words", "hug", size=20)]},
    ],
    "squeezed-column": [
        {"type": "frame", "name": "column", "x": 10, "y": 10, "width": "hug", "height": 100, "layout": "column",
         "layers": [text("lines", "Line one\nLine two\nLine three", "hug", size=20), box("under", 30, 60)]},
        {"type": "frame", "name": "stacks", "x": 300, "y": 10, "width": "hug", "height": 150, "layout": "column",
         "layers": [
            {"type": "frame", "name": "stack", "width": "hug", "height": "hug", "layout": "column",
             "layers": [box("s1", 30, 60), box("s2", 30, 60)]},
            box("after", 30, 100),
        ]},
    ],
    "wrap": [
        {"type": "frame", "name": "chips", "x": 10, "y": 10, "width": 420, "height": "hug", "layout": "row",
         "wrap": True, "gap": 10, "padding": 5, "layers": [box(f"chip{n}", 95 + 10 * n, 30) for n in range(6)]},
    ],
    # badges (a dot and words) that hug, in a row too narrow for them: each wraps its
    # words, down to its own minimum at most, and the row holds them all
    "squeezed-badges": [
        {"type": "frame", "name": "badges", "x": 10, "y": 10, "width": 380, "height": "hug", "layout": "row",
         "gap": 8, "padding": 8, "layers": [
            {"type": "frame", "name": f"badge{n}", "width": "hug", "height": "hug", "layout": "row", "gap": 6,
             "padding": [6, 10, 6, 10], "align": "center",
             "layers": [box(f"dot{n}", 10, 10), text(f"words{n}", words, "hug", size=16)]}
            for n, words in enumerate(("Online now", "Verified seller", "Free shipping over fifty dollars"))
        ]},
    ],
    # a layer that fills a row shrinks no further than its content either: its widest
    # word, not one letter a line beside a long hugging text; fills that fit share alike
    "fill-with-a-minimum": [
        {"type": "frame", "name": "line", "x": 10, "y": 10, "width": 400, "height": "hug", "layout": "row",
         "gap": 10, "layers": [
            text("label", "Total amount", size=20),
            text("words", "A description long enough to wrap over several lines beside the label, "
                 "as a price line's fine print does", "hug", size=20),
        ]},
        {"type": "frame", "name": "shares", "x": 10, "y": 250, "width": 700, "height": "hug", "layout": "row",
         "gap": 12, "layers": [box("b", "fill", 40), text("c", "fill text", size=20), box("d", "fill", 60)]},
    ],
    # texts that hug share a row too narrow for them as CSS shares it: each starts at its
    # one line and gives up room in proportion to it (a long text more than a short one)
    "hugs-share-a-row": [
        {"type": "frame", "name": "pair", "x": 10, "y": 10, "width": 500, "height": "hug", "layout": "row",
         "gap": 10, "layers": [
            text("long", "Auto layout places children one after another, as CSS flexbox does, and a long "
                 "paragraph must wrap inside the width it is given without overflowing.", "hug", size=20),
            text("medium", "A medium text that has a handful of words in it", "hug", size=20),
        ]},
    ],
    # an image that hugs: its own size, or the other side's in its proportions, that
    # side filling or stretched across the layout
    "pictures": [
        {"type": "frame", "name": "row", "x": 10, "y": 10, "width": 400, "height": "hug", "layout": "row",
         "layers": [picture("tall", "hug", "fill"), box("beside", 20, 150)]},
        {"type": "frame", "name": "stretched", "x": 450, "y": 10, "width": 300, "height": "hug",
         "layout": "column", "align": "stretch", "padding": 10, "layers": [picture("wide"), picture("own", 60)]},
        # a column that hugs: as wide as its widest layer, then the picture as high as that
        {"type": "frame", "name": "hugging", "x": 10, "y": 250, "width": "hug", "height": "hug",
         "layout": "column", "gap": 10, "padding": 10, "layers": [picture("filling", "fill"), box("bar", 200, 20)]},
        {"type": "frame", "name": "hugging-stretch", "x": 300, "y": 250, "width": "hug", "height": "hug",
         "layout": "column", "align": "stretch", "layers": [picture("spread"), box("bar2", 180, 20)]},
    ],
    # a side that fills, in a frame that hugs that side: the frame takes it from the
    # layer's content (its widest word, its line, the picture in its proportions)
    "fills-in-hugging-frames": [
        {"type": "frame", "name": "row", "x": 10, "y": 10, "width": "hug", "height": "hug", "layout": "row",
         "layers": [text("ok", "OK", "fill", size=20, height=30)]},
        {"type": "frame", "name": "across", "x": 10, "y": 80, "width": 200, "height": "hug", "layout": "row",
         "layers": [text("tall", "OK", 50, size=20, height="fill")]},
        {"type": "frame", "name": "column", "x": 300, "y": 10, "width": "hug", "height": "hug", "layout": "column",
         "layers": [picture("high", 50, "fill")]},
        {"type": "frame", "name": "pictured", "x": 300, "y": 150, "width": "hug", "height": "hug", "layout": "row",
         "layers": [picture("wide", "fill", 40)]},
    ],
    # a frame placed by x and y in a "none" frame is not limited by it: it grows to its
    # content (its text on one line, its words whole) as a top-level frame does
    "placed-frames-grow": [
        {"type": "frame", "name": "wide", "x": 10, "y": 10, "width": 500, "height": 100, "layout": "none",
         "layers": [{"type": "frame", "name": "row", "x": 0, "y": 0, "width": "hug", "height": "hug",
                     "layout": "row", "layers": [text("big", "big New", "fill", size=28)]}]},
        {"type": "frame", "name": "narrow", "x": 10, "y": 150, "width": 52, "height": 100, "layout": "none",
         "layers": [{"type": "frame", "name": "column", "x": 5, "y": 5, "width": "hug", "height": "hug",
                     "layout": "column", "layers": [text("words", "a cat wonderful", "hug", size=12)]}]},
    ],
    # a text that hugs across a column narrower than its longest word keeps the word
    # whole and overflows (CSS's fit-content), where a text whose width is set breaks it
    "long-word-across-a-column": [
        {"type": "frame", "name": "column", "x": 10, "y": 10, "width": 60, "height": "hug", "layout": "column",
         "gap": 4, "layers": [text("hugging", "internationalization", "hug", size=20),
                              text("filling", "internationalization", "fill", size=20)]},
    ],
    # a layer that fills a row that wraps goes to a new line when its minimum does not
    # fit, and there takes the whole line
    "fill-in-a-wrapping-row": [
        {"type": "frame", "name": "chips", "x": 10, "y": 10, "width": 300, "height": "hug", "layout": "row",
         "wrap": True, "layers": [
            {"type": "frame", "name": "grows", "width": "fill", "height": 30, "layout": "row",
             "layers": [box("inside", 100, 30)]},
            box("wide", 250, 30),
        ]},
    ],
    # a row that hugs is as wide as its layers' own widths; then its fills share that
    # width (each no narrower than its content allows)
    "fills-share-a-hugging-row": [
        {"type": "frame", "name": "row", "x": 10, "y": 10, "width": "hug", "height": "hug", "layout": "row",
         "layers": [text("words", "fox blue extraordinary", "fill", size=12), box("bar", "fill", 20)]},
        {"type": "frame", "name": "even", "x": 10, "y": 80, "width": "hug", "height": "hug", "layout": "row",
         "gap": 6, "layers": [text("left", "a few words", "fill", size=16), text("right", "more", "fill", size=16),
                              box("fixed", 40, 20)]},
    ],
    "nested-fills-in-a-hugging-row": [
        {"type": "frame", "name": "outer", "x": 10, "y": 10, "width": "hug", "height": "hug", "layout": "row",
         "layers": [{"type": "frame", "name": "inner", "width": "fill", "height": "fill", "layout": "row",
                     "layers": [text("long", "internationalization", "fill", size=16), picture("photo", "hug", "fill"),
                                {"type": "frame", "name": "side", "width": "fill", "height": "hug",
                                 "layout": "column", "layers": [box("tall", 120, 300)]}]}]},
    ],
    # an image that fills a row is no narrower than its height gives in its proportions
    "pictures-that-fill-a-row": [
        {"type": "frame", "name": "narrow", "x": 10, "y": 10, "width": 30, "height": "hug", "layout": "row",
         "layers": [picture("squeezed", "fill", 40)]},
        {"type": "frame", "name": "shared", "x": 10, "y": 100, "width": 349, "height": 92, "layout": "row",
         "layers": [picture("beside", "fill", 50), text("caption", "Supercalifragilistic New", "hug", size=28)]},
    ],
    # an image stretched across a column that hugs, filling its height, is as high as the
    # width it gets in its proportions: the column has no other room to give it
    "stretched-picture-fills-a-hugging-column": [
        {"type": "frame", "name": "column", "x": 10, "y": 10, "width": "hug", "height": "hug", "layout": "column",
         "align": "stretch", "layers": [picture("photo", "hug", "fill"), box("bar", 216, 20)]},
    ],
    # a layer that fills a column's height is no lower than its content (its lines, its
    # layers), as CSS's automatic minimum keeps a flex: 1 item of a column
    "fills-with-a-minimum-height": [
        {"type": "frame", "name": "low", "x": 10, "y": 10, "width": 200, "height": 10, "layout": "column",
         "layers": [text("words", "OK", "hug", size=20, height="fill")]},
        {"type": "frame", "name": "short", "x": 300, "y": 10, "width": 100, "height": 50, "layout": "column",
         "layers": [{"type": "frame", "name": "inner", "width": 60, "height": "fill", "layout": "column",
                     "layers": [box("tall", 40, 70)]}, box("under", 40, 10)]},
    ],
    # an icon that fills a row of a set height, across and down, is as wide as that height
    # gives in its proportions, in a row that hugs it too (not its file's own width)
    "icon-fills-a-row-of-set-height": [
        {"type": "frame", "name": "chip", "x": 10, "y": 10, "width": "hug", "height": 40, "layout": "row",
         "layers": [picture("icon", "fill", "fill"), text("label", "Label", "hug", size=16)]},
        {"type": "frame", "name": "pair", "x": 10, "y": 100, "width": "hug", "height": 20, "layout": "row",
         "justify": "space-between", "layers": [picture("left", "fill", "fill"), picture("right", "fill", "fill")]},
    ],
    # a row that fills a column that hugs is as wide as the column, and its fills share
    # that width as in any row (they kept their own widths, one pushed past the other)
    "fills-share-a-row-across-a-hugging-column": [
        {"type": "frame", "name": "card", "x": 10, "y": 10, "width": "hug", "height": "hug", "layout": "column",
         "gap": 8, "layers": [
            text("heading", "A heading wider than the row", "hug", size=24),
            {"type": "frame", "name": "footer", "width": "fill", "height": "hug", "layout": "row", "gap": 8,
             "layers": [text("left", "Quarterly report", size=16), text("right", "OK", size=16)]}]},
    ],
    # layers that fill a wrapping row share each line as in a row that does not wrap: a
    # share under a layer's minimum is held there and the others share the rest (Yoga
    # gave the held one its minimum and a share on top)
    "fills-share-a-wrapped-line": [
        {"type": "frame", "name": "tags", "x": 10, "y": 10, "width": 90, "height": "hug", "layout": "row",
         "wrap": True, "gap": 5, "padding": 8,
         "layers": [text("words", "gamma theta lambda iota epsilon", size=12), box("bar", "fill", 20)]},
        {"type": "frame", "name": "line", "x": 200, "y": 10, "width": 200, "height": 120, "layout": "row",
         "wrap": True, "gap": 5, "padding": 4,
         "layers": [text("long", "epsilon mu kappa", size=24), box("fixed", 90, 40), box("next", 20, 30)]},
    ],
    # a layer that fills a line narrower than its padding overflows it, and a row that
    # justifies to its end overflows it at the start (it started its padding too far right)
    "padded-fill-overflows-its-line": [
        {"type": "frame", "name": "narrow", "x": 100, "y": 10, "width": 20, "height": 150, "layout": "row",
         "wrap": True, "justify": "end", "align": "center", "padding": 8, "layers": [
            {"type": "frame", "name": "padded", "width": "fill", "height": 40, "layout": "column", "padding": 8,
             "layers": [box("inside", "fill", "fill")]},
            picture("photo")]},
    ],
    # an image whose height fills a column and whose width follows it is no lower than its
    # own height (it was squeezed to nothing, its width with it)
    "picture-fills-a-full-column": [
        {"type": "frame", "name": "column", "x": 10, "y": 200, "width": 130, "height": 90, "layout": "column",
         "justify": "center", "layers": [text("above", "beta mu", 90, size=24), picture("photo", "hug", "fill"),
                                         box("below", 50, 50)]},
    ],
    # a frame that hugs across a column narrower than its content is its content's width
    # (CSS's fit-content), not the column's with its layers overflowing its box
    "hugging-row-wider-than-its-column": [
        {"type": "frame", "name": "column", "x": 10, "y": 10, "width": 130, "height": "hug", "layout": "column",
         "padding": 4, "layers": [
            {"type": "frame", "name": "row", "width": "hug", "height": 90, "layout": "row", "padding": 4,
             "align": "end", "justify": "space-between", "fill": "#e2e8f0", "layers": [
                box("spacer", "fill", "fill"), text("a", "alpha epsilon eta", "hug", size=12),
                text("b", "delta lambda mu gamma", size=24), text("c", "iota", "hug", size=12)]}]},
    ],
    # a text that hugs and wraps takes the room it was given, as CSS's fit-content does:
    # centred, its box starts at the column's edge, and a frame that hugs around it in a
    # row too narrow for it is the room's width (they hugged the wrapped lines)
    "wrapped-text-takes-the-room": [
        {"type": "frame", "name": "column", "x": 10, "y": 10, "width": 150, "height": "hug", "layout": "column",
         "padding": 5, "align": "center", "layers": [
            text("words", "alpha beta gamma delta epsilon zeta", "hug", size=16), box("below", 40, 20)]},
        {"type": "frame", "name": "row", "x": 200, "y": 10, "width": 130, "height": "hug", "layout": "row",
         "padding": 4, "layers": [
            {"type": "frame", "name": "card", "width": "hug", "height": 100, "layout": "column", "padding": 4,
             "align": "center", "layers": [text("title", "beta alpha theta gamma epsilon gamma", "hug", size=24)]}]},
    ],
    # a row that fills a column that hugs is the column's width once the column is held at
    # its minimum in a row too narrow for it (the row kept the width it had before)
    "filling-row-in-a-column-held-at-its-minimum": [
        {"type": "frame", "name": "outer", "x": 10, "y": 10, "width": 130, "height": "hug", "layout": "row",
         "padding": 4, "layers": [
            {"type": "frame", "name": "column", "width": "hug", "height": 60, "layout": "column", "padding": 4,
             "gap": 5, "align": "center", "layers": [
                box("wide", 180, 30),
                {"type": "frame", "name": "row", "width": "fill", "height": "fill", "layout": "row", "padding": 8,
                 "gap": 10, "layers": [text("words", "zeta iota iota", size=16), picture("photo")]}]}]},
    ],
    # a frame that hugs across a column narrower than its content lays its layers out at
    # the width it takes (a text that fills it wrapped at the column's room, a line more)
    "hugging-column-in-a-narrower-column": [
        {"type": "frame", "name": "narrow", "x": 10, "y": 10, "width": 20, "height": "hug", "layout": "column",
         "layers": [
            {"type": "frame", "name": "card", "width": "hug", "height": "hug", "layout": "column", "padding": 4,
             "gap": 10, "align": "end", "layers": [
                text("words", "mu theta epsilon", size=16), box("bar", "fill", 30),
                text("word", "kappa", "hug", size=24)]}]},
    ],
    # an image that fills a row too narrow for all, stretched to the row's height, is no
    # narrower than that height makes it in its proportions (it kept its own width)
    "picture-stretched-in-a-narrow-row": [
        {"type": "frame", "name": "row", "x": 150, "y": 10, "width": 90, "height": 20, "layout": "row", "gap": 5,
         "align": "stretch", "justify": "center", "layers": [
            picture("photo", "fill", "hug"), box("bar", 40, "fill"), box("wide", 200, "fill")]},
    ],
    # the same one level down: a row stretched across a row of set height has a set
    # height too, and so does the picture stretched in it
    "picture-stretched-in-a-stretched-row": [
        {"type": "frame", "name": "outer", "x": 10, "y": 200, "width": "hug", "height": 40, "layout": "row",
         "padding": 4, "layers": [
            {"type": "frame", "name": "inner", "width": 130, "height": "fill", "layout": "row", "gap": 10,
             "padding": 8, "justify": "end", "layers": [
                box("first", 70, 20), picture("photo", "fill", "fill"), box("last", 40, "fill")]}]},
    ],
    # a row that fills a column that hugs, once that column is held at its content in a
    # row too narrow for it, shares its new width among its fills (one stayed at the
    # minimum it was held at in the narrower width)
    "fills-share-a-row-widened-with-its-column": [
        {"type": "frame", "name": "outer", "x": 10, "y": 10, "width": 130, "height": "hug", "layout": "row",
         "padding": 4, "layers": [
            {"type": "frame", "name": "column", "width": "hug", "height": "fill", "layout": "column",
             "padding": 4, "layers": [
                {"type": "frame", "name": "top", "width": "fill", "height": "hug", "layout": "row", "padding": 8,
                 "gap": 5, "justify": "end", "layers": [
                    box("fixed", 50, "fill"), box("bar", "fill", 20), text("words", "iota mu", size=24)]},
                {"type": "frame", "name": "wide", "width": 345, "height": 40, "layout": "row", "layers": []}]}]},
    ],
    # a picture stretched across a row of set height counts that height's width in its
    # proportions in the row's own minimum (it counted its pixels' width)
    "row-of-a-stretched-picture-in-a-narrow-row": [
        {"type": "frame", "name": "narrow", "x": 300, "y": 10, "width": 20, "height": "hug", "layout": "row",
         "padding": 4, "wrap": True, "justify": "end", "layers": [
            {"type": "frame", "name": "row", "width": "fill", "height": 200, "layout": "row", "gap": 5,
             "padding": 4, "align": "stretch", "layers": [picture("photo"), box("after", 50, 30)]}]},
    ],
    # in a row that wraps, a picture stretched to its line's height keeps its own width:
    # the line's height comes from its layers (it was the row's, the width following it)
    "picture-stretched-on-a-wrapped-line": [
        {"type": "frame", "name": "row", "x": 10, "y": 300, "width": 200, "height": 40, "layout": "row",
         "wrap": True, "align": "stretch", "gap": 5, "layers": [
            picture("photo"), box("tall", 30, 100), text("words", "alpha beta", "hug", size=16)]},
    ],
    # a row that fills a column's height is no lower than the picture stretched across it
    # at the width it gets (it was squeezed to its padding, the picture to nothing)
    "row-filling-a-column-holds-its-stretched-picture": [
        {"type": "frame", "name": "column", "x": 250, "y": 300, "width": 176, "height": 184, "layout": "column",
         "gap": 5, "padding": 4, "justify": "space-between", "layers": [
            picture("first", "fill", "fill"),
            {"type": "frame", "name": "row", "width": "fill", "height": "fill", "layout": "row", "padding": 4,
             "justify": "center", "layers": [box("side", 40, "fill"), picture("second", "fill", "fill")]},
            box("below", 40, 28), box("last", "fill", 30)]},
    ],
    # a text that fills a column's height, held at its lines' height while the column was
    # narrow, is held at its lines' height in the width the column gets at last (in a
    # row that wraps, its line's share): it kept three lines' height for one line
    "text-held-at-its-lines-in-the-width-it-gets": [
        {"type": "frame", "name": "outer", "x": 10, "y": 500, "width": "hug", "height": 40, "layout": "column",
         "layers": [
            text("narrow", "iota zeta epsilon eta iota", 60, size=24),
            {"type": "frame", "name": "row", "width": "fill", "height": "fill", "layout": "row", "wrap": True,
             "gap": 5, "justify": "center", "layers": [
                box("first", 200, 100),
                {"type": "frame", "name": "column", "width": "fill", "height": "hug", "layout": "column",
                 "align": "stretch", "justify": "space-between", "layers": [
                    {**text("words", "mu lambda iota alpha", size=24), "height": "fill"},
                    picture("photo", "hug", 40), picture("last", "hug", "fill")]}]}]},
    ],
    # layers that hug, squeezed in a row far too narrow for them, at their minimums:
    # Yoga's sum of their shrink factors cancelled to a hair over nothing, and it made the
    # text 550 million px wide (refused as unbounded) for some of its measured widths
    "squeezed-text-beside-a-frame": [
        {"type": "frame", "name": "row", "x": 10, "y": 10, "width": 20, "height": "hug", "layout": "row",
         "layers": [
            box("wide", 90, 40), text("word", "zeta", "hug", size=12),
            {"type": "frame", "name": "frame", "width": "hug", "height": 20, "layout": "column", "padding": 8,
             "layers": [box("inside", 40, 30)]}]},
    ],
    "squeezed-fills-in-a-row-that-hugs": [
        {"type": "frame", "name": "outer", "x": 10, "y": 100, "width": "hug", "height": 300, "layout": "row",
         "layers": [
            {"type": "frame", "name": "middle", "width": 50, "height": "fill", "layout": "row", "layers": [
                {"type": "frame", "name": "column", "width": "hug", "height": "fill", "layout": "column",
                 "layers": [box("block", 120, 60)]},
                picture("photo", "hug", "fill"), text("word", "internationalization", "hug", size=16)]}]},
    ],
    # a text squeezed with the row that holds it, that row then held at its minimum and
    # grown to its own line: the text takes the row's new room (it was held at its widest
    # word, in a line more than CSS's)
    "text-squeezed-with-its-row-takes-the-row's-new-room": [
        {"type": "frame", "name": "outer", "x": 10, "y": 10, "width": 130, "height": 130, "layout": "row",
         "wrap": True, "align": "end", "layers": [
            {"type": "frame", "name": "row", "width": "fill", "height": 130, "layout": "row", "wrap": True,
             "gap": 10, "padding": 4, "align": "stretch", "justify": "end", "layers": [
                {**text("words", "gamma alpha mu eta theta", "hug", size=24), "height": "fill"},
                text("small", "eta kappa lambda beta", "hug", size=12)]},
            box("after", 60, 90)]},
    ],
    # layers squeezed inside a row that is held at its minimum, which is theirs side by
    # side: each is then held at its own
    "layers-held-inside-a-row-held-at-its-minimum": [
        {"type": "frame", "name": "narrow", "x": 200, "y": 300, "width": 20, "height": "hug", "layout": "row",
         "wrap": True, "layers": [
            {"type": "frame", "name": "row", "width": "fill", "height": "fill", "layout": "row", "padding": 4,
             "align": "center", "justify": "space-between", "layers": [
                {"type": "frame", "name": "padded", "width": "fill", "height": 20, "layout": "row", "padding": 8,
                 "layers": [text("short", "lambda theta", "hug", size=16)]},
                {**text("long", "epsilon mu kappa beta", "hug", size=24), "height": 60},
                box("block", 150, 200)]}]},
    ],
    # a row that fills a column's height, its layers aligned to its end, is as high as its
    # highest layer (counted from where the squeezed row had put each, a layer stretched
    # across it added its lines under the others)
    "row-aligned-to-its-end-as-high-as-its-highest-layer": [
        {"type": "frame", "name": "column", "x": 10, "y": 300, "width": "hug", "height": 200, "layout": "column",
         "gap": 5, "padding": 4, "justify": "space-between", "layers": [
            {**text("tall", "delta epsilon mu delta", size=16), "height": 200},
            {"type": "frame", "name": "row", "width": "fill", "height": "fill", "layout": "row", "gap": 5,
             "padding": 4, "align": "end", "justify": "center", "layers": [
                text("words", "kappa delta epsilon", size=16), {**text("word", "beta", size=12), "height": "fill"},
                box("block", 200, 60)]}]},
    ],
    # a picture that fills a row of set height, stretched across it, is no narrower than
    # that height makes it, in the row's minimum too (it counted its own, narrower width)
    "picture-filling-a-row-of-set-height-in-a-row-that-hugs": [
        {"type": "frame", "name": "outer", "x": 10, "y": 10, "width": "hug", "height": "hug", "layout": "row",
         "padding": 4, "layers": [
            box("empty", "fill", 200),
            {"type": "frame", "name": "row", "width": "fill", "height": 130, "layout": "row", "padding": 4,
             "layers": [box("before", 90, 40), picture("photo", "fill", "fill"), box("after", 150, 40)]},
            box("last", 60, 30)]},
    ],
    # a row that wraps and hugs is as wide as its layers on one line, which its fills share
    # (its height was that of the fills' one-line widths, the text's lines overflowing it)
    "wrapping-row-that-hugs-shares-its-one-line": [
        {"type": "frame", "name": "row", "x": 200, "y": 10, "width": "hug", "height": "hug", "layout": "row",
         "wrap": True, "padding": 4, "align": "stretch", "layers": [
            text("words", "kappa mu alpha theta", "fill", size=16), box("fill", "fill", "fill")]},
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_frames_place_their_layers_as_css_flexbox_does(page, name):
    layers = LAYOUTS[name]
    theirs, ours = chromium_boxes(page, layers), our_boxes(layers)
    assert set(theirs) == set(ours)
    for layer, expected in theirs.items():
        assert ours[layer] == pytest.approx(expected, abs=2), (layer, ours[layer], expected)
