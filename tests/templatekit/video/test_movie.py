"""Video templates to MP4: every check decodes the file that was written, with PyAV."""

from __future__ import annotations

import io
import math
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import cv2
import numpy as np
import pytest
from PIL import Image

import templatekit as tk
from templatekit.model.values import Color
from templatekit.video.easing import easing_function
from templatekit.video.timeline import Timeline
from tests.conftest import decode, layer, template

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "templates"
PROMO = EXAMPLES / "promo-video.json"


# ------------------------------------------------------------------ helpers


def video(*layers: dict[str, Any], duration: float = 1.0, fps: int = 30, **fields: Any) -> dict[str, Any]:
    fields.setdefault("background", "#000000")
    return template(*layers, video={"duration": duration, "fps": fps}, **fields)


def probe(data: bytes) -> dict[str, Any]:
    """What a player sees in the MP4: its streams and every frame, decoded."""
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        info = {
            "codec": stream.codec_context.name,
            "profile": stream.codec_context.profile,
            "pix_fmt": stream.codec_context.format.name,
            "size": (stream.width, stream.height),
            "fps": stream.average_rate,
            "audio": [(a.codec_context.name, a.rate, a.layout.name) for a in container.streams.audio],
        }
        info["frames"] = [frame.to_image() for frame in container.decode(stream)]
    return info


def gray_level(image: Image.Image, box: tuple[int, int, int, int]) -> float:
    return float(np.asarray(image.convert("L").crop(box)).mean())


def make_clip(path: Path, frames: int, fps: int, size: tuple[int, int] = (160, 90), tone: bool = False) -> None:
    """A clip whose frame i is a flat gray of 16 + 8 i (nearly lossless), with a 440 Hz
    tone when asked."""
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=fps, options={"qp": "0", "preset": "ultrafast"})
        stream.width, stream.height = size
        stream.pix_fmt = "yuv444p"
        audio = container.add_stream("aac", rate=48000, layout="stereo") if tone else None
        for index in range(frames):
            level = 16 + 8 * index
            frame = av.VideoFrame.from_image(Image.new("RGB", size, (level, level, level)))
            frame.pts = index
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))
        if audio is not None:
            write_tone(container, audio, frames / fps)


def make_tone(path: Path, seconds: float) -> None:
    """A 440 Hz tone, as a music file (AAC in MP4, no pictures)."""
    with av.open(str(path), mode="w", format="mp4") as container:
        audio = container.add_stream("aac", rate=48000)
        audio.layout = "stereo"
        write_tone(container, audio, seconds)


def write_tone(container: Any, audio: Any, seconds: float) -> None:
    """``seconds`` of a 440 Hz tone into the ``audio`` stream (48 kHz stereo) of ``container``."""
    total = round(seconds * 48000)
    wave = (0.5 * np.sin(2 * math.pi * 440 * np.arange(total) / 48000)).astype(np.float32)
    for start in range(0, total, 1024):
        chunk = np.ascontiguousarray(np.stack([wave[start : start + 1024]] * 2))
        sound = av.AudioFrame.from_ndarray(chunk, format="fltp", layout="stereo")
        sound.sample_rate, sound.pts = 48000, start
        container.mux(audio.encode(sound))
    container.mux(audio.encode(None))


def decoded_sound(data: bytes) -> np.ndarray:
    with av.open(io.BytesIO(data)) as container:
        chunks = [frame.to_ndarray() for frame in container.decode(audio=0)]
    return np.concatenate(chunks, axis=1)


# ------------------------------------------------------------------ the file


@pytest.mark.slow  # renders the 5 s 720p promo
def test_promo_is_h264_high_yuv420p_at_constant_rate_with_the_index_first():
    result = tk.render_video(PROMO)
    assert result.media_type == "video/mp4" and result.warnings == ()
    info = probe(result.data)
    assert info["codec"] == "h264" and info["profile"] == "High" and info["pix_fmt"] == "yuv420p"
    assert info["size"] == (1280, 720) == (result.width, result.height)
    assert info["fps"] == 30
    assert len(info["frames"]) == 5 * 30
    assert info["audio"] == []
    assert result.data.index(b"moov") < result.data.index(b"mdat")  # +faststart
    with av.open(io.BytesIO(result.data)) as container:  # constant frame rate: frame n at n / 30 s
        stream = container.streams.video[0]
        times = [packet.pts * stream.time_base for packet in container.demux(stream) if packet.pts is not None]
    assert sorted(times) == [Fraction(n, 30) for n in range(150)]


@pytest.mark.parametrize("background", ["#ff0000", {"from": "#ff0000", "to": "#ff0000", "angle": 90}])
def test_odd_sides_are_made_even_with_the_background(background):
    result = tk.render_video(video(width=401, height=201, background=background))
    info = probe(result.data)
    assert info["size"] == (402, 202)
    assert info["frames"][0].getpixel((401, 201))[0] > 200  # the added column and row are background


