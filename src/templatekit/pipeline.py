"""The render pipeline behind the public functions: load → apply modifications → lay out a
Scene (at a video's moment) → ask the budget for what painting takes → paint → encode."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from attrs import frozen
from PIL import Image as PILImage

from templatekit import budget
from templatekit.apply import Modifications, apply
from templatekit.assets import AssetLoader
from templatekit.layout.arrange import arrange
from templatekit.layout.compose import layout_function, layout_template
from templatekit.layout.context import LayoutContext
from templatekit.layout.glyph_memory import ScaleOf, at_scale, check_glyphs_fit
from templatekit.loading import TemplateSource, load_template
from templatekit.locales import format_values
from templatekit.model.layers import Layer, walk_layers
from templatekit.model.template import Template
from templatekit.options import RenderOptions
from templatekit.outputs.encode import encode
from templatekit.outputs.result import RenderResult
from templatekit.paint.canvas import is_opaque, paint
from templatekit.paint.needs import canvas_needs
from templatekit.scene import Group, Item, Scene
from templatekit.scene.memory import Need
from templatekit.text.template_fonts import template_fonts

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


def prepared(template: TemplateSource, modifications: Modifications, options: RenderOptions) -> Prepared:
    """``prepare`` with its options as one value (inside the render's memory budget); the
    colour glyphs of every page, and what painting the pages takes, are asked of the
    budget at the scale they will be drawn: painting cannot fail."""
    resolved, ctx, early_warnings = resolve(template, modifications, options)
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


def _modified(loaded: Template, applied: Template) -> frozenset[str]:
    """The names of the layers modifications changed: applying keeps the others as they
    were, the same objects."""
    before = {id(layer) for layer in walk_layers(loaded.layers)}
    return frozenset(layer.name for layer in walk_layers(applied.layers) if id(layer) not in before)


def resolve(
    template: TemplateSource, modifications: Modifications, options: RenderOptions
) -> tuple[Template, LayoutContext, tuple[str, ...]]:
    """The template loaded with modifications applied, the context to lay it out in, and
    the warnings so far."""
    loaded = load_template(template)
    applied = apply(loaded, modifications)
    loader = options.assets or default_loader()
    resolved, formatting = format_values(applied.template)
    fonts = template_fonts(resolved, loader)
    time, late = _moment(resolved, options.time)
    ctx = LayoutContext(
        fonts=fonts,
        assets=loader,
        base_dir=resolved.base_dir,
        time=time,
        paginate=options.paginate,
        density=options.density,
        vector=options.vector,
        locale=resolved.locale,
        modified=_modified(loaded, applied.template),
    )
    return arrange(resolved, ctx), ctx, (*loaded.load_warnings, *applied.warnings, *formatting, *late)


def _moment(template: Template, asked: float | None) -> tuple[float | None, tuple[str, ...]]:
    """The moment a still of a video template shows (the poster's when none is asked;
    None: the finished design, see ``_at_moment``), and a warning for one after the end:
    from its last frame on, a still shows that frame, as the video ends on it."""
    video = template.video
    if video is None:
        return asked, ()
    time = video.poster if asked is None else asked
    if time is None or time <= video.last_moment:
        return time, ()
    late: tuple[str, ...] = ()
    if time > video.duration:
        late = (f"moment: {time:g} s is after the video's end ({video.duration:g} s); its last frame is shown",)
    return video.last_moment, late


def still(template: TemplateSource, modifications: Modifications, options: RenderOptions) -> RenderResult:
    """The still, as ``options.format``: a video template's Scene at its moment (its
    poster's by default), else the laid-out design."""
    return painted(prepared(template, modifications, options), options)


def painted(laid_out: Prepared, options: RenderOptions) -> RenderResult:
    """The first page of ``laid_out`` painted and encoded as ``options.format``."""
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


def _drawn(page: Scene) -> set[str]:
    """The names of the layers a page shows (each is a group labelled with its name)."""
    return {item.label for item in page.items if isinstance(item, Group) and item.label}


@lru_cache(maxsize=1)
def default_loader() -> AssetLoader:
    return AssetLoader()
