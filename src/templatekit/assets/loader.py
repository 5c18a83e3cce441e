"""The one place that fetches assets: remote images, fonts and clips go through ``AssetLoader``.

Templates come from users, so every ``src`` is untrusted. The loader owns the defences
(HTTP-API.md, "Safety limits") so that no other module ever opens a URL:

- schemes: http, https, data, and local files only when ``allow_files`` is set, then
  regular files only, read up to the byte limit, and only inside the folders it names
  (see ``files``);
- addresses: a host must resolve to globally routable addresses only, and the connection
  goes to the address that was checked (no second lookup that DNS rebinding could answer
  differently); every redirect hop is checked again; nothing is sent to a refused address;
- one deadline for the whole download, a byte limit, a pixel limit read from the image
  header before decoding, and SVGs without scripts or external references.
"""

from __future__ import annotations

import copy
import hashlib
import io
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from attrs import field, frozen
from PIL import Image as PILImage
from PIL import UnidentifiedImageError

from templatekit import budget
from templatekit.assets.common import Problem, decode_data_uri, is_svg, megapixels, shown
from templatekit.assets.files import LocalFiles
from templatekit.assets.policy import ALLOW_ENV, AllowList
from templatekit.cache import BoundedCache
from templatekit.errors import AssetError, StorageError

if TYPE_CHECKING:
    from templatekit.storage import Store

ImageFormat = Literal["PNG", "JPEG", "WEBP", "GIF", "SVG"]
SizeHint = tuple[int, int] | None

_RASTER_FORMATS = ("PNG", "JPEG", "WEBP", "GIF")
#: The environment variable naming the asset store (an fsspec URL) of ``asset:ID`` sources.
ASSETS_ENV = "TEMPLATEKIT_ASSETS"
ASSET_ID = re.compile(r"ast_[0-9a-f]{16,64}")


@frozen
class LoadedImage:
    """A decoded image (mode RGB or RGBA) and the bytes it came from. ``key`` names its
    content (and, for SVGs, the size it was drawn at) for the caches of later stages."""

    image: PILImage.Image = field(eq=False)
    format: ImageFormat
    data: bytes = field(eq=False, repr=False)
    key: str


def _scheme(src: str) -> str:
    """The URL scheme, or "" for a plain path (a Windows drive letter is a path)."""
    match = re.match(r"([a-zA-Z][a-zA-Z0-9+.-]*):", src)
    return match.group(1).lower() if match and len(match.group(1)) > 1 else ""


