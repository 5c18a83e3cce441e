"""Animated images of a video template, looping: GIF, written frame by frame through
FFmpeg's muxer (PyAV) as the video writers are, or put together by ``gif_file`` when it
has see-through pixels (``SeeThroughGifWriter``), and WebP, its frames encoded in
parallel (see ``WebpWriter``).

GIF has 256 colours a frame. The palette is one for the whole animation: 255 colours
chosen by Pillow's fast octree from frames taken across it before the first is written
(``learn``: frames spread evenly, and those of each layer's time on screen and each
keyframe, ``palette_moments``), and a transparent one. Where the octree finds few
colours (a smooth gradient falls in few of its cubes) median cut chooses them instead.
The same colour is the same index in every frame, so still areas do not flicker, and
FFmpeg's encoder writes each frame as the rectangle that changed, with the pixels that
did not in the transparent colour. Each frame is mapped to
the nearest colours after a light ordered (8×8 Bayer) dither, or without one (``dither:
false``): an ordered dither depends on the pixel's place only, so a pixel that does not
change keeps its index from frame to frame. Measured on the promo's frames (640×360,
75 frames, ``benchmarks/animated.py``), against FFmpeg's palettegen + paletteuse at
their defaults (one palette, Sierra error diffusion: 40.2 dB PSNR in 3.4 MB): the
refined octree palette gives 40.5 dB in 1.0 MB without dither, but bands in gradients;
with this dither 38.8 dB in 1.1 MB, bands gone. Median cut gave 2 dB less and took 13
times as long; Floyd–Steinberg diffusion spreads each change along the row and made the
file 2.4 times as large. A palette of each frame's own would fit each frame better,
but flickers where the video is still and stores 768 bytes more per frame."""

from __future__ import annotations

import io
import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import av
import cv2
import numpy as np
from attrs import frozen
from PIL import Image as PILImage

from templatekit.model.layers import Layer
from templatekit.model.template import GifSettings, WebpSettings
from templatekit.paint.resample import shrunk
from templatekit.video.encode import AvWriter, unpremultiplied
from templatekit.video.gif_file import SEE_THROUGH, SeeThroughGifFile, image_block
from templatekit.video.timeline import Timeline
from templatekit.video.webp_file import AnimatedWebpFile, picture_chunks

#: libwebp's method for each WebP frame (0 fastest, 6 smallest): 1 takes what 0 does, for
#: a tenth less; 2 a third longer for a tenth less again
WEBP_METHOD = 1
#: how far (in pixels) a lossy WebP frame's changes blur into the pixels around them
#: (its 16-pixel blocks, chroma at half size, and the filter across their edges)
BLEED = 16
#: the share of a WebP frame's rectangle that changed from which it is encoded whole,
#: not laid over the frame before (the promo's moving photo changes 93% of it; with the
#: alpha that would keep the rest, its WebP took half as long again)
MOSTLY_CHANGED = 0.75
#: threads encoding WebP frames
ENCODERS = max(1, min(4, os.cpu_count() or 1))
#: frames the GIF palette is learnt from, spread over the animation
PALETTE_SAMPLES = 12
#: frames it is learnt from at most, with those where the spread ones could miss a colour
MAX_PALETTE_SAMPLES = 40
#: colours of the octree's palette below which it is taken to have fitted the frames
#: poorly (a smooth gradient falls in a few of its cubes: 27 colours for a full-frame
#: one), and median cut, which splits where the pixels are, is tried instead
FEW_COLOURS = 192
#: rounds of k-means that move the octree's colours to the pixels' (more gained nothing)
REFINE_ROUNDS = 4
#: how far the ordered dither moves a colour (in levels of 255) each way: enough to
#: break the bands of gradients, little enough to keep the PSNR within 2 dB of FFmpeg's
DITHER_SPREAD = 3.0


def _bayer(size: int) -> np.ndarray:
    """The Bayer threshold matrix of ``size`` (a power of two), in [-0.5, 0.5)."""
    matrix = np.zeros((1, 1))
    while matrix.shape[0] < size:
        matrix = np.block([[4 * matrix, 4 * matrix + 2], [4 * matrix + 3, 4 * matrix + 1]])
    return matrix / matrix.size - 0.5