@pytest.mark.parametrize("height", [200, 202])  # its half even, and odd
def test_the_bottom_rows_of_a_frame_reach_the_mp4(height):
    """A frame of any even height is encoded whole: its bottom rows keep their colour
    (the frame handed to the encoder holds the painted planes, not 2 rows fewer)."""
    layers = [layer("shape", "band", x=0, y=height - 4, width=300, height=4, fill="#00c000")]
    frame = probe(tk.render_video(video(*layers, width=300, height=height, duration=0.1)).data)["frames"][0]
    assert frame.size == (300, height)
    red, green, blue = frame.getpixel((150, height - 1))
    assert green > 150 and red < 60 and blue < 60, (red, green, blue)


@pytest.mark.parametrize("format", ["gif", "webp"])
def test_animated_images_keep_odd_sides(format):
    result = tk.render_video(video(width=41, height=21, background="#ff0000"), format=format)
    assert (result.width, result.height) == (41, 21) == Image.open(io.BytesIO(result.data)).size


@pytest.mark.parametrize("format", ["mp4", "webm"])
def test_frames_are_tagged_with_the_matrix_they_are_converted_with(format):
    # untagged, an HD video's matrix is taken by many players to be BT.709: #00c000 showed as #00a300
    colours = {"#00c000": (0, 192, 0), "#ff0000": (255, 0, 0), "#fbbf24": (251, 191, 36)}
    boxes = [layer("shape", name, x=n * 320, y=0, width=320, height=720, fill=name) for n, name in enumerate(colours)]
    result = tk.render_video(video(*boxes, width=1280, height=720, duration=0.2, fps=10), format=format)
    with av.open(io.BytesIO(result.data)) as container:
        stream = container.streams.video[0]
        context = stream.codec_context
        tags = (context.colorspace, context.color_range, context.color_primaries, context.color_trc)
        planes = next(container.decode(stream)).to_ndarray()  # Y, U and V as written
    assert tags == (6, 1, 1, 13)  # the BT.601 matrix in video range; sRGB's primaries and transfer
    rgb = cv2.cvtColor(planes, cv2.COLOR_YUV2RGB_I420)  # decoded with the matrix the tags name
    for n, expected in enumerate(colours.values()):
        assert np.abs(rgb[360, n * 320 + 160].astype(int) - expected).max() <= 3


def test_a_still_template_is_not_a_video():
    with pytest.raises(tk.TemplateError, match="video"):
        tk.render_video(template(layer("shape", "box", fill="#ff0000")))


def test_written_to_a_path_and_read_only_when_asked(tmp_path):
    target = tmp_path / "out.mp4"
    result = tk.render_video(video(duration=0.5), path=target)
    assert result.path == target and target.stat().st_size == result.size > 0
    assert result.data == target.read_bytes()
    copy = result.save(tmp_path / "copy.mp4")
    assert copy.read_bytes() == target.read_bytes()


# ------------------------------------------------------------------ animations


def test_a_fade_in_title_is_invisible_at_the_start_and_drawn_at_its_end():
    title = layer(
        "text", "title", x=40, y=60, width=320, height=80, text="HELLO", size=64, weight=800, color="#ffffff",
        animations=[{"preset": "fade-in", "duration": 1}],
    )  # fmt: skip
    frames = probe(tk.render_video(video(title, duration=1.5)).data)["frames"]
    box = (40, 60, 360, 140)
    assert max(np.asarray(frames[0].convert("L").crop(box)).ravel()) < 20  # nothing yet
    brightness = [gray_level(frame, box) for frame in frames[:31]]
    assert all(b <= a + 1 for b, a in zip(brightness, brightness[1:], strict=False))  # only ever brighter
    for frame in frames[30:]:  # from t = 1 s on, fully drawn
        assert max(np.asarray(frame.convert("L").crop(box)).ravel()) > 235


def test_a_colour_keyframed_from_blue_to_red_is_blue_first_red_last_and_between_halfway():
    square = layer(
        "shape", "square", x=100, y=50, width=200, height=100, fill="#0000ff",
        animations=[
            {"property": "fill", "keyframes": [{"time": 0, "value": "#0000ff"}, {"time": 1, "value": "#ff0000"}]}
        ],
    )  # fmt: skip
    frames = probe(tk.render_video(video(square, duration=1.5)).data)["frames"]

    def colour(frame: Image.Image) -> np.ndarray:
        return np.asarray(frame.convert("RGB").crop((150, 75, 250, 125))).reshape(-1, 3).mean(axis=0)

    first, halfway, last = colour(frames[0]), colour(frames[15]), colour(frames[-1])
    assert first[2] > 235 and first[0] < 20, first
    assert last[0] > 235 and last[2] < 20, last
    assert 110 < halfway[0] < 145 and 110 < halfway[2] < 145 and halfway[1] < 20, halfway  # mixed in sRGB, not grey