class AssetLoader:
    """Fetches and decodes assets under the safety limits; one instance per process is
    enough and keeps its caches warm. ``allow`` (default: ``TEMPLATEKIT_FETCH_ALLOW``,
    comma-separated host names, IPs or CIDRs) exempts hosts from the address policy.
    ``allow_files``: True reads any local file the process may read, False none, and a
    list of folders only the files inside the template's own folder or one of them.
    ``asset_store`` (a ``Store`` or its fsspec URL; default: ``TEMPLATEKIT_ASSETS``) is
    where ``asset:ID`` sources are read: the file named by the id."""

    def __init__(
        self,
        *,
        allow: Iterable[str] | None = None,
        allow_files: bool | Iterable[str | os.PathLike[str]] = True,
        timeout: float = 10.0,
        max_bytes: int = 20_000_000,
        max_media_bytes: int = 200_000_000,
        max_pixels: int = 50_000_000,
        max_redirects: int = 3,
        asset_store: Store | str | None = None,
    ) -> None:
        entries = os.environ.get(ALLOW_ENV, "").split(",") if allow is None else allow
        self.allow = AllowList.parse(entries)
        self.allow_files = allow_files is not False
        self.local_files = LocalFiles() if isinstance(allow_files, bool) else LocalFiles.within(allow_files)
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_media_bytes = max_media_bytes
        self.max_pixels = max_pixels
        self.max_redirects = max_redirects
        self._asset_store: Store | str | None = os.environ.get(ASSETS_ENV) if asset_store is None else asset_store
        self._asset_exists: Callable[[str], bool] | None = None
        self._partition = ""
        self._downloads: BoundedCache[tuple[str, str], bytes] = BoundedCache(256, name="assets.downloads")
        self._images: BoundedCache[tuple[str, str, SizeHint], LoadedImage] = BoundedCache(128, name="assets.images")
        self._sizes: BoundedCache[tuple[Any, ...], tuple[tuple[int, int] | None]] = BoundedCache(
            4096, name="assets.sizes"
        )

    def with_asset_store(
        self, store: Store | str | None, *, exists: Callable[[str], bool] | None = None, partition: str = ""
    ) -> AssetLoader:
        """This loader, its limits and caches, reading ``asset:ID`` from ``store``: one
        loader per process, a store per render (a server's workspace, say). ``exists``
        says whether an asset is still there, asked at every use: an asset's bytes are
        kept once read, and a deleted one must not be drawn from memory (a server asks
        its database, which every host shares). What the view downloads, decodes and
        measures is kept apart for its ``partition`` (a server's workspace): one tenant
        must not learn, by how fast its render comes back, what another fetched."""
        view = copy.copy(self)
        view._asset_store = store
        view._asset_exists = exists
        view._partition = partition
        return view

    def with_timeout(self, seconds: float) -> AssetLoader:
        """This loader, its limits and caches, waiting at most ``seconds`` for a
        download: for work that must not wait as long as a request may."""
        view = copy.copy(self)
        view.timeout = min(self.timeout, seconds)
        return view

    def fetch(self, src: str, base_dir: Path | None = None) -> bytes:
        """The bytes of ``src``: an http(s) URL, a data URI, or (when files are allowed)
        a path, relative to ``base_dir``, or a file:// URL."""
        return self._guarded(src, base_dir, self.max_bytes)

    def fetch_media(self, src: str, base_dir: Path | None = None) -> bytes:
        """The bytes of a video clip or a sound file, as ``fetch`` gets them but up to
        ``max_media_bytes``. Media files are downloaded here and decoded from memory:
        the decoder never opens a URL itself."""
        return self._guarded(src, base_dir, self.max_media_bytes)

    def _guarded(self, src: str, base_dir: Path | None, limit: int) -> bytes:
        try:
            return self._fetch(src, base_dir, limit)
        except Problem as problem:
            raise AssetError(f"cannot fetch {shown(src)}: {problem}", url=src) from None

    def load_image(self, src: str, base_dir: Path | None = None, *, size_hint: SizeHint = None) -> LoadedImage:
        """``src`` decoded. ``size_hint`` is the box the image will fill, in px: an SVG
        is drawn at twice that size, so that it stays crisp on high-density output."""
        data = self.fetch(src, base_dir)
        digest = hashlib.sha256(data).hexdigest()
        svg = is_svg(data)
        cache_key = (self._partition, digest, size_hint if svg else None)
        loaded = self._images.get(cache_key)
        if loaded is not None:
            budget.hold_image(loaded.image.size, "the image decoded")  # every render that draws it holds it
        else:
            try:
                loaded = self._decode_svg(data, digest, size_hint) if svg else self._decode_raster(data, digest)
            except Problem as problem:
                raise AssetError(f"cannot decode {shown(src)}: {problem}", url=src) from None
            width, height = loaded.image.size
            self._images.put(cache_key, loaded, width * height * len(loaded.image.mode) + len(data))
        return loaded

    def raster_size(self, src: str, base_dir: Path | None = None) -> tuple[int, int] | None:
        """The pixel size of a raster image read from its header, without decoding it;
        None for an SVG or anything that cannot be fetched or read, which ``load_image``
        then reports, except a URL that cannot be downloaded: its AssetError is raised
        here, as trying it again would double the wait. Sizes are kept (a local file's
        with its modification time), so that asking again on every render costs no
        second read of the file."""
        key = self._size_key(src, base_dir)
        kept = None if key is None else self._sizes.get(key)
        if kept is not None:
            return kept[0]
        try:
            data = self.fetch(src, base_dir)
            size = None if is_svg(data) else _open_raster(data).size
        except AssetError:
            if _scheme(src) in ("http", "https"):
                raise
            return None
        except Problem:
            return None
        if key is not None:
            self._sizes.put(key, (size,), 200 + len(key[1]))  # a data URI is its own key
        return size

    def _size_key(self, src: str, base_dir: Path | None) -> tuple[Any, ...] | None:
        scheme = _scheme(src)
        if scheme == "asset":
            # an asset's size is kept for its store (a server's workspace): the same id
            # in another store is another asset, or none, and must not be told apart
            try:
                return (self._partition, f"{self._store(src.removeprefix('asset:')).url}/{src}")
            except Problem:
                return None
        if scheme not in ("", "file"):
            return (self._partition, src)
        try:
            path = self.local_files.locate(src, scheme, base_dir)
            stat = path.stat()
        except (OSError, Problem):
            return None
        return (self._partition, str(path), stat.st_mtime_ns, stat.st_size)

    def _fetch(self, src: str, base_dir: Path | None, limit: int) -> bytes:
        scheme = _scheme(src)
        if scheme in ("http", "https"):
            cached = self._downloads.get((self._partition, src))
            if cached is None:
                from templatekit.assets import network  # imported on first use: it is large

                cached = network.download(
                    src,
                    allow=self.allow,
                    timeout=self.timeout,
                    max_bytes=limit,
                    max_redirects=self.max_redirects,
                )
                self._downloads.put((self._partition, src), cached, len(cached))
            return cached
        if scheme == "data":
            return _checked_size(decode_data_uri(src), limit)
        if scheme == "asset":
            return self._asset(src.removeprefix("asset:"), limit)
        if scheme in ("", "file"):
            if not self.allow_files:
                raise Problem("local files are not allowed here; use an http(s) URL or a data URI")
            return self.local_files.read(src, scheme, base_dir, limit)
        raise Problem(f"the {scheme}: scheme is not supported (use http, https, data or asset)")

    def _asset(self, asset_id: str, limit: int) -> bytes:
        """An uploaded file by its id: read from the asset store once (the id names the
        content, which never changes), then from memory."""
        store = self._store(asset_id)
        cache_key = (self._partition, f"{store.url}/{asset_id}")
        cached = self._downloads.get(cache_key)
        if cached is None:
            try:
                cached = store.get(asset_id)
            except StorageError:
                raise Problem(f"the asset store has no asset {asset_id}") from None
            self._downloads.put(cache_key, cached, len(cached))
        return _checked_size(cached, limit)

    def _store(self, asset_id: str) -> Store:
        """The store holding the asset ``asset_id``, which it must still hold (``exists``)."""
        if not ASSET_ID.fullmatch(asset_id):
            raise Problem("an asset's id is ast_ and hexadecimal digits")
        if self._asset_store is None:
            raise Problem(f"no asset store is set: give AssetLoader(asset_store=…) or {ASSETS_ENV}")
        if isinstance(self._asset_store, str):
            from templatekit.storage import Store  # imported by the first asset: fsspec

            try:
                self._asset_store = Store(self._asset_store)
            except StorageError as exc:
                raise Problem(str(exc)) from None
        if self._asset_exists is not None and not self._asset_exists(asset_id):
            raise Problem(f"the asset store has no asset {asset_id}")
        return self._asset_store

    def _decode_svg(self, data: bytes, digest: str, size_hint: SizeHint) -> LoadedImage:
        from templatekit.assets import svg  # imported on first use: resvg and the XML checks

        image = svg.rasterise(data, size_hint, self.max_pixels)
        return LoadedImage(image, "SVG", data, f"{digest}@{image.width}x{image.height}")

    def _decode_raster(self, data: bytes, digest: str) -> LoadedImage:
        image = _open_raster(data)
        width, height = image.size
        if width * height > self.max_pixels:
            limit = megapixels(self.max_pixels)
            raise Problem(f"the image is {width}x{height} px, more than the {limit} limit")
        budget.hold_image(image.size, "the image decoded")
        try:
            image.load()
            from PIL import ImageOps  # imports the EXIF tables: only when a raster is decoded

            upright = _rgb_or_rgba(ImageOps.exif_transpose(image))
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise Problem(f"the {image.format} data cannot be decoded ({exc})") from None
        return LoadedImage(upright, cast(ImageFormat, image.format), data, digest)  # one of _RASTER_FORMATS


