"""The PNG writer: exact round trips, the row filter it chooses (none for designs, Up for
photos), and files no larger than Pillow's own for either."""

from __future__ import annotations

import io
import random
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

import templatekit as tk
from templatekit.outputs import png
from templatekit.outputs.png import write_png
from tests.conftest import layer, template


def filters(data: bytes) -> set[int]:
    """The filter byte of every row, read back from the deflated image data."""
    decoded = Image.open(io.BytesIO(data))
    row = decoded.width * len(decoded.mode) + 1
    idat, position = b"", 8
    while position < len(data):
        length = int.from_bytes(data[position : position + 4], "big")
        if data[position + 4 : position + 8] == b"IDAT":
            idat += data[position + 8 : position + 8 + length]
        position += 12 + length
    rows = zlib.decompress(idat)
    return {rows[start] for start in range(0, len(rows), row)}


PHOTO = Path(__file__).parents[2] / "examples" / "templates" / "assets" / "product.jpg"


def photo(size: tuple[int, int] | None = None) -> Image.Image:
    """The example's product photo (1600 x 1000), or as much of it as ``size``."""
    image = Image.open(PHOTO).convert("RGB")
    return image if size is None else image.crop((600, 300, 600 + size[0], 300 + size[1]))


def design() -> Image.Image:
    """A card of flat colour and text, rendered."""
    card = template(
        layer("shape", "band", x=0, y=0, width=400, height=80, fill="#4338ca"),
        layer("text", "title", x=20, y=100, width=360, height=150, text="Flat colour and text " * 4, size=28),
        width=400,
        height=300,
        background="#f8fafc",
    )
    return Image.open(io.BytesIO(tk.render_image(card).data)).convert("RGB")


def pillow_size(image: Image.Image) -> int:
    out = io.BytesIO()
    image.save(out, "PNG")
    return len(out.getvalue())


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
@pytest.mark.parametrize("size", [(1, 1), (7, 1), (1, 9), (123, 45), (40, 90), (17000, 3)])
def test_png_writer_round_trips_exactly(mode, size):
    """Rows wider than Pillow's 64 KiB encoding block too (17,000 RGBA pixels)."""
    rng = random.Random(size[0] * 1000 + size[1])
    for image in (Image.frombytes(mode, size, rng.randbytes(size[0] * size[1] * len(mode))), photo(size).convert(mode)):
        decoded = Image.open(io.BytesIO(write_png(image)))
        assert decoded.mode == mode and decoded.size == size
        assert decoded.tobytes() == image.tobytes()


def test_a_design_is_written_unfiltered_a_photo_with_up_each_no_larger_than_pillow_writes_it():
    """A design deflates best unfiltered (a quarter smaller than Pillow writes it here), a
    photo with Up (as small as Pillow's filter chosen row by row)."""
    for image, kind, most in ((design(), 0, 0.8), (photo(), 2, 1.0)):
        data = write_png(image)
        assert filters(data) == {kind}
        assert Image.open(io.BytesIO(data)).convert("RGB").tobytes() == image.tobytes()
        assert len(data) <= most * pillow_size(image)


def test_an_opaque_image_may_be_written_without_its_alpha():
    opaque = Image.new("RGBA", (300, 200), (10, 20, 30, 255))
    ImageDraw.Draw(opaque).ellipse((20, 20, 200, 180), fill=(200, 100, 0, 255))
    decoded = Image.open(io.BytesIO(write_png(opaque, drop_alpha=True)))
    assert decoded.mode == "RGB" and decoded.tobytes() == opaque.convert("RGB").tobytes()


def test_png_writer_refuses_other_modes():
    with pytest.raises(ValueError, match="RGB or RGBA"):
        write_png(Image.new("L", (2, 2)))


def test_a_photo_is_told_from_a_design_and_one_row_is_neither():
    """A band of photo a few sampling steps tall is seen as smooth, a rendered design is
    not, and a single row has no row above it to tell."""
    assert not png._smooth(memoryview(b"\x00" * 30), 30, 1)
    assert png._smooth(memoryview(photo((200, 64)).tobytes()), 600, 64)
    assert not png._smooth(memoryview(design().tobytes()), 1200, 300)


def test_threads_and_images_larger_than_the_kept_buffer_round_trip(monkeypatch):
    """Buffers of rows are kept and reused from image to image: images written at once
    on several threads, and in turn larger, smaller and larger than the buffers kept,
    all come back exactly, and no more than two buffers are kept."""
    rng = random.Random(3)
    images = [Image.frombytes("RGB", (w, h), rng.randbytes(w * h * 3)) for w, h in ((300, 200), (40, 30), (500, 90))]
    monkeypatch.setattr(png, "REUSED", 300 * 200 * 3 + 200)  # the third image is not kept

    def round_trip(image: Image.Image) -> bool:
        return Image.open(io.BytesIO(write_png(image))).tobytes() == image.tobytes()

    assert all(round_trip(image) for image in images * 2)
    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(round_trip, images * 8))
    assert len(png._SPARES) <= png.SPARES


def test_an_image_read_from_a_file_is_written():
    """An image opened from a file is decoded only when its pixels are first asked for."""
    image = photo((64, 48))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    opened = Image.open(io.BytesIO(buffer.getvalue()))
    assert Image.open(io.BytesIO(write_png(opened))).tobytes() == image.tobytes()
