"""The public names are few and deliberate: this test pins them."""

import templatekit as tk


def test_exported_names():
    assert tk.__all__ == sorted(tk.__all__)
    assert tk.__all__ == [
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
    assert all(hasattr(tk, name) for name in tk.__all__)


def test_error_hierarchy():
    for error in (tk.TemplateError, tk.ModificationError, tk.AssetError, tk.RenderError, tk.StorageError):
        assert issubclass(error, tk.TemplatekitError)