def test_a_colour_keyframe_needs_the_colour_it_moves():
    def refused(spec: dict[str, Any]) -> str:
        with pytest.raises(tk.TemplateError) as error:
            tk.load_template(video(spec), strict=True)
        return str(error.value)

    star = layer("star", "s", star=3, animations=[{"property": "fill", "keyframes": [{"time": 0, "value": "#fff"}]}])
    assert "layers[0].animations[0].property: a star layer has no 'fill' to animate" in refused(star)
    graded = layer(
        "shape", "g", fill={"from": "#fff", "to": "#000"},
        animations=[{"property": "fill", "keyframes": [{"time": 0, "value": "#fff"}]}],
    )  # fmt: skip
    assert "the layer's fill is a gradient, which is not animatable" in refused(graded)
    numbers = layer("text", "t", text="x", animations=[{"property": "color", "keyframes": [{"time": 0, "value": 1}]}])
    assert "keyframes[0].value: 'color' keyframes take a colour (got 1)" in refused(numbers)
    white = layer("text", "t", text="x", animations=[{"property": "x", "keyframes": [{"time": 0, "value": "#fff"}]}])
    assert "keyframes[0].value: 'x' keyframes take a number (got #ffffff)" in refused(white)
    worded = layer("text", "t", text="x", animations=[{"property": "x", "keyframes": [{"time": 0, "value": "NaN"}]}])
    assert "keyframes[0].value: must be a number, or a colour as text (got 'NaN')" in refused(worded)


def test_layers_in_a_frame_animate_inside_it_and_the_layout_does_not_move():
    title = {
        "type": "text", "name": "title", "width": "fill", "height": "hug", "text": "HELLO", "size": 48,
        "weight": 800, "color": "#ffffff", "animations": [{"preset": "fade-in", "duration": 0.5}],
    }  # fmt: skip
    note = {"type": "text", "name": "note", "width": "fill", "height": "hug", "text": "still here", "size": 24}
    note["color"] = "#ffd700"
    card = {
        "type": "frame", "name": "card", "x": 40, "y": 30, "width": 320, "height": "hug", "layout": "column",
        "gap": 10, "padding": 12, "fill": "#1e3a8a", "layers": [title, note],
    }  # fmt: skip
    spec = video(card, duration=1.0)
    frames = probe(tk.render_video(spec).data)["frames"]
    title_box, note_box = (52, 42, 348, 100), (52, 110, 348, 135)  # padding 12; title 57.6 high, gap 10
    assert max(np.asarray(frames[0].convert("L").crop(title_box)).ravel()) < 120  # the title not yet shown
    assert max(np.asarray(frames[-1].convert("L").crop(title_box)).ravel()) > 235  # then fully
    for frame in (frames[0], frames[-1]):  # the note stays where the layout put it
        yellow = np.asarray(frame.convert("RGB").crop(note_box)).astype(int)
        assert ((yellow[..., 0] > 200) & (yellow[..., 2] < 80)).sum() > 50
    moment = decode(tk.render_image(spec, moment=0.2).data).convert("RGB")
    difference = np.abs(np.asarray(moment).astype(int) - np.asarray(frames[6].convert("RGB")).astype(int))
    assert difference.mean() < 3, difference.mean()  # the poster at a moment is that frame


def test_a_slide_in_layer_moves_right_until_it_reaches_its_place():
    square = layer(
        "shape", "square", x=200, y=60, width=80, height=80, fill="#ff0000",
        animations=[{"preset": "slide-in", "from": "left", "duration": 1, "easing": "ease-in-out"}],
    )  # fmt: skip
    frames = probe(tk.render_video(video(square, duration=1.2)).data)["frames"]

    def left_edge(frame: Image.Image) -> int | None:
        red = np.asarray(frame)[100, :, 0] > 128
        return int(np.argmax(red)) if red.any() else None

    edges = [left_edge(frame) for frame in frames]
    assert edges[0] is None  # off the canvas at t = 0
    seen = [edge for edge in edges if edge is not None]
    assert seen == sorted(seen) and len(set(seen)) > 10  # moves, and only to the right
    assert all(abs(edge - 200) <= 1 for edge in edges[30:])  # in place from t = 1 s


