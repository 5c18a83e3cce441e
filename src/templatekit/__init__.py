"""templatekit: render design templates into images, PDFs and videos.

>>> import templatekit as tk
>>> tpl = tk.load_template("examples/templates/social-card.json")
>>> tk.render_image(tpl, {"title": "Hello"}).save("card.png")
"""

from templatekit.apply import Applied, apply, normalize
from templatekit.assets import AssetLoader, MemoryAssetLoader
from templatekit.batch import BatchItem, render_many
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
from templatekit.loading import load_template
from templatekit.model.modification import Modification
from templatekit.model.template import Template
from templatekit.notebook import preview, register_jupyter
from templatekit.render import Prepared, prepare, render_image, render_pdf, render_video
from templatekit.result import RenderResult
from templatekit.scene import Scene
from templatekit.storage import Store

__all__ = [
    "Applied",
    "AssetError",
    "AssetLoader",
    "BatchItem",
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
    "apply",
    "describe",
    "load_template",
    "normalize",
    "prepare",
    "preview",
    "render_image",
    "render_many",
    "render_pdf",
    "render_video",
]

__version__ = "0.1.0"

register_jupyter()
