"""A template's own font faces beside the bundled ones: fetched, read, and kept in one
font book per set of faces, so that the caches keyed by the book keep hitting."""

from __future__ import annotations

import hashlib
from functools import lru_cache

from templatekit.assets import AssetLoader
from templatekit.cache import memoized
from templatekit.errors import AssetError
from templatekit.model.template import Template
from templatekit.text.fonts import Face, FontBook, load_face


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