def test_keyframes_scale_rotate_and_move_a_layer():
    bar = layer(
        "shape", "bar", x=150, y=90, width=100, height=20, fill="#ffffff",
        animations=[
            {"property": "rotation", "keyframes": [{"time": 0, "value": 0}, {"time": 1, "value": 90}]},
            {"property": "x", "keyframes": [{"time": 0, "value": 150}, {"time": 1, "value": 250}]},
        ],
    )  # fmt: skip
    frames = probe(tk.render_video(video(bar, duration=1.2)).data)["frames"]
    first, last = np.asarray(frames[0].convert("L")) > 128, np.asarray(frames[-1].convert("L")) > 128
    rows, columns = np.nonzero(first)
    assert (columns.max() - columns.min(), rows.max() - rows.min()) == pytest.approx((100, 20), abs=2)  # lying
    rows, columns = np.nonzero(last)
    assert (columns.max() - columns.min(), rows.max() - rows.min()) == pytest.approx((20, 100), abs=2)  # standing
    assert (columns.max() + columns.min()) / 2 == pytest.approx(300, abs=2)  # moved 100 px right


def test_typewriter_shows_more_of_the_text_as_time_goes_on():
    typed = layer(
        "text", "typed", x=20, y=60, width=360, height=60, text="ABCDEFGHIJ", size=40, color="#ffffff",
        animations=[{"preset": "typewriter", "duration": 1}],
    )  # fmt: skip
    frames = probe(tk.render_video(video(typed, duration=1.2)).data)["frames"]
    ink = [int((np.asarray(frame.convert("L").crop((20, 60, 380, 120))) > 128).sum()) for frame in frames]
    assert ink[0] == 0 and ink[-1] > 0
    assert all(
        later >= earlier - 20 for earlier, later in zip(ink, ink[1:], strict=False)
    )  # never fewer (but for noise)
    assert len({round(count, -2) for count in ink}) >= 8  # letter by letter


def test_a_layer_is_on_screen_only_from_its_start_for_its_duration():
    box = layer("shape", "box", x=0, y=0, width=400, height=200, fill="#ffffff", start=0.5, duration=0.3)
    frames = probe(tk.render_video(video(box, duration=1.0)).data)["frames"]
    lit = [gray_level(frame, (0, 0, 400, 200)) > 128 for frame in frames]
    assert lit == [15 <= n < 24 for n in range(30)]


# ------------------------------------------------------------------ clips and sound


def test_a_clip_shows_its_own_frame_for_each_moment(tmp_path):
    """A 24 fps clip in a 30 fps video plays at its own speed: at t = n / 30 the frame is
    the clip's frame floor(t * 24)."""
    make_clip(tmp_path / "clip.mp4", frames=24, fps=24)
    clip = layer("video", "clip", x=0, y=0, width=160, height=90, src=str(tmp_path / "clip.mp4"))
    frames = probe(tk.render_video(video(clip, duration=1.0, width=160, height=90)).data)["frames"]
    for n, frame in enumerate(frames):
        expected = 16 + 8 * math.floor(n * 24 / 30 + 1e-9)
        assert gray_level(frame, (40, 20, 120, 70)) == pytest.approx(expected, abs=3), n


def test_a_clip_is_trimmed_and_looped(tmp_path):
    make_clip(tmp_path / "clip.mp4", frames=24, fps=24)
    clip = layer(
        "video", "clip", x=0, y=0, width=160, height=90, src=str(tmp_path / "clip.mp4"),
        trim={"start": 0.5, "end": 0.75}, loop=True,
    )  # fmt: skip
    frames = probe(tk.render_video(video(clip, duration=1.0, fps=24, width=160, height=90)).data)["frames"]
    for n, frame in enumerate(frames):  # clip frames 12..17, again and again
        expected = 16 + 8 * (12 + n % 6)
        assert gray_level(frame, (40, 20, 120, 70)) == pytest.approx(expected, abs=3), n


def test_a_remote_clip_is_fetched_by_the_asset_loader(tmp_path):
    make_clip(tmp_path / "clip.mp4", frames=12, fps=24)
    url = "https://media.example/clip.mp4"  # never resolved: FFmpeg does not open it
    loader = tk.MemoryAssetLoader({url: (tmp_path / "clip.mp4").read_bytes()})
    clip = layer("video", "clip", x=0, y=0, width=160, height=90, src=url)
    info = probe(tk.render_video(video(clip, duration=0.5, width=160, height=90), assets=loader).data)
    assert len(info["frames"]) == 15


def test_a_clip_too_large_for_the_media_limit_is_refused(tmp_path):
    make_clip(tmp_path / "clip.mp4", frames=12, fps=24)
    data = (tmp_path / "clip.mp4").read_bytes()
    loader = tk.MemoryAssetLoader({"clip.mp4": data}, max_media_bytes=len(data) - 1)
    clip = layer("video", "clip", x=0, y=0, width=160, height=90, src="clip.mp4")
    with pytest.raises(tk.AssetError, match="byte limit"):
        tk.render_video(video(clip, duration=0.5, width=160, height=90), assets=loader)