BAYER = _bayer(8)


def _refined(palette: PILImage.Image, pixels: PILImage.Image, rounds: int = REFINE_ROUNDS) -> np.ndarray:
    """The palette's colours moved to the mean of the pixels nearest to each (Lloyd's
    rounds of k-means): octree's colours are the centres of its cubes, not of the
    pixels in them (+1.3 dB on the promo)."""
    flat = np.asarray(pixels).reshape(-1, 3).astype(np.float64)
    colours = np.array((palette.getpalette() or [])[: 255 * 3], np.float64).reshape(-1, 3)
    for _ in range(rounds):
        nearest = np.asarray(pixels.quantize(palette=palette, dither=PILImage.Dither.NONE)).ravel()
        counts = np.bincount(nearest, minlength=len(colours))[: len(colours)]
        sums = np.stack([np.bincount(nearest, flat[:, c], len(colours))[: len(colours)] for c in range(3)], axis=1)
        colours = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], colours)
        palette = PILImage.new("P", (1, 1))
        palette.putpalette(np.rint(colours).astype(np.uint8).ravel().tolist())
    return np.rint(colours).astype(np.uint8)


def _distinct(palette: PILImage.Image) -> int:
    """How many different colours a quantized image's palette holds."""
    return len(set(zip(*[iter((palette.getpalette() or [])[: 255 * 3])] * 3, strict=True)))


def palette_moments(layers: Sequence[Layer], timeline: Timeline, frames: int, fps: int) -> list[float]:
    """The moments of the frames the GIF palette is learnt from: PALETTE_SAMPLES spread
    over the animation, and those where a colour could be on screen between them: the
    middle of each layer's time on screen, each keyframe, the last frame (an end card)."""
    spread = [n * frames / PALETTE_SAMPLES for n in range(PALETTE_SAMPLES)]
    missed: list[float] = [frames - 1]
    for layer in _every_layer(layers):
        start, end = timeline.window(layer)
        missed.append((start + end) / 2 * fps)
        for animation in layer.animations:
            missed.extend((start + animation.delay + key.time) * fps for key in animation.keyframes)
    chosen = spread + missed[: MAX_PALETTE_SAMPLES - PALETTE_SAMPLES]
    return [index / fps for index in sorted({min(frames - 1, max(0, round(frame))) for frame in chosen})]


def _every_layer(layers: Sequence[Layer]) -> Iterator[Layer]:
    for layer in layers:
        yield layer
        yield from _every_layer(getattr(layer, "layers", ()))


def scaled_size(width: int, height: int, most: int) -> tuple[int, int]:
    """The size at most ``most`` wide, keeping the ratio."""
    if width <= most:
        return width, height
    return most, max(1, round(height * most / width))


