"""Renders of a template being designed, not stored: the editor's canvas. A draft
renders through ``render_image`` like any template, so the canvas shows the bytes a
render of the saved version gives."""

from __future__ import annotations

from pathlib import Path

from attrs import evolve, frozen

from templatekit.apply import Modifications, apply
from templatekit.assets import AssetLoader
from templatekit.editing.scans import CodeScan, code_scans
from templatekit.errors import TemplateError
from templatekit.loading import TemplateSource, load_template
from templatekit.render import render_image
from templatekit.result import RenderResult


@frozen
class DraftRender:
    result: RenderResult
    #: whether each code layer scans (full-size PNG renders only)
    scans: tuple[CodeScan, ...]


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
    result = render_image(
        loaded, modifications, format=format, thumbnail=thumbnail, scale=scale, assets=assets, memory_limit=memory_limit
    )
    if thumbnail or scale != 1 or result.media_type != "image/png":
        return DraftRender(result, ())
    return DraftRender(result, code_scans(apply(loaded, modifications).template.layers, result.data))