def test_a_still_render_shows_the_clip_frame_of_the_poster_moment(tmp_path):
    make_clip(tmp_path / "clip.mp4", frames=24, fps=24)
    clip = layer("video", "clip", x=0, y=0, width=160, height=90, src=str(tmp_path / "clip.mp4"))
    still = video(clip, duration=1.0, width=160, height=90)
    still["video"]["poster"] = 0.5
    image = Image.open(io.BytesIO(tk.render_image(still).data))
    assert gray_level(image, (40, 20, 120, 70)) == pytest.approx(16 + 8 * 12, abs=2)


def test_music_and_clip_sound_are_mixed_into_aac(tmp_path):
    make_clip(tmp_path / "clip.mp4", frames=24, fps=24, tone=True)
    make_tone(tmp_path / "music.m4a", 3.0)
    clip = layer("video", "clip", x=0, y=0, width=160, height=90, src=str(tmp_path / "clip.mp4"))
    with_clip_sound = tk.render_video(video(clip, duration=1.0, width=160, height=90)).data
    assert probe(with_clip_sound)["audio"] == [("aac", 48000, "stereo")]
    muted = tk.render_video(video({**clip, "muted": True}, duration=1.0, width=160, height=90)).data
    assert probe(muted)["audio"] == []
    music = {"src": str(tmp_path / "music.m4a"), "volume": 0.5, "fadeOut": 0.5}
    scored = tk.render_video(video(duration=2.0, audio=music)).data
    sound = decoded_sound(scored)
    assert sound.shape[1] == pytest.approx(2 * 48000, rel=0.05)  # as long as the video, not the music

    def loudness(start: float, end: float) -> float:
        return float(np.sqrt(np.mean(sound[:, int(start * 48000) : int(end * 48000)] ** 2)))

    assert loudness(0.5, 1.0) == pytest.approx(0.5 * 0.5 / math.sqrt(2), rel=0.1)  # volume 0.5
    assert loudness(1.9, 2.0) < 0.25 * loudness(0.5, 1.0)  # faded out


def test_a_video_lasts_its_duration_in_whole_frames_and_its_sound_as_long(tmp_path):
    # 2.5 frames: rounded half to even, 2 frames (0.2 s) of pictures over 0.25 s of sound
    make_tone(tmp_path / "music.m4a", 1.0)
    result = tk.render_video(video(duration=0.25, fps=10, audio={"src": str(tmp_path / "music.m4a")}))
    assert len(probe(result.data)["frames"]) == 3  # the last shown until the duration has passed
    assert decoded_sound(result.data).shape[1] == pytest.approx(0.3 * 48000, abs=1024)
    assert len(probe(tk.render_video(video(duration=2.3, fps=30)).data)["frames"]) == 69  # not 70: float noise


def test_a_still_at_the_end_or_after_it_shows_the_last_frame():
    box = layer("shape", "box", x=10, y=10, width=40, height=40, fill="#ff0000", animations=[{"preset": "fade-in"}])
    at_end = video(box, duration=3.0, width=100, height=60)
    at_end["video"]["poster"] = 3
    result = tk.render_image(at_end)
    assert decode(result.data).convert("RGB").getpixel((30, 30)) == (255, 0, 0) and result.warnings == ()
    late = tk.render_image(at_end, moment=10)
    assert decode(late.data).convert("RGB").getpixel((30, 30)) == (255, 0, 0)
    assert late.warnings == ("moment: 10 s is after the video's end (3 s); its last frame is shown",)


def test_what_the_video_never_shows_is_named_in_a_warning():
    late = layer("shape", "late", x=0, y=0, width=10, height=10, fill="#ff0000", start=5)
    slow = layer("shape", "slow", x=0, y=0, width=10, height=10, fill="#ff0000")
    slow["animations"] = [{"preset": "fade-in", "delay": 100}]
    subs = layer("captions", "subs", x=0, y=0, width=100, height=40, cues=[{"start": 2, "end": 3, "text": "Late"}])
    result = tk.render_video(video(late, slow, subs, duration=1.0, fps=10))
    assert result.warnings == (
        "layer 'subs': 1 of its cues start at or after the video's end (1 s): never shown",
        "layer 'late': starts at 5 s, at or after the video's end (1 s): never on screen",
        "layer 'slow': animations[0].delay: 100 s is as long as the layer's time on screen (1 s) or longer:"
        " it never plays",
    )


@pytest.mark.parametrize("size", [(7680, 4320), (4096, 4096)])  # too wide; too many pixels
def test_a_video_is_at_most_4k_and_a_still_of_a_larger_template_is_a_still(size):
    width, height = size
    larger = video(width=width, height=height, duration=0.1)
    with pytest.raises(tk.TemplateError, match=rf"a video is at most 4K.*\(got {width}x{height}\)"):
        tk.render_video(larger)
    assert tk.render_image(larger, thumbnail=True).width == 320  # read and drawn as any template
    assert tk.load_template(video(width=2160, height=3840)).frames_too_large() is None  # 4K upright