class GifColours:
    """The one palette of a GIF animation, learnt from frames across it, and each frame's
    pixels mapped to it, at the GIF's size; see-through pixels (under half covered) are
    left out of both and given the transparent index, when ``see_through``."""

    def __init__(self, width: int, height: int, settings: GifSettings, see_through: bool) -> None:
        self.source_size = (width, height)
        self.width, self.height = scaled_size(width, height, settings.width)
        self.see_through = see_through
        self.palette = PILImage.new("P", (1, 1))
        self.colours = np.zeros((0, 3), np.uint8)
        self._offsets: np.ndarray | None = None
        if settings.dither:  # the threshold of every pixel, tiled over the frame once
            tiles = (self.height // 8 + 1, self.width // 8 + 1)
            offsets = np.tile(BAYER * DITHER_SPREAD * 2, tiles)[: self.height, : self.width]
            self._offsets = np.repeat(offsets[:, :, None], 3, axis=2).astype(np.float32)

    def _pixels(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The frame's colours at the GIF's size, and where it is not see-through (None
        for an opaque GIF: laid over black, as the frames are painted)."""
        if (self.width, self.height) != self.source_size:
            frame = shrunk(frame, (self.width, self.height))
        if not self.see_through:
            return cv2.cvtColor(frame, cv2.COLOR_RGBA2RGB), None
        straight = unpremultiplied(frame)  # an edge's colour, not its colour over black
        return np.ascontiguousarray(straight[:, :, :3]), straight[:, :, 3] >= 128

    def learn(self, frames: Iterable[np.ndarray]) -> None:
        """The palette, from painted frames spread over the animation, each made the
        GIF's size as it comes (forty frames of a 4K canvas would take 1.4 GB)."""
        shown = [rgb if where is None else rgb[where][:, None] for rgb, where in map(self._pixels, frames)]
        mosaic = np.concatenate(shown) if shown else np.zeros((0, 1, 3), np.uint8)
        if not mosaic.size:  # nothing but see-through pixels
            mosaic = np.zeros((1, 1, 3), np.uint8)
        sample = PILImage.fromarray(np.ascontiguousarray(mosaic[::2, ::2] if mosaic.shape[1] > 1 else mosaic[::4]))
        palette = PILImage.fromarray(mosaic).quantize(255, method=PILImage.Quantize.FASTOCTREE)
        if _distinct(palette) < FEW_COLOURS:
            median = sample.quantize(255, method=PILImage.Quantize.MEDIANCUT)
            palette = max(palette, median, key=_distinct)
        self.colours = _refined(palette, sample)
        self.palette = PILImage.new("P", (1, 1))
        self.palette.putpalette(self.colours.ravel().tolist())

    def indices(self, frame: np.ndarray) -> np.ndarray:
        """The frame's pixels as indices of the palette (``SEE_THROUGH`` where they are)."""
        rgb, where = self._pixels(frame)
        if self._offsets is not None:
            rgb = cv2.add(rgb, self._offsets, dtype=cv2.CV_8U)  # saturating, in place of numpy's clip
        mapped = np.asarray(PILImage.fromarray(rgb).quantize(palette=self.palette, dither=PILImage.Dither.NONE))
        if where is not None:
            mapped = np.where(where, mapped, SEE_THROUGH).astype(np.uint8)
        return mapped


class GifWriter(AvWriter):
    """An opaque GIF, by FFmpeg's encoder: each frame stores the rectangle that changed,
    its pixels that did not in the transparent colour."""

    FORMAT = "gif"

    def __init__(self, path: str | os.PathLike[str], width: int, height: int, fps: int, settings: GifSettings) -> None:
        self.colours = GifColours(width, height, settings, see_through=False)
        self._argb = np.zeros((256, 4), np.uint8)
        super().__init__(path, self.colours.width, self.colours.height, fps)

    def container_options(self) -> dict[str, str]:
        return {"loop": "0"}  # for ever

    def video_stream(self) -> Any:
        video = self._container.add_stream("gif", rate=self.fps)
        video.width, video.height = self.width, self.height
        video.pix_fmt = "pal8"
        return video

    def learn(self, frames: Iterable[np.ndarray]) -> None:
        self.colours.learn(frames)
        colours = self.colours.colours
        self._argb[: len(colours), 0] = 255
        self._argb[: len(colours), 1:] = colours  # the last is left transparent, for unchanged pixels

    def convert(self, frame: np.ndarray) -> Any:
        return self.colours.indices(frame)

    def video_frame(self, converted: Any) -> av.VideoFrame:
        # pal8 takes the indices and the palette as a pair (PyAV's stubs know one array)
        return av.VideoFrame.from_ndarray((converted, self._argb), format="pal8")  # type: ignore[arg-type]


class SeeThroughGifWriter:
    """A GIF with see-through pixels where the template has them (one bit: a pixel under
    half covered is see-through), put together by ``gif_file``; a frame that is the one
    before again is one frame shown longer. A frame after one that was kept holds only
    the box of the pixels that changed, the others in it see-through (they show what is
    there); a frame is kept unless a pixel it draws becomes see-through in the next."""

    def __init__(self, path: str | os.PathLike[str], width: int, height: int, fps: int, settings: GifSettings) -> None:
        self.colours = GifColours(width, height, settings, see_through=True)
        self.width, self.height, self.fps = self.colours.width, self.colours.height, fps
        self._path = path
        self._file: SeeThroughGifFile | None = None
        self._waiting: tuple[np.ndarray, int] | None = None  # a frame, and for how many it is shown
        self._shown = 0
        self._on_screen: np.ndarray | None = None  # what the last frame written leaves, None: nothing

    def learn(self, frames: Iterable[np.ndarray]) -> None:
        self.colours.learn(frames)
        self._file = SeeThroughGifFile(self._path, self.width, self.height, self.colours.colours)

    def convert(self, frame: np.ndarray) -> np.ndarray:
        return self.colours.indices(frame)

    def add(self, indices: np.ndarray) -> None:
        if self._waiting is not None and np.array_equal(self._waiting[0], indices):
            self._waiting = (indices, self._waiting[1] + 1)
            return
        self._write_waiting(indices)
        self._waiting = (indices, 1)

    def _write_waiting(self, following: np.ndarray | None) -> None:
        """Write the waiting frame, knowing the one that ``follows`` it (None: the first,
        as the animation loops)."""
        if self._waiting is None:
            return
        assert self._file is not None, "learn the palette first"
        indices, shown = self._waiting
        drawn = indices != SEE_THROUGH
        # cleared after, unless nothing it draws becomes see-through: then it is kept
        cleared = following is None or bool((drawn & (following == SEE_THROUGH)).any())
        if self._on_screen is None:  # on a cleared screen: all it draws
            block, changed = indices, drawn
        else:  # over the frame before: what changed, the rest see-through (it shows through)
            changed = indices != self._on_screen
            block = np.where(changed, indices, SEE_THROUGH).astype(np.uint8)
        y0, x0, y1, x1 = _box(changed | drawn if cleared else changed)  # a clearing box holds all drawn
        start, end = round(self._shown * 100 / self.fps), round((self._shown + shown) * 100 / self.fps)
        image = image_block(block[y0:y1, x0:x1], self.colours.palette, x0, y0)
        self._file.add(image, end - start, cleared)
        self._shown += shown
        self._on_screen = None if cleared else indices

    def close(self) -> None:
        self._write_waiting(None)
        assert self._file is not None, "learn the palette first"
        self._file.close()

    def abort(self) -> None:
        if self._file is not None:
            self._file.abort()


def _box(pixels: np.ndarray) -> tuple[int, int, int, int]:
    """The box (top, left, bottom, right) of the true ``pixels``; one pixel when none is."""
    rows, columns = np.flatnonzero(pixels.any(axis=1)), np.flatnonzero(pixels.any(axis=0))
    if not len(rows):
        return 0, 0, 1, 1
    return int(rows[0]), int(columns[0]), int(rows[-1]) + 1, int(columns[-1]) + 1


@frozen
class _Frame:
    """An animated WebP's frame: its picture's chunks, where they go, whether they are laid
    over the frame before."""

    picture: bytes
    x: int
    y: int
    blend: bool


class WebpWriter:
    """Animated WebP, lossy at ``quality`` (with its alpha when the frames have one) or
    lossless. Each frame stores only the rectangle that changed since the frame before
    (found exactly, so nothing drifts), encoded as a still by libwebp (through Pillow) on
    a pool of threads, so that frames are encoded in parallel; a frame that is the one
    before again is one frame shown longer. The file is put together by ``webp_file``.

    Opaque frames leave the pixels of their rectangle that did not change see-through
    (alpha, kept exactly), laid over the frame before, as libwebp's own animation encoder
    does: encoded lossily, those pixels would take on the blur of what moves beside them
    and keep it, a trail left where a title has passed. Frames with an alpha of their
    own replace their rectangle, a see-through pixel being one of theirs."""

    def __init__(
        self, path: str | os.PathLike[str], width: int, height: int, fps: int, settings: WebpSettings, alpha: bool
    ) -> None:
        self.width, self.height, self.fps = width, height, fps
        self.settings = settings
        self.alpha = alpha
        self._file = AnimatedWebpFile(path, width, height, alpha)
        self._encoders = ThreadPoolExecutor(max_workers=ENCODERS, thread_name_prefix="templatekit-webp")
        self._queued: deque[tuple[Future[_Frame], int]] = deque()  # a frame, and for how many it is shown
        self._previous: np.ndarray | None = None
        self._shown = 0  # frames written or queued

    def convert(self, frame: np.ndarray) -> np.ndarray:
        return unpremultiplied(frame) if self.alpha else np.ascontiguousarray(frame[:, :, :3])

    def add(self, pixels: np.ndarray) -> None:
        """The next frame; one that looks as the one before lengthens that frame."""
        box = (0, 0, self.width, self.height) if self._previous is None else _changed(self._previous, pixels)
        if box is None:
            self._lengthen()
            return
        previous, self._previous = self._previous, pixels
        self._queued.append((self._encoders.submit(self._encoded, previous, pixels, box), 1))
        while len(self._queued) > 2 * ENCODERS:  # the rest wait their turn, not in memory
            self._write_first()

    def _lengthen(self) -> None:
        frame, shown = self._queued.pop()
        self._queued.append((frame, shown + 1))

    def _encoded(self, previous: np.ndarray | None, pixels: np.ndarray, box: tuple[int, int, int, int]) -> _Frame:
        """The frame's rectangle encoded, where it goes, and whether it is laid over the
        frame before."""
        shown = None
        if previous is not None and not self.alpha:
            box, shown = _changed_around(previous, pixels, box, 0 if self.settings.lossless else BLEED)
            if cv2.countNonZero(shown) >= MOSTLY_CHANGED * shown.size:  # encoded whole: quicker than its alpha
                shown = None
        x0, y0, x1, y1 = box
        patch = pixels[y0:y1, x0:x1]
        image = PILImage.fromarray(np.ascontiguousarray(patch), "RGBA" if self.alpha else "RGB")
        if shown is not None:
            image.putalpha(PILImage.fromarray(shown))
        encoded = io.BytesIO()
        settings = self.settings
        # exact: the colours under see-through pixels are the picture's own, so that what
        # changed is not blurred towards the black libwebp would put there
        image.save(
            encoded, "WEBP", lossless=settings.lossless, quality=settings.quality, method=WEBP_METHOD, exact=True
        )
        return _Frame(picture_chunks(encoded.getvalue()), x0, y0, blend=shown is not None)

    def _write_first(self) -> None:
        future, shown = self._queued.popleft()
        frame = future.result()
        start, end = round(self._shown * 1000 / self.fps), round((self._shown + shown) * 1000 / self.fps)
        self._file.add(frame.picture, end - start, frame.x, frame.y, frame.blend)
        self._shown += shown

    def close(self) -> None:
        while self._queued:
            self._write_first()
        self._encoders.shutdown()
        self._file.close()

    def abort(self) -> None:
        self._encoders.shutdown(cancel_futures=True)
        self._file.abort()


def _changed(before: np.ndarray, after: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1) of the pixels that differ, its corner on even pixels (as a
    WebP frame's offset must be); None when none does."""
    differs = (before != after).reshape(before.shape[0], -1)  # a row of every channel of every pixel
    rows = np.flatnonzero(differs.any(axis=1))
    if not len(rows):
        return None
    across = differs[rows[0] : rows[-1] + 1].any(axis=0).reshape(before.shape[1], -1)
    columns = np.flatnonzero(across.any(axis=1))
    return int(columns[0]) & ~1, int(rows[0]) & ~1, int(columns[-1]) + 1, int(rows[-1]) + 1


_SUM_OF_CHANNELS = np.ones((1, 3), np.float32)


def _changed_around(
    before: np.ndarray, after: np.ndarray, box: tuple[int, int, int, int], reach: int
) -> tuple[tuple[int, int, int, int], np.ndarray]:
    """The box of the pixels that differ, and those within ``reach`` of them, grown from
    ``box`` (corner on even pixels), and which of its pixels those are (255, else 0)."""
    height, width = after.shape[:2]
    x0, y0, x1, y1 = box
    x0, y0 = max(0, x0 - reach) & ~1, max(0, y0 - reach) & ~1
    x1, y1 = min(width, x1 + reach), min(height, y1 + reach)
    # the sum of the channels' differences (saturated), by OpenCV: five times numpy's any()
    summed = cv2.transform(cv2.absdiff(before[y0:y1, x0:x1], after[y0:y1, x0:x1]), _SUM_OF_CHANNELS)
    changed = cv2.threshold(summed, 0, 255, cv2.THRESH_BINARY)[1]
    if reach:
        changed = cv2.dilate(changed, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
    return (x0, y0, x1, y1), changed
