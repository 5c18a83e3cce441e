"""Video layers in a still render (an image, a PDF, a video's poster): the clip's frame
at that moment, fitted into the box like an image."""

from __future__ import annotations

import hashlib

from templatekit import extras
from templatekit.errors import AssetError
from templatekit.layout.context import LayoutContext
from templatekit.layout.image import fitted_pixels
from templatekit.model.layers import VideoLayer
from templatekit.scene import Item


def layout(layer: VideoLayer, ctx: LayoutContext) -> list[Item]:
    try:
        from templatekit.assets.clips import ClipReader
    except ImportError as exc:
        ctx.warn(layer.name, extras.explain("video", exc))
        return []
    try:
        data = ctx.assets.fetch_media(layer.src, ctx.base_dir)
    except AssetError as exc:
        raise AssetError(f"layer {layer.name!r}: {exc}", layer=layer.name, url=layer.src) from exc
    reader = ClipReader(layer, data)
    try:
        # a still without a moment shows the clip's first frame (its layer at rest)
        moment, frame = reader.frame_at(0.0 if ctx.time is None else ctx.time - (layer.start or 0.0))
    finally:
        reader.close()
    key = f"clip:{hashlib.sha256(data).hexdigest()}@{moment:.6f}"
    return [fitted_pixels(frame, key, layer.fit, layer.x, layer.y, layer.width, layer.height)]
