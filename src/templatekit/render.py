"""The render pipeline: load → apply modifications → lay out a Scene → paint → encode."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from attrs import frozen
from PIL import Image as PILImage

from templatekit import budget, extras
from templatekit.apply import Modifications, apply
from templatekit.assets import AssetLoader
from templatekit.cache import memoized
from templatekit.encode import encode, image_format
from templatekit.errors import AssetError, RenderError, TemplateError
from templatekit.layout.compose import layout_function, layout_template
from templatekit.layout.context import LayoutContext
from templatekit.layout.glyph_memory import ScaleOf, at_scale, check_glyphs_fit
from templatekit.loading import TemplateSource, load_template
from templatekit.memory import Need
from templatekit.model.layers import Layer
from templatekit.model.template import Template
from templatekit.options import PdfInfo, RenderOptions
from templatekit.paint.canvas import is_opaque, paint
from templatekit.paint.needs import canvas_needs
from templatekit.result import RenderResult
from templatekit.scene import Group, Item, Scene
from templatekit.text.fonts import Face, FontBook, load_face

THUMBNAIL_SIDE = 320


@frozen
class Prepared:
    """A template with modifications applied and laid out: what every painter takes.
    ``pages`` holds more than one Scene only when laid out with ``paginate``."""

    template: Template
    pages: tuple[Scene, ...]
    warnings: tuple[str, ...]

    @property
    def scene(self) -> Scene:
        return self.pages[0]


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


def prepared(template: TemplateSource, modifications: Modifications, options: RenderOptions) -> Prepared:
    """``prepare`` with its options as one value (inside the render's memory budget); the
    colour glyphs of every page, and what painting the pages takes, are asked of the
    budget at the scale they will be drawn: painting cannot fail."""
    resolved, ctx, early_warnings = _resolve(template, modifications, options)
    if options.paginate:
        from templatekit.layout.pages import layout_pages  # PDF only (start-up time)

        pages = layout_pages(resolved, ctx)
    else:
        pages = [layout_template(resolved, ctx)]
    if resolved.video is not None and ctx.time is not None:
        pages = [_at_moment(resolved, page, ctx) for page in pages]
    if options.debug:
        from templatekit.layout import debug as debug_overlay  # on first use (start-up time)

        pages = [
            Scene(
                page.width,
                page.height,
                page.background,
                (*page.items, *debug_overlay.overlay(resolved, ctx.fonts, _drawn(page))),
            )
            for page in pages
        ]
    size = (resolved.width, resolved.height)
    scale_of = _glyph_scale(options, size)
    for page in pages:
        check_glyphs_fit(page.items, scale_of)
    budget.ask(_paint_needs(options, pages, size))
    return Prepared(resolved, tuple(pages), (*early_warnings, *ctx.warnings))


def _paint_needs(options: RenderOptions, pages: list[Scene], size: tuple[int, int]) -> Iterator[Need]:
    """What the painter of ``options`` makes to paint ``pages``."""
    if options.format == "pdf":
        from templatekit.paint.pdf.painter import needs  # the PDF writer loads only when a PDF is made

        return needs(pages)
    scale = _scale(size, options)
    return (need for page in pages for need in canvas_needs(page, scale))


def _glyph_scale(options: RenderOptions, size: tuple[int, int]) -> ScaleOf:
    """The pixels per px at which the painter of ``options`` draws each run's colour glyphs."""
    if options.format == "pdf":
        from templatekit.paint.pdf.painter import bitmap_density  # the PDF writer loads only when a PDF is made

        return bitmap_density
    return at_scale(_scale(size, options))


def _resolve(
    template: TemplateSource, modifications: Modifications, options: RenderOptions
) -> tuple[Template, LayoutContext, tuple[str, ...]]:
    """The template loaded with modifications applied, the context to lay it out in, and
    the warnings so far."""
    loaded = load_template(template)
    applied = apply(loaded, modifications)
    loader = options.assets or default_loader()
    resolved = applied.template
    fonts = template_fonts(resolved, loader)
    time = options.time
    if time is None and resolved.video is not None:
        time = resolved.video.poster  # None: the finished design (see ``_at_moment``)
    ctx = LayoutContext(
        fonts=fonts,
        assets=loader,
        base_dir=resolved.base_dir,
        time=time,
        paginate=options.paginate,
        density=options.density,
        vector=options.vector,
    )
    return resolved, ctx, (*loaded.load_warnings, *applied.warnings)


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
    options = RenderOptions(
        format=image_format(format),
        thumbnail=thumbnail,
        debug=debug,
        scale=scale,
        time=moment,
        assets=assets,
        memory_limit=memory_limit,
    )
    with budget.render(memory_limit):
        return _image(template, modifications, options)


def _image(template: TemplateSource, modifications: Modifications, options: RenderOptions) -> RenderResult:
    """The still, as ``options.format``: a video template's Scene at its moment (its
    poster's by default), else the laid-out design."""
    laid_out = prepared(template, modifications, options)
    scene = laid_out.scene
    image = paint(scene, _scale((scene.width, scene.height), options))
    return _encoded(image, laid_out.warnings, options, opaque=is_opaque(scene))


def _scale(size: tuple[int, int], options: RenderOptions) -> float:
    """The options' scale; for a thumbnail, the one that makes the longest side 320 px."""
    return min(1.0, THUMBNAIL_SIDE / max(size)) if options.thumbnail else options.scale


def _encoded(
    image: PILImage.Image, warnings: tuple[str, ...], options: RenderOptions, opaque: bool | None = None
) -> RenderResult:
    encoded = encode(image, options.format, draft=options.thumbnail, opaque=opaque)
    return RenderResult(encoded.data, encoded.media_type, image.width, image.height, warnings)


def _at_moment(template: Template, scene: Scene, ctx: LayoutContext) -> Scene:
    """A video template's laid-out scene at the context's moment, as the video's frame
    then shows it. Without a moment, a still of a video template is its finished design:
    every layer as laid out, at rest, which is what layout gives."""
    assert ctx.time is not None
    from templatekit.video.moment import scene_at  # video templates only (start-up time)

    def relayout(layer: Layer) -> list[Item]:
        lay_out = layout_function(layer.TYPE)
        return lay_out(layer, ctx) if lay_out is not None else []

    return scene_at(template, scene, ctx.time, relayout)


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
    pdf = PdfInfo(author=author, creator=creator, subject=subject, created=created)
    options = RenderOptions(debug=debug, time=moment, assets=assets, memory_limit=memory_limit, pdf=pdf).for_pdf()
    with budget.render(memory_limit):
        from templatekit.paint.pdf import DocumentInfo, paint_pdf  # the PDF writer loads only when a PDF is made

        laid_out = prepared(template, modifications, options)
        meta = options.pdf
        info = DocumentInfo(laid_out.template.name, meta.author, meta.creator, meta.subject, meta.created)
        data = paint_pdf(laid_out.pages, info)
        scene = laid_out.scene
        return RenderResult(data, "application/pdf", scene.width, scene.height, laid_out.warnings, len(laid_out.pages))


def render_video(
    template: TemplateSource,
    modifications: Modifications = None,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    path: str | os.PathLike[str] | None = None,
    assets: AssetLoader | None = None,
    memory_limit: int | None = None,
) -> RenderResult:
    """Render a video template (one with a ``video`` field) to MP4: H.264 in yuv420p at
    the template's frame rate, with AAC sound when the template has music or its clips
    have sound. Frames are encoded as they are painted; none is kept.

    ``on_progress(done, total)`` is called as frames are done (every hundredth of them,
    at least once a second). With ``path`` the video is written to that file and the
    result reads it back only when its ``data`` is asked for. ``memory_limit``: see
    ``prepare`` (it bounds each frame's painting, not the video's length).
    """
    with budget.render(memory_limit):
        try:
            from templatekit.video.movie import write_video
        except ImportError as exc:
            raise RenderError(extras.explain("video", exc)) from None
        resolved, ctx, warnings = _resolve(template, modifications, RenderOptions(assets=assets))
        if resolved.video is None:
            raise TemplateError(
                ['video: missing; a video template needs one, e.g. {"duration": 5, "fps": 30}'], resolved.name
            )
        target = Path(path) if path is not None else None
        with tempfile.TemporaryDirectory(prefix="templatekit-") as scratch:
            out = target or Path(scratch) / "video.mp4"
            try:
                width, height = write_video(resolved, ctx, out, on_progress)
            except BaseException:
                out.unlink(missing_ok=True)  # never leave half a video behind
                raise
            data = None if target is not None else out.read_bytes()
        result_warnings = (*warnings, *ctx.warnings)
        return RenderResult(data, "video/mp4", width, height, result_warnings, path=target)


def _drawn(page: Scene) -> set[str]:
    """The names of the layers a page shows (each is a group labelled with its name)."""
    return {item.label for item in page.items if isinstance(item, Group) and item.label}


@lru_cache(maxsize=1)
def default_loader() -> AssetLoader:
    return AssetLoader()


def template_fonts(template: Template, assets: AssetLoader) -> FontBook:
    """The bundled fonts plus the template's own faces."""
    if not template.fonts:
        return FontBook.bundled()
    faces = []
    for index, source in enumerate(template.fonts):
        try:
            data = assets.fetch(source.src, template.base_dir)
            faces.append(_face(source.family, source.weight, source.style == "italic", data))
        except AssetError as exc:
            raise AssetError(f"fonts[{index}] ({source.family!r}): {exc}", url=source.src) from None
        except (OSError, ValueError) as exc:
            raise AssetError(
                f"fonts[{index}] ({source.family!r}): {source.src} is not a font file ({exc})", url=source.src
            ) from None
    return _book_with(tuple(faces))


@lru_cache(maxsize=32)
def _book_with(faces: tuple[Face, ...]) -> FontBook:
    """One book per set of template faces, so that caches keyed by the book keep hitting."""
    return FontBook.bundled().with_faces(faces)


@memoized("template.faces", 64, lambda face: 500 + len(face.file.data or b""))
def _face(family: str, weight: int, italic: bool, data: bytes) -> Face:
    return load_face(family, weight, italic, data, hashlib.sha256(data).hexdigest()[:16])
