"""``asset:ID`` sources: files read by their id from the asset store a loader is given
(a ``Store``, an fsspec URL, or ``TEMPLATEKIT_ASSETS``), cached by content, and an error
naming the id when there is no store or no such asset."""

from __future__ import annotations

import io

import pytest
from PIL import Image

import templatekit as tk
from templatekit import AssetError, AssetLoader, Store
from tests.conftest import decode, template

ASSET = "ast_" + "ab" * 20


def red_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (220, 30, 30)).save(out, "PNG")
    return out.getvalue()


def photo() -> dict:
    layer = {"type": "image", "name": "photo", "x": 0, "y": 0, "width": 40, "height": 30, "src": f"asset:{ASSET}"}
    return template(layer, width=40, height=30, background="#ffffff")


def test_an_asset_is_read_from_the_store_given_and_kept(tmp_path):
    store = Store(tmp_path.as_uri())
    store.put(ASSET, red_png())
    loader = AssetLoader(asset_store=store)
    assert decode(tk.render_image(photo(), assets=loader).data).convert("RGB").getpixel((20, 15)) == (220, 30, 30)
    (tmp_path / ASSET).unlink()  # the id names the content: read once
    assert decode(tk.render_image(photo(), assets=loader).data).convert("RGB").getpixel((20, 15)) == (220, 30, 30)
    other = loader.with_asset_store(Store((tmp_path / "elsewhere").as_uri()))  # another workspace's store
    with pytest.raises(AssetError, match=f"the asset store has no asset {ASSET}"):
        tk.render_image(photo(), assets=other)


def test_an_asset_said_to_be_gone_is_not_drawn_from_what_was_kept(tmp_path):
    store = Store(tmp_path.as_uri())
    store.put(ASSET, red_png())
    there = {ASSET}
    loader = AssetLoader().with_asset_store(store, exists=there.__contains__)
    assert decode(tk.render_image(photo(), assets=loader).data).convert("RGB").getpixel((20, 15)) == (220, 30, 30)
    there.clear()  # deleted: its bytes are still kept, and not used
    with pytest.raises(AssetError, match=f"the asset store has no asset {ASSET}"):
        tk.render_image(photo(), assets=loader)


def test_an_assets_size_is_known_only_where_it_is(tmp_path):
    """Sizes are kept without the bytes (for "hug" and the memory budget): another store,
    or the same one after a delete, learns nothing from them."""
    store = Store(tmp_path.as_uri())
    store.put(ASSET, red_png())
    there = {ASSET}
    loader = AssetLoader().with_asset_store(store, exists=there.__contains__)
    assert loader.raster_size(f"asset:{ASSET}") == (40, 30)
    elsewhere = loader.with_asset_store(Store((tmp_path / "elsewhere").as_uri()))
    assert elsewhere.raster_size(f"asset:{ASSET}") is None
    there.clear()
    assert loader.raster_size(f"asset:{ASSET}") is None


def test_the_store_comes_from_an_fsspec_url_or_the_environment(tmp_path, monkeypatch):
    (tmp_path / ASSET).write_bytes(red_png())
    by_url = AssetLoader(asset_store=tmp_path.as_uri())
    assert decode(tk.render_image(photo(), assets=by_url).data).size == (40, 30)
    monkeypatch.setenv("TEMPLATEKIT_ASSETS", tmp_path.as_uri())
    assert decode(tk.render_image(photo(), assets=AssetLoader()).data).size == (40, 30)


def test_without_a_store_or_with_a_bad_id_the_error_names_it(monkeypatch):
    monkeypatch.delenv("TEMPLATEKIT_ASSETS", raising=False)
    with pytest.raises(AssetError, match=f"asset:{ASSET}.*no asset store is set: give AssetLoader"):
        tk.render_image(photo(), assets=AssetLoader())
    bad = photo()
    bad["layers"][0]["src"] = "asset:../secret"
    with pytest.raises(AssetError, match="an asset's id is ast_ and hexadecimal digits"):
        tk.render_image(bad, assets=AssetLoader(asset_store="memory://x"))
