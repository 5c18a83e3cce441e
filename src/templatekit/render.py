"""The render pipeline: load → apply modifications → lay out a Scene → paint → encode."""

from __future__ import annotations

import hashlib
from functools import lru_cache

from attrs import frozen

from templatekit.apply import Modifications, apply
from templatekit.assets import AssetLoader
from templatekit.encode import encode, image_format
from templatekit.errors import AssetError
from templatekit.layout import debug as debug_overlay
from templatekit.layout.compose import layout_template
from templatekit.layout.context import LayoutContext
from templatekit.layout.fonts import Face, FontBook, load_face
from templatekit.layout.scene import Scene
from templatekit.loading import TemplateSource, load_template
from templatekit.model.template import Template
from templatekit.paint.raster import paint
from templatekit.result import RenderResult

THUMBNAIL_SIDE = 320


@frozen
class Prepared:
    """A template with modifications applied and laid out: what every painter takes."""

    template: Template
    scene: Scene
    warnings: tuple[str, ...]


def prepare(
    template: TemplateSource,
    modifications: Modifications = None,
    *,
    assets: AssetLoader | None = None,
    debug: bool = False,
    time: float | None = None,
) -> Prepared:
    """Resolve and lay out; every fetch, decode and measurement happens here."""
    loaded = load_template(template)
    applied = apply(loaded, modifications)
    loader = assets or default_loader()
    resolved = applied.template
    fonts = template_fonts(resolved, loader)
    if time is None and resolved.video is not None:
        time = resolved.video.poster or 0.0
    ctx = LayoutContext(fonts=fonts, assets=loader, base_dir=resolved.base_dir, time=time)
    scene = layout_template(resolved, ctx)
    if debug:
        scene = Scene(
            scene.width, scene.height, scene.background, (*scene.items, *debug_overlay.overlay(resolved, fonts))
        )
    warnings = (*loaded.load_warnings, *applied.warnings, *ctx.warnings)
    return Prepared(resolved, scene, warnings)


def render_image(
    template: TemplateSource,
    modifications: Modifications = None,
    *,
    format: str = "png",
    thumbnail: bool = False,
    debug: bool = False,
    scale: float = 1.0,
    assets: AssetLoader | None = None,
) -> RenderResult:
    """Render a template to PNG, JPEG or WebP.

    ``thumbnail`` renders a preview whose longest side is 320 px (lower quality);
    ``debug`` draws every layer's box and name; ``scale`` multiplies the pixel size
    (2 for a retina image).
    """
    name = image_format(format)
    prepared = prepare(template, modifications, assets=assets, debug=debug)
    scene = prepared.scene
    if thumbnail:
        scale = min(1.0, THUMBNAIL_SIDE / max(scene.width, scene.height))
    image = paint(scene, scale)
    encoded = encode(image, name, draft=thumbnail)
    return RenderResult(encoded.data, encoded.media_type, image.width, image.height, prepared.warnings)


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
        except OSError as exc:
            raise AssetError(
                f"fonts[{index}] ({source.family!r}): {source.src} is not a font file ({exc})", url=source.src
            ) from None
    return _book_with(tuple(faces))


@lru_cache(maxsize=32)
def _book_with(faces: tuple[Face, ...]) -> FontBook:
    """One book per set of template faces, so that caches keyed by the book keep hitting."""
    return FontBook.bundled().with_faces(faces)


@lru_cache(maxsize=64)
def _face(family: str, weight: int, italic: bool, data: bytes) -> Face:
    return load_face(family, weight, italic, data, hashlib.sha256(data).hexdigest()[:16])
