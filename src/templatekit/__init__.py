"""templatekit: render design templates into images, PDFs and videos.

>>> import templatekit as tk
>>> tpl = tk.load_template("examples/templates/social-card.json")
>>> tk.render_image(tpl, {"title": "Hello"}).save("card.png")
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any


@contextlib.contextmanager
def _objects_made_old() -> Iterator[None]:
    """The package's import, with what it makes put straight into the collector's oldest
    generation: importing makes some 60,000 objects (classes, their methods and fields),
    and the collector would walk them some 70 times as they are made, 9 ms of a new
    process's 220 ms ``templatekit render``. ``freeze`` then ``unfreeze`` moves every
    object to the oldest generation without walking any; not when the program has
    frozen objects of its own (before forking), which ``unfreeze`` would thaw. The few
    thousand that are garbage (the classes attrs replaces with slotted ones, 0.9 MB)
    wait for the next full collection."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        if collecting:
            gc.enable()


with _objects_made_old():
    # First: the classes defined below compile their generated methods through the cache.
    import templatekit.codecache  # noqa: F401  # isort: split
    from templatekit.apply import Applied, apply, normalize
    from templatekit.assets import AssetLoader, MemoryAssetLoader
    from templatekit.cache import CacheUsage, cache_usage, set_cache_limit
    from templatekit.describe import describe
    from templatekit.errors import (
        AssetError,
        LimitError,
        ModificationError,
        RenderError,
        StorageError,
        TemplateError,
        TemplatekitError,
    )
    from templatekit.kinds import add_layer_kind
    from templatekit.loading import load_template
    from templatekit.model.modification import Modification
    from templatekit.model.template import Template
    from templatekit.outputs.result import RenderResult
    from templatekit.render import Prepared, prepare, render_image, render_pdf, render_video
    from templatekit.scene import Scene

if TYPE_CHECKING:
    from templatekit.batch import BatchItem, render_many
    from templatekit.notebook import preview
    from templatekit.storage import Store

#: Names whose modules load on first use: a script that renders one image does not
#: pay for process pools, storage and notebook previews (start-up time).
_LATER = {
    "BatchItem": "templatekit.batch",
    "render_many": "templatekit.batch",
    "Store": "templatekit.storage",
    "preview": "templatekit.notebook",
}

__all__ = [
    "Applied",
    "AssetError",
    "AssetLoader",
    "BatchItem",
    "CacheUsage",
    "LimitError",
    "MemoryAssetLoader",
    "Modification",
    "ModificationError",
    "Prepared",
    "RenderError",
    "RenderResult",
    "Scene",
    "StorageError",
    "Store",
    "Template",
    "TemplateError",
    "TemplatekitError",
    "add_layer_kind",
    "apply",
    "cache_usage",
    "describe",
    "load_template",
    "normalize",
    "prepare",
    "preview",
    "render_image",
    "render_many",
    "render_pdf",
    "render_video",
    "set_cache_limit",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name not in _LATER:
        raise AttributeError(f"module 'templatekit' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LATER[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LATER})


if "IPython" in sys.modules:  # imported in a notebook, perhaps: templates show themselves there
    importlib.import_module("templatekit.notebook").register_jupyter()