def test_the_frames_painted_ahead_are_counted_in_the_memory_budget():
    # a dozen frames of 2000x2000 wait for the encoder at once: 192 MB the budget did not see
    with pytest.raises(tk.LimitError, match=r"the frames painted ahead of the encoder \(\d+ of 2000x2000\)"):
        tk.render_video(video(width=2000, height=2000, duration=0.1), memory_limit=100_000_000)


def test_music_that_has_no_sound_is_refused_by_name(tmp_path):
    """A picture, or a video without sound, given as the soundtrack: not a silent MP4."""
    make_clip(tmp_path / "silent.mp4", frames=12, fps=24)
    Image.new("RGB", (8, 8), (255, 0, 0)).save(tmp_path / "picture.png")
    for name in ("silent.mp4", "picture.png"):
        src = str(tmp_path / name)
        with pytest.raises(tk.AssetError, match=re.escape(f"audio: {src} has no sound to play")):
            tk.render_video(video(duration=0.5, audio={"src": src}))


# ------------------------------------------------------------------ progress and memory


def test_progress_is_reported_often_and_ends_with_the_total():
    calls: list[tuple[int, int]] = []
    tk.render_video(video(duration=2.0), on_progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (60, 60)
    done = [0] + [call[0] for call in calls]
    assert done == sorted(done) and max(b - a for a, b in zip(done, done[1:], strict=False)) <= 6  # ≤ 10 %


MEMORY_PROBE = """
import resource, sys
import templatekit as tk
seconds = float(sys.argv[1])
template = {
    "name": "memory", "width": 1280, "height": 720, "background": "#0f172a",
    "video": {"duration": seconds, "fps": 30},
    "layers": [{"type": "shape", "name": "dot", "x": 0, "y": 300, "width": 120, "height": 120,
                "fill": "#f43f5e", "radius": 60,
                "animations": [{"property": "x",
                                "keyframes": [{"time": 0, "value": 0}, {"time": seconds, "value": 1160}]}]}],
}
result = tk.render_video(template, path=sys.argv[2])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


@pytest.mark.slow  # renders 33 s of 720p video
def test_memory_stays_flat_as_the_video_gets_longer(tmp_path):
    """Peak memory of a 30 s 720p render is within 1.5x that of a 3 s render: frames are
    encoded as they come and the file goes to disk."""

    def peak_kib(seconds: float) -> int:
        out = tmp_path / f"{seconds}.mp4"
        run = subprocess.run(
            [sys.executable, "-c", MEMORY_PROBE, str(seconds), str(out)], capture_output=True, text=True, check=True
        )
        with av.open(str(out)) as container:
            assert container.streams.video[0].frames == seconds * 30
        return int(run.stdout.strip())

    short, long = peak_kib(3), peak_kib(30)
    assert long <= 1.5 * short, (short, long)


# ------------------------------------------------------------------ the timeline


@pytest.mark.parametrize("name", ["linear", "ease-in", "ease-out", "ease-in-out", "cubic-bezier(0.3, 1.4, 0.6, 1)"])
def test_easings_run_from_0_to_1(name):
    ease = easing_function(name)
    assert ease(0) == 0 and ease(1) == 1 and ease(-1) == 0 and ease(2) == 1


def test_easings_match_css():
    assert easing_function("ease-in-out")(0.5) == pytest.approx(0.5, abs=1e-6)  # symmetric
    assert easing_function("ease-in")(0.5) == pytest.approx(0.3153, abs=1e-3)  # CSS's curve
    assert easing_function("ease-out")(0.5) == pytest.approx(0.6847, abs=1e-3)
    assert easing_function("cubic-bezier(0.3, 1.4, 0.6, 1)")(0.6) > 1  # overshoots, as asked


def test_a_bad_easing_names_the_field_and_the_value():
    bad = layer("shape", "box", fill="#fff", animations=[{"preset": "fade-in", "easing": "bouncy"}])
    with pytest.raises(tk.TemplateError) as error:
        tk.load_template(video(bad), strict=True)
    assert "layers[0].animations[0].easing" in str(error.value) and "'bouncy'" in str(error.value)


def test_still_layers_are_painted_once_into_plates():
    from templatekit.options import RenderOptions
    from templatekit.pipeline import resolve
    from templatekit.video.frames import FrameMaker

    resolved, ctx, _ = resolve(PROMO, None, RenderOptions())
    maker = FrameMaker(resolved, ctx)
    animated = [item for item in resolved.layers if not Timeline(5, 1280, 720).is_still(item)]
    assert maker.actors == len(animated) == 6  # the shade is the only still layer: painted once
    assert np.array_equal(maker.compose(maker.looks(4.0)), maker.compose(maker.looks(4.0)))


def test_typewriter_reveals_grapheme_clusters_in_reading_order_where_the_line_put_them():
    """Arabic is revealed from its first (rightmost) letter, each glyph in the form and
    at the place the whole line gave it; an emoji sequence appears whole, in its turn."""
    from templatekit.scene import GlyphRun
    from templatekit.text.fonts import FontBook
    from templatekit.text.typeset import TextStyle, place, typeset
    from templatekit.video.reveal import reveal

    block = typeset("مرحبا 👍🏽 ok", TextStyle(size=30), FontBook.bundled(), 600)
    items = place(block, 0, 0, 600, 60)
    full = {(run.text, g, p) for run in items for g, p in zip(run.glyphs, run.positions, strict=True)}

    def shown(count: int) -> list[GlyphRun]:
        return [item for item in reveal(items, count) if isinstance(item, GlyphRun)]

    assert shown(0) == []
    (first,) = shown(1)
    arabic = next(run for run in items if run.text.startswith("مرحبا"))
    assert first.glyphs == (arabic.glyphs[-1],) and first.positions == (arabic.positions[-1],)  # the rightmost
    for count in range(1, 10):
        for run in shown(count):
            assert {(run.text, g, p) for g, p in zip(run.glyphs, run.positions, strict=True)} <= full  # in place
    emoji = [run for count in (6, 7) for run in shown(count) if "👍" in run.text]
    assert [len(run.glyphs) for run in emoji] == [1]  # absent after 6 clusters, whole after 7


def test_typewriter_shows_a_highlight_and_an_underline_as_far_as_their_text_is_typed():
    """A span's decorations are typed with its letters: none before its first letter,
    then as far as its last typed letter reaches (they were all there from the start)."""
    from templatekit.scene import GlyphRun, Rect
    from templatekit.text.fonts import FontBook
    from templatekit.text.typeset import TextStyle, place, typeset
    from templatekit.video.reveal import reveal

    style = TextStyle(size=30, underline=True, highlight=Color(255, 230, 0))
    items = place(typeset("Hello world", style, FontBook.bundled(), 600), 0, 0, 600, 60)
    (run,) = [item for item in items if isinstance(item, GlyphRun)]
    assert len([item for item in items if isinstance(item, Rect)]) == 2

    def decorations(count: int) -> list[Rect]:
        return [item for item in reveal(items, count) if isinstance(item, Rect)]

    assert decorations(0) == []
    half = decorations(5)  # "Hello": as far as the space starts
    assert len(half) == 2 and all(rect.x == run.x for rect in half)
    assert all(rect.width == pytest.approx(run.positions[5][0]) for rect in half)
    assert all(rect.width == run.width for rect in decorations(11))


# ------------------------------------------------------------------ stills


def stills_template(**video: Any) -> dict[str, Any]:
    """Four layers whose entries and exits differ: each is at rest at a different moment."""
    return template(
        layer("shape", "fades_in", x=0, y=0, fill="#ff0000", animations=[{"preset": "fade-in", "duration": 1}]),
        layer("shape", "slides_in", x=100, y=0, fill="#00ff00",
              animations=[{"preset": "slide-in", "duration": 1, "from": "top"}]),
        layer("shape", "late", x=200, y=0, fill="#0000ff", start=2),
        layer("shape", "fades_out", x=300, y=0, fill="#ffffff", animations=[{"preset": "fade-out", "duration": 1}]),
        video={"duration": 4, "fps": 10, **video}, background="#000000",
    )  # fmt: skip


def frame_at(moment: float) -> Image.Image:
    """The video's frame at ``moment``, as painted for it (the poster of that moment)."""
    return Image.open(io.BytesIO(tk.render_image(stills_template(poster=moment)).data)).convert("RGB")


def test_a_still_shows_each_layer_as_the_video_does_once_it_is_at_rest():
    still = Image.open(io.BytesIO(tk.render_image(stills_template()).data)).convert("RGB")
    at_rest = {"fades_in": (0, 1.5), "slides_in": (100, 1.5), "late": (200, 2.5), "fades_out": (300, 1.5)}
    for name, (x, moment) in at_rest.items():
        box = (x, 0, x + 100, 100)
        assert still.crop(box).tobytes() == frame_at(moment).crop(box).tobytes(), name
    opening = frame_at(0.0)  # what a still used to be: an empty band where layers enter
    assert opening.getpixel((50, 50)) == (0, 0, 0) and opening.getpixel((250, 50)) == (0, 0, 0)
    assert still.getpixel((50, 50)) == (255, 0, 0) and still.getpixel((250, 50)) == (0, 0, 255)


def test_pdf_debug_and_prepare_follow_the_same_rule_as_the_png(tmp_path):
    finished = stills_template()
    assert [group.label for group in tk.prepare(finished).scene.items] == [
        "fades_in", "slides_in", "late", "fades_out"
    ]  # fmt: skip
    debug = Image.open(io.BytesIO(tk.render_image(finished, debug=True).data)).convert("RGB")
    assert debug.getpixel((250, 50)) == (0, 0, 255)
    (tmp_path / "still.pdf").write_bytes(tk.render_pdf(finished).data)
    subprocess.run(["pdftoppm", "-r", "96", "-png", "-singlefile", str(tmp_path / "still.pdf"), str(tmp_path / "p")])
    page = Image.open(tmp_path / "p.png").convert("RGB")
    assert page.getpixel((50, 50)) == (255, 0, 0) and page.getpixel((250, 50)) == (0, 0, 255)
    # with a poster moment, every output shows that moment: at 0.5 s the late layer is not on
    # screen and the fade-in is halfway
    moment = stills_template(poster=0.5)
    assert [group.label for group in tk.prepare(moment).scene.items] == ["fades_in", "slides_in", "fades_out"]
    (tmp_path / "moment.pdf").write_bytes(tk.render_pdf(moment).data)
    subprocess.run(["pdftoppm", "-r", "96", "-png", "-singlefile", str(tmp_path / "moment.pdf"), str(tmp_path / "m")])
    page = Image.open(tmp_path / "m.png").convert("RGB")
    png = frame_at(0.5)
    assert page.getpixel((250, 50)) == png.getpixel((250, 50)) == (0, 0, 0)
    assert page.getpixel((50, 50))[0] == pytest.approx(png.getpixel((50, 50))[0], abs=3)
    assert 60 < page.getpixel((50, 50))[0] < 250  # halfway through its fade-in
    column = [y for y in range(2, 100, 4) if png.getpixel((150, y))[1] != page.getpixel((150, y))[1]]
    assert png.getpixel((150, 90)) == (0, 0, 0) and png.getpixel((150, 10))[1] == 255  # sliding down from the top
    assert len(column) <= 1  # the PDF shows it where the frame does (one row of anti-aliasing apart)


def test_a_picture_given_as_a_clip_is_named_as_a_picture(tmp_path):
    Image.new("RGB", (16, 9), (255, 0, 0)).save(tmp_path / "still.png")
    clip = layer("video", "clip", x=0, y=0, width=160, height=90, src=str(tmp_path / "still.png"))
    message = f"layer 'clip': {tmp_path / 'still.png'} is a picture, not a video: an image layer shows it"
    with pytest.raises(tk.AssetError, match=re.escape(message)):
        tk.render_video(video(clip, duration=0.5, width=160, height=90))


def test_a_clip_inside_a_frame_plays_in_the_video_as_in_the_still_at_that_moment(tmp_path):
    """A video layer held by a frame: each frame of the MP4 shows the clip frame of its
    moment (as render_image(moment=) does), and the clip's sound is kept."""
    make_clip(tmp_path / "clip.mp4", frames=24, fps=24, tone=True)
    clip = {"type": "video", "name": "clip", "width": 160, "height": 90, "src": str(tmp_path / "clip.mp4")}
    card = layer("frame", "card", x=0, y=0, width=160, height=90, layout="column", layers=[clip])
    template = video(card, duration=1.0, fps=24, width=160, height=90)
    info = probe(tk.render_video(template).data)
    levels = [gray_level(frame, (40, 20, 120, 70)) for frame in info["frames"]]
    still = Image.open(io.BytesIO(tk.render_image(template, moment=0.5).data))
    assert gray_level(still, (40, 20, 120, 70)) == pytest.approx(16 + 8 * 12, abs=3)
    for n, level in enumerate(levels):
        assert level == pytest.approx(16 + 8 * n, abs=3), n
    assert info["audio"] == [("aac", 48000, "stereo")]


def test_an_animated_layer_at_the_edge_of_an_odd_canvas_reaches_the_added_column_and_row():
    """A 401 × 225 template gives a 402 × 226 MP4 whose added column and row repeat the
    canvas's last ones, whatever is painted there: an animated layer too, not only the
    still ones painted once."""
    red = layer("shape", "red", x=0, y=0, width=401, height=225, fill="#ff0000",
                animations=[{"preset": "fade-in", "duration": 0.1}])  # fmt: skip
    template = video(red, duration=0.2, fps=10, width=401, height=225, background="#ffffff")
    last = np.asarray(probe(tk.render_video(template).data)["frames"][-1]).astype(int)
    assert last.shape[:2] == (226, 402)
    assert last[100, 399, 1] < 40  # red inside the canvas
    assert last[100, 401, 1] < 40
    assert last[225, 100, 1] < 40


def test_music_that_cannot_be_fetched_is_an_error_naming_the_field():
    with pytest.raises(tk.AssetError, match=r"^audio: "):
        tk.render_video(video(duration=0.2, fps=10, audio={"src": "/nonexistent/music.mp3"}))
