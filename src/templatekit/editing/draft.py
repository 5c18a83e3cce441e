"""Renders of a template being designed, not stored: the editor's canvas. A draft
renders through the pipeline of ``render_image`` like any template, so the canvas shows
the bytes a render of the saved version gives; besides them it tells the editor where
layout put what it placed (the boxes of frames and of the layers they hold) and how tall
the boxes of cut text would have to be to show it all."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

from attrs import evolve, frozen

from templatekit import budget
from templatekit.apply import Modifications
from templatekit.assets import AssetLoader
from templatekit.editing.scans import CodeScan, code_scans
from templatekit.errors import TemplateError
from templatekit.layout.captions import layer_cues
from templatekit.layout.context import LayoutContext
from templatekit.layout.text import height_to_show_all
from templatekit.loading import TemplateSource, load_template
from templatekit.model.layers import AnyLayer, CaptionsLayer, FrameLayer, TextLayer
from templatekit.model.template import Template
from templatekit.options import RenderOptions
from templatekit.outputs.encode import image_format
from templatekit.outputs.result import RenderResult
from templatekit.pipeline import default_loader, painted, prepared
from templatekit.subtitles import plain_text
from templatekit.text.template_fonts import template_fonts

#: A layer's laid-out box on the canvas: x, y, width, height (before its rotation).
Box = tuple[float, float, float, float]


@frozen
class DraftRender:
    result: RenderResult
    #: whether each code layer scans (full-size PNG renders only)
    scans: tuple[CodeScan, ...]
    #: by name, the box of every frame and of every layer inside one, as layout placed it
    boxes: dict[str, Box]
    #: by name, the height the box of each text layer whose text is cut would need to
    #: show it all at its width (the editor grows a box whose type was just made larger)
    text_heights: dict[str, float]
    #: by name, the cues of each captions layer as the renders read them (at most
    #: SHOWN_CUES, each text cut to SHOWN_CUE_TEXT characters): the editor's cue bars
    cues: dict[str, list[tuple[float, float, str]]]


def render_draft(
    template: TemplateSource,
    modifications: Modifications = None,
    *,
    format: str = "png",
    thumbnail: bool = False,
    scale: float = 1.0,
    time: float | None = None,
    base_dir: Path | None = None,
    assets: AssetLoader | None = None,
    memory_limit: int | None = None,
) -> DraftRender:
    """``template`` rendered as ``render_image`` does; for a video template, ``time``
    shows the frame at that moment (as a poster would). ``scale`` (at most 1) draws it
    smaller, at the size a screen shows it. ``base_dir`` is where relative paths of the
    template resolve."""
    if not 0 < scale <= 1:
        raise TemplateError([f"scale: must be more than 0 and at most 1 (got {scale:g})"])
    loaded = load_template(template)
    if base_dir is not None:
        loaded = evolve(loaded, base_dir=base_dir)
    if time is not None:
        if loaded.video is None:
            raise TemplateError(["time: only a video template has moments (add a 'video' field)"])
        if not 0 <= time <= loaded.video.duration:
            raise TemplateError([f"time: must be within the video, 0 to {loaded.video.duration:g} (got {time:g})"])
        loaded = evolve(loaded, video=evolve(loaded.video, poster=time))
    options = RenderOptions(
        format=image_format(format), thumbnail=thumbnail, scale=scale, assets=assets, memory_limit=memory_limit
    )
    with budget.render(memory_limit):
        laid_out = prepared(loaded, modifications, options)
        result = painted(laid_out, options)
        loader = options.assets or default_loader()
        heights = _cut_text_heights(laid_out.template, loader)
        cues = _cues(laid_out.template, loader)
    boxes = dict(_framed_boxes(laid_out.template.layers))
    if thumbnail or scale != 1 or result.media_type != "image/png":
        return DraftRender(result, (), boxes, heights, cues)
    scans = code_scans(list(_shown(laid_out.template.layers)), result.data)
    return DraftRender(result, scans, boxes, heights, cues)


def _framed_boxes(layers: tuple[AnyLayer, ...], framed: bool = False) -> Iterator[tuple[str, Box]]:
    """The boxes the editor cannot work out from the JSON alone: those of frames (which
    may hug) and of what they hold (placed by their layout), at canvas coordinates."""
    for layer in layers:
        if isinstance(layer, FrameLayer) or framed:
            yield layer.name, (round(layer.x, 2), round(layer.y, 2), round(layer.width, 2), round(layer.height, 2))
        if isinstance(layer, FrameLayer):
            yield from _framed_boxes(layer.layers, True)


def _cut_text_heights(template: Template, assets: AssetLoader) -> dict[str, float]:
    """The heights the boxes of visible text layers whose text is cut need to show it all,
    for those set at their size (not shrunk to fit, not limited to a number of lines)."""
    ctx = LayoutContext(fonts=template_fonts(template, assets), assets=assets, base_dir=template.base_dir)
    heights = {}
    for layer in _shown(template.layers):
        if isinstance(layer, TextLayer) and layer.auto_fit == "none" and layer.max_lines is None:
            needed = height_to_show_all(layer, ctx)
            if needed is not None:
                heights[layer.name] = float(math.ceil(needed))
    return heights


#: what the editor is told of a captions layer's cues: enough to draw them on the timeline
SHOWN_CUES = 300
SHOWN_CUE_TEXT = 24


def _cues(template: Template, assets: AssetLoader) -> dict[str, list[tuple[float, float, str]]]:
    """The cues of the visible captions layers, as a render reads them (files included)."""
    found = {}
    for layer in _shown(template.layers):
        if isinstance(layer, CaptionsLayer):
            cues = layer_cues(layer, assets, template.base_dir)[:SHOWN_CUES]
            found[layer.name] = [(cue.start, cue.end, plain_text(cue)[:SHOWN_CUE_TEXT]) for cue in cues]
    return found


def _shown(layers: tuple[AnyLayer, ...]) -> Iterator[AnyLayer]:
    """The visible layers, nested ones included (those of a hidden frame are not)."""
    for layer in layers:
        if layer.visible:
            yield layer
            if isinstance(layer, FrameLayer):
                yield from _shown(layer.layers)