class MemoryAssetLoader(AssetLoader):
    """An ``AssetLoader`` that serves ``fetch`` from a dict of ``src -> bytes``, so that
    tests of templates need neither network nor files. Decoding and limits are real."""

    def __init__(self, files: Mapping[str, bytes], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.files = dict(files)

    def _fetch(self, src: str, base_dir: Path | None, limit: int) -> bytes:
        data = self.files.get(src)
        if data is None:
            raise Problem("not among the files of this MemoryAssetLoader")
        return _checked_size(data, limit)


def _checked_size(data: bytes, limit: int) -> bytes:
    if len(data) > limit:
        raise Problem(f"it is {len(data):,} bytes, more than the {limit:,} byte limit")
    return data


def _open_raster(data: bytes) -> PILImage.Image:
    """The image with only its header read, so that its size can be checked first."""
    try:
        return PILImage.open(io.BytesIO(data), formats=_RASTER_FORMATS)
    except PILImage.DecompressionBombError as exc:
        raise Problem(f"the image has too many pixels ({exc})") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        raise Problem("it is not a PNG, JPEG, WebP, GIF or SVG image") from None


def _rgb_or_rgba(image: PILImage.Image) -> PILImage.Image:
    """RGB, or RGBA when the image has transparency, which is all painters handle."""
    if image.mode in ("RGB", "RGBA"):
        return image
    if image.mode.startswith("I"):
        image = image.convert("I").point(lambda value: value * (1 / 256)).convert("L")
    return image.convert("RGBA" if image.has_transparency_data else "RGB")
