"""The public render functions: each turns its keyword arguments into one ``RenderOptions``
and runs the pipeline (``templatekit.pipeline``) inside the render's memory budget."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from templatekit import budget, extras
from templatekit.apply import Modifications
from templatekit.assets import AssetLoader
from templatekit.errors import RenderError, TemplateError
from templatekit.loading import TemplateSource
from templatekit.options import PdfInfo, RenderOptions
from templatekit.outputs.encode import image_format
from templatekit.outputs.motion import motion_format
from templatekit.outputs.result import RenderResult, whole_file
from templatekit.pipeline import Prepared, prepared, resolve, still


def prepare(
    template: TemplateSource,
    modifications: Modifications = None,
    *,
    assets: AssetLoader | None = None,
    debug: bool = False,
    time: float | None = None,
    paginate: bool = False,
    density: float = 2.0,
    vector: bool = False,
    memory_limit: int | None = None,
) -> Prepared:
    """Resolve and lay out; every fetch, decode and measurement happens here. The
    options are those of ``RenderOptions``.

    ``memory_limit`` is the render's memory budget in bytes (default: 1 GiB, or
    ``TEMPLATEKIT_RENDER_MEMORY``): a render that would need more is refused with a
    ``LimitError`` naming the layer, before the memory is taken."""
    options = RenderOptions(
        assets=assets,
        debug=debug,
        time=time,
        paginate=paginate,
        density=density,
        vector=vector,
        memory_limit=memory_limit,
    )
    with budget.render(memory_limit):
        return prepared(template, modifications, options)


def render_image(
    template: TemplateSource,
    modifications: Modifications = None,
    *,
    format: str = "png",
    thumbnail: bool = False,
    debug: bool = False,
    scale: float = 1.0,
    moment: float | None = None,
    assets: AssetLoader | None = None,
    memory_limit: int | None = None,
) -> RenderResult:
    """Render a template to PNG, JPEG or WebP.

    ``thumbnail`` renders a preview whose longest side is 320 px (lower quality);
    ``debug`` draws every layer's box and name; ``scale`` multiplies the pixel size
    (2 for a retina image); ``moment``: the second of a video template to show (default:
    its ``poster``), as its frame then shows it; ``memory_limit``: see ``prepare``.
    """
    options = image_options(format, thumbnail, debug, scale, moment, assets, memory_limit)
    with budget.render(memory_limit):
        return still(template, modifications, options)


def image_options(
    format: str = "png",
    thumbnail: bool = False,
    debug: bool = False,
    scale: float = 1.0,
    moment: float | None = None,
    assets: AssetLoader | None = None,
    memory_limit: int | None = None,
) -> RenderOptions:
    """``render_image``'s arguments as options, checked (``ValueError`` naming the one at
    fault); ``render_many`` checks its own with it before a row is sent anywhere."""
    return RenderOptions(
        format=image_format(format),
        thumbnail=thumbnail,
        debug=debug,
        scale=scale,
        time=moment,
        assets=assets,
        memory_limit=memory_limit,
    )


def render_pdf(
    template: TemplateSource,
    modifications: Modifications = None,
    *,
    debug: bool = False,
    author: str = "",
    creator: str = "templatekit",
    subject: str = "",
    created: datetime | None = None,
    moment: float | None = None,
    assets: AssetLoader | None = None,
    memory_limit: int | None = None,
) -> RenderResult:
    """Render a template to a vector PDF, one page per ``width × 0.75`` by
    ``height × 0.75`` points; table rows that do not fit continue on further pages.

    The title is the template's name. The same input gives the same bytes unless
    ``created`` (the creation date to record) is given. Charts and SVG images are
    vector drawings (or, should one not convert, images at 3x). ``moment``: the second of
    a video template to show (default: its ``poster``), as its frame then shows it.
    ``memory_limit``: see ``prepare``.
    """
    options = pdf_options(debug, author, creator, subject, created, moment, assets, memory_limit)
    with budget.render(memory_limit):
        from templatekit.paint.pdf import DocumentInfo, paint_pdf  # the PDF writer loads only when a PDF is made

        laid_out = prepared(template, modifications, options)
        meta = options.pdf
        info = DocumentInfo(laid_out.template.name, meta.author, meta.creator, meta.subject, meta.created)
        data = paint_pdf(laid_out.pages, info)
        scene = laid_out.scene
        return RenderResult(data, "application/pdf", scene.width, scene.height, laid_out.warnings, len(laid_out.pages))


def pdf_options(
    debug: bool = False,
    author: str = "",
    creator: str = "templatekit",
    subject: str = "",
    created: datetime | None = None,
    moment: float | None = None,
    assets: AssetLoader | None = None,
    memory_limit: int | None = None,
) -> RenderOptions:
    """``render_pdf``'s arguments as options, checked as ``image_options`` checks."""
    pdf = PdfInfo(author=author, creator=creator, subject=subject, created=created)
    return RenderOptions(debug=debug, time=moment, assets=assets, memory_limit=memory_limit, pdf=pdf).for_pdf()


def render_video(
    template: TemplateSource,
    modifications: Modifications = None,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    path: str | os.PathLike[str] | None = None,
    format: str | None = None,
    assets: AssetLoader | None = None,
    memory_limit: int | None = None,
) -> RenderResult:
    """Render a video template (one with a ``video`` field) as ``format``, else as the
    extension of ``path`` names, else MP4:

    - ``mp4``: H.264 in yuv420p at the template's frame rate, AAC sound;
    - ``webm``: VP9, transparent where the template is when its background is none or
      see-through (yuva420p), Opus sound;
    - ``gif``: looping, at most ``video.gif.fps`` frames a second and ``video.gif.width``
      pixels wide, one palette for the whole animation;
    - ``webp``: animated, looping, lossy at ``video.webp.quality`` or lossless.

    GIF and WebP have no sound: it is left out with a warning. Frames are encoded as
    they are painted; none is kept. ``on_progress(done, total)`` is called as frames are
    done (every hundredth of them, at least once a second). With ``path`` the video is
    written to that file and the result reads it back only when its ``data`` is asked
    for. ``memory_limit``: see ``prepare`` (it bounds each frame's painting, not the
    video's length). An unknown format or extension is a ``ValueError`` naming the ones
    supported.
    """
    output = motion_format(path, format)
    with budget.render(memory_limit):
        try:
            from templatekit.video.movie import write_video
        except ImportError as exc:
            raise RenderError(extras.explain("video", exc)) from None
        resolved, ctx, warnings = resolve(template, modifications, RenderOptions(assets=assets))
        if resolved.video is None:
            raise TemplateError(
                ['video: missing; a video template needs one, e.g. {"duration": 5, "fps": 30}'], resolved.name
            )
        if (too_large := resolved.frames_too_large()) is not None:
            raise TemplateError([too_large], resolved.name)
        target = Path(path) if path is not None else None
        if target is not None:  # written beside it and renamed: never half a video there
            with whole_file(target) as partial:
                width, height = write_video(resolved, ctx, partial, on_progress, output)
            data = None
        else:
            import tempfile  # videos in memory only (start-up time)

            with tempfile.TemporaryDirectory(prefix="templatekit-") as scratch:
                out = Path(scratch) / f"video.{output.name}"
                width, height = write_video(resolved, ctx, out, on_progress, output)
                data = out.read_bytes()
        result_warnings = (*warnings, *ctx.warnings)
        return RenderResult(data, output.media_type, width, height, result_warnings, path=target)
