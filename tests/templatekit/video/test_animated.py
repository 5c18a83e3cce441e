"""Video templates as WebM, GIF and animated WebP: each file read back by tools that are
not the writer (ffprobe and ffmpeg's own decoders, Pillow's GIF and WebP readers)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

import templatekit as tk
from tests.conftest import layer
from tests.templatekit.video.test_movie import make_tone, video

needs_ffmpeg = pytest.mark.skipif(shutil.which("ffprobe") is None, reason="ffmpeg (Debian's ffmpeg package) is missing")

# A red box sliding across the canvas over half a second, on a background given per test.
SLIDE = {"preset": "slide-in", "from": "left", "duration": 0.5}
FADE = {"preset": "fade-in", "duration": 0.5}


def sliding(background: str | None, settings: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """A 1 s, 30 fps video of a red box sliding in; ``settings`` join its ``video`` object."""
    box = layer("shape", "box", x=40, y=20, width=40, height=40, fill="#ff0000", animations=[SLIDE])
    made = video(box, width=160, height=80, background=background, **fields)
    made["video"].update(settings or {})
    return made


def frames_of(path: Path) -> tuple[list[Image.Image], list[int], Image.Image]:
    """Every frame of an animated GIF or WebP as Pillow reads it, and each one's duration (ms)."""
    with Image.open(path) as animation:
        frames, durations = [], []
        for index in range(animation.n_frames):
            animation.seek(index)
            frames.append(animation.convert("RGBA"))
            durations.append(animation.info["duration"])
        return frames, durations, animation


def decoded_by_ffmpeg(path: Path, width: int, height: int) -> np.ndarray:
    """Every frame of the file at the frame rate, as FFmpeg decodes it (RGBA)."""
    decoded = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
        capture_output=True,
        check=True,
    ).stdout
    return np.frombuffer(decoded, np.uint8).reshape(-1, height, width, 4)


def ffprobe(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-show_streams", "-show_format", "-of", "json", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def over_colour(path: Path, colour: str, moment: float) -> Image.Image:
    """The video's frame at ``moment`` laid over a plain ``colour`` by ffmpeg (its libvpx
    decoder reads VP9's alpha), as a PNG."""
    out = path.with_suffix(".over.png")
    size = "160x80"
    command = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"color=c={colour}:s={size}"]
    command += ["-c:v", "libvpx-vp9", "-i", str(path), "-filter_complex", "[0][1]overlay=shortest=1"]
    command += ["-ss", f"{moment}", "-frames:v", "1", str(out)]
    subprocess.run(command, capture_output=True, check=True)
    return Image.open(out).convert("RGB")


@needs_ffmpeg
def test_webm_is_vp9_with_alpha_where_the_template_is_transparent(tmp_path):
    path = tmp_path / "overlay.webm"
    result = tk.render_video(sliding(None), path=path)
    assert result.media_type == "video/webm" and (result.width, result.height) == (160, 80)
    info = ffprobe(path)
    (stream,) = info["streams"]
    assert stream["codec_name"] == "vp9" and stream["tags"].get("alpha_mode") == "1"
    assert int(stream["nb_read_frames"]) == 30 and float(info["format"]["duration"]) == pytest.approx(1.0, abs=0.05)
    assert info["format"]["format_name"] == "matroska,webm"
    # laid over green: green where the template is transparent, the red box where it is drawn
    frame = over_colour(path, "0x00ff00", 0.9)
    assert frame.getpixel((140, 70)) == pytest.approx((0, 255, 0), abs=12)
    red = np.asarray(frame)[20:60, 40:80].reshape(-1, 3).mean(axis=0)
    assert red == pytest.approx((255, 0, 0), abs=16)


@needs_ffmpeg
def test_webm_of_an_opaque_template_has_no_alpha_and_keeps_the_sound_as_opus(tmp_path):
    make_tone(tmp_path / "music.m4a", 2.0)
    path = tmp_path / "clip.webm"
    tk.render_video(sliding("#123456", audio={"src": str(tmp_path / "music.m4a")}), format="webm", path=path)
    streams = {stream["codec_type"]: stream for stream in ffprobe(path)["streams"]}
    assert streams["video"]["codec_name"] == "vp9" and streams["video"]["pix_fmt"] == "yuv420p"
    assert "alpha_mode" not in streams["video"].get("tags", {})
    assert streams["audio"]["codec_name"] == "opus"


@needs_ffmpeg
def test_webm_under_an_opaque_picture_or_still_layer_has_no_alpha(tmp_path):
    """A background picture, or still layers, that cover the canvas leave nothing to see
    through: the frames are opaque, whatever the background says."""
    Image.new("RGB", (32, 16), "#336699").save(tmp_path / "sky.png")
    pictured = sliding(None)
    pictured["background"] = {"src": str(tmp_path / "sky.png")}
    cover = layer("shape", "cover", x=0, y=0, width=160, height=80, fill="#445566")
    covered = sliding(None)
    covered["layers"] = [cover, *covered["layers"]]
    for name, made in (("pictured", pictured), ("covered", covered)):
        path = tmp_path / f"{name}.webm"
        tk.render_video(made, path=path)
        (stream,) = ffprobe(path)["streams"]
        assert stream["pix_fmt"] == "yuv420p" and "alpha_mode" not in stream.get("tags", {}), name


def test_gif_loops_at_most_15_fps_and_640_wide_and_drops_the_sound_with_a_warning(tmp_path):
    make_tone(tmp_path / "music.m4a", 2.0)
    wide = sliding("#ffffff", audio={"src": str(tmp_path / "music.m4a")})
    wide["width"], wide["height"] = 1280, 640
    wide["layers"][0].update(width=320, height=320)
    result = tk.render_video(wide, path=tmp_path / "wide.gif")
    assert result.media_type == "image/gif" and (result.width, result.height) == (640, 320)
    assert any("sound is left out" in warning for warning in result.warnings)
    frames, durations, gif = frames_of(tmp_path / "wide.gif")
    assert gif.format == "GIF" and gif.size == (640, 320) and gif.info["loop"] == 0
    assert len(frames) == 15 and sum(durations) == pytest.approx(1000, abs=20)
    assert all(60 <= duration <= 70 for duration in durations)  # 1/15 s, in hundredths
    # the box has slid in and stays: red at its place, white around it
    assert frames[-1].getpixel((40 + 80, 20 + 80))[:3] == pytest.approx((255, 0, 0), abs=40)
    assert frames[-1].getpixel((600, 300))[:3] == pytest.approx((255, 255, 255), abs=24)
    # at the start it is still outside, left of its place
    assert frames[0].getpixel((40 + 80, 20 + 80))[:3] == pytest.approx((255, 255, 255), abs=24)


def test_gif_settings_come_from_the_template(tmp_path):
    tk.render_video(sliding("#ffffff", {"gif": {"fps": 5, "width": 80, "dither": False}}), path=tmp_path / "small.gif")
    frames, durations, gif = frames_of(tmp_path / "small.gif")
    assert gif.size == (80, 40) and len(frames) == 5 and durations == [200] * 5
    # without dither, the white background is one colour
    assert frames[-1].getpixel((75, 35)) == frames[-1].getpixel((5, 35)) == (255, 255, 255, 255)


def test_a_gif_is_see_through_where_the_template_is_and_leaves_no_trail(tmp_path):
    """A transparent template (a sticker, an overlay) gives a GIF that is see-through
    around what it draws, in Pillow's reader and FFmpeg's, and where the box has slid
    from is see-through again (it was laid over black)."""
    title = layer("text", "title", x=90, y=5, width=70, height=20, text="Hi", size=16, color="#2563eb")
    path = tmp_path / "sticker.gif"
    sticker = sliding(None, {"gif": {"dither": False}})
    sticker["layers"].append(title)
    result = tk.render_video(sticker, path=path)
    assert result.media_type == "image/gif" and result.warnings == ()
    frames, durations, _ = frames_of(path)
    # 15 frames, the still ones after the slide one frame shown longer
    assert len(frames) < 15 and sum(durations) == pytest.approx(1000, abs=20)
    by_ffmpeg = decoded_by_ffmpeg(path, 160, 80)
    assert len(by_ffmpeg) == 15  # FFmpeg gives every frame of the frame rate, a longer one repeated
    for last in (np.asarray(frames[-1]), by_ffmpeg[-1]):
        assert tuple(last[40, 60]) == (255, 0, 0, 255)  # the box, in place
        assert last[75, 5, 3] == 0 and last[40, 150, 3] == 0  # see-through around it
        assert last[5:25, 90:160, 3].max() == 255  # the title, drawn
    first = np.asarray(frames[0])
    assert first[40, 60, 3] == 0  # the box is still outside: nothing there, not black
    # on its way in, the box is partly in place; where it has not come yet is see-through
    shown = np.cumsum(durations)
    middle = np.asarray(frames[int(np.searchsorted(shown, 250, side="right"))])[20:60, 40:80, 3] == 255
    assert 0 < middle.sum() < 40 * 40


def test_a_see_through_gif_stores_only_what_changes_while_nothing_becomes_see_through(tmp_path):
    """A sticker whose card stays while a badge fades in on it: after the first frame,
    each frame holds only the badge's box (each held all the card), and the frames read
    as the whole picture in Pillow's reader and FFmpeg's."""
    card = layer("shape", "card", x=10, y=10, width=140, height=60, fill="#1e293b")
    badge = layer("shape", "badge", x=100, y=20, width=20, height=20, fill="#fbbf24", animations=[FADE])
    path = tmp_path / "sticker.gif"
    sticker = sliding(None, {"gif": {"dither": False}})
    sticker["layers"] = [card, badge]
    tk.render_video(sticker, path=path)
    boxes = []
    with Image.open(path) as gif:
        for index in range(gif.n_frames):
            gif.seek(index)
            boxes.append(gif.dispose_extent)
    assert boxes[0] == (10, 10, 150, 70)  # the card and all on it
    # the last one clears all it leaves, so that the loop starts again on nothing
    assert boxes[-1] == boxes[0] and len(boxes) > 3
    assert all((right - left) * (bottom - top) == 20 * 20 for left, top, right, bottom in boxes[1:-1]), boxes
    frames, _, _ = frames_of(path)
    by_ffmpeg = decoded_by_ffmpeg(path, 160, 80)
    assert len(by_ffmpeg) == 15  # the GIF's own 15 fps
    assert tuple(by_ffmpeg[3][30, 110]) not in ((30, 41, 59, 255), (251, 191, 36, 255))  # fading in
    for last in (np.asarray(frames[-1]), by_ffmpeg[-1]):
        assert tuple(last[30, 110]) == (251, 191, 36, 255)  # the badge, faded in
        assert tuple(last[65, 140]) == tuple(last[15, 20]) == (30, 41, 59, 255)  # the card
        assert last[:10, :, 3].max() == 0 and last[:, 150:, 3].max() == 0  # see-through around it


def test_a_gif_of_a_template_with_a_background_stays_opaque(tmp_path):
    tk.render_video(sliding("#ffffff"), path=tmp_path / "opaque.gif")
    frames, _, _ = frames_of(tmp_path / "opaque.gif")
    assert all(frame.getpixel((5, 75))[3] == 255 for frame in frames)


def test_animated_webp_loops_keeps_alpha_and_takes_its_settings(tmp_path):
    lossy = tk.render_video(sliding(None), path=tmp_path / "lossy.webp")
    assert lossy.media_type == "image/webp"
    frames, durations, webp = frames_of(tmp_path / "lossy.webp")
    # frames that do not change are one frame shown longer
    assert webp.is_animated and 2 < len(frames) <= 30 and sum(durations) == pytest.approx(1000, abs=40)
    assert webp.info.get("loop", 0) == 0
    assert frames[-1].getpixel((150, 5))[3] == 0  # transparent where the template is
    assert frames[-1].getpixel((60, 40)) == pytest.approx((255, 0, 0, 255), abs=24)
    lossless = sliding("#102030", {"webp": {"lossless": True, "fps": 10}})
    tk.render_video(lossless, path=tmp_path / "lossless.webp")
    frames, durations, _ = frames_of(tmp_path / "lossless.webp")
    assert sum(durations) == pytest.approx(1000, abs=40) and min(durations) >= 100  # 10 fps
    assert frames[-1].getpixel((150, 5)) == (16, 32, 48, 255)  # exact: lossless
    assert frames[-1].getpixel((60, 40)) == (255, 0, 0, 255)


def test_an_extension_or_format_no_writer_has_is_an_error_naming_those_it_has(tmp_path):
    for path, format in ((tmp_path / "clip.avi", None), (tmp_path / "clip", None), (None, "mov")):
        with pytest.raises(ValueError, match=r"mp4, .*webm, .*gif, .*webp"):
            tk.render_video(sliding(None), path=path, format=format)
    with pytest.raises(ValueError, match="differs from the extension"):
        tk.render_video(sliding(None), path=tmp_path / "clip.gif", format="webm")
    assert not list(tmp_path.iterdir())  # nothing written
    # a name that names no format is written as the format given (a scratch file, say)
    scratch = tk.render_video(sliding(None), path=tmp_path / "render.part", format="mp4")
    assert scratch.media_type == "video/mp4" and ffprobe(tmp_path / "render.part")["streams"][0]["codec_name"] == "h264"


def test_a_webp_frame_stores_only_what_changed_and_every_frame_is_the_whole_picture(tmp_path):
    """Lossless, so that each frame read back must equal the moment's still."""
    clip = sliding("#102030", {"webp": {"lossless": True, "fps": 10}})
    tk.render_video(clip, path=tmp_path / "slide.webp")
    data = (tmp_path / "slide.webp").read_bytes()
    frames, durations, _ = frames_of(tmp_path / "slide.webp")
    stored = [(int.from_bytes(data[at + 14 : at + 17], "little") + 1) for at in _anmf_offsets(data)]
    assert stored[0] == 160 and max(stored[1:]) < 160  # after the first frame, only the box's stretch
    shown_at = 0.0
    for frame, duration in zip(frames, durations, strict=True):
        still = tk.render_image(clip, moment=shown_at)
        expected = np.asarray(Image.open(io.BytesIO(still.data)).convert("RGBA"), np.int16)
        assert np.abs(np.asarray(frame, np.int16) - expected).max() <= 2, shown_at
        shown_at += duration / 1000


def _anmf_offsets(data: bytes) -> list[int]:
    """Where each ANMF chunk of a WebP file starts."""
    offsets, at = [], 12
    while at + 8 <= len(data):
        size = int.from_bytes(data[at + 4 : at + 8], "little")
        if data[at : at + 4] == b"ANMF":
            offsets.append(at)
        at += 8 + size + (size & 1)
    return offsets


def psnr(first: Image.Image, second: Image.Image) -> float:
    error = np.mean((np.asarray(first.convert("RGB"), float) - np.asarray(second.convert("RGB"), float)) ** 2)
    return float(10 * np.log10(255**2 / max(error, 1e-9)))


def test_a_colour_on_screen_between_the_palettes_samples_keeps_its_colour(tmp_path):
    # on screen from 1.05 to 1.2 s of 3 s: between two of the moments spread evenly over the video
    flash = layer("shape", "flash", x=20, y=20, width=40, height=40, fill="#e11d48", start=1.05, duration=0.15)
    made = video(flash, width=160, height=80, background="#4c4672", duration=3.0)
    path = tmp_path / "flash.gif"
    tk.render_video(made, path=path)
    frames, _, _ = frames_of(path)
    shown = frames[16].getpixel((40, 40))  # 1.067 s at 15 fps
    assert np.abs(np.subtract(shown[:3], (225, 29, 72))).max() <= 8


def test_a_gradient_gif_keeps_its_steps_small(tmp_path):
    # a smooth gradient falls in a few of the octree's cubes: 27 colours, bands 18 px wide
    fill = {"from": "#1e3a8a", "to": "#f97316", "angle": 90}
    made = video(layer("shape", "ramp", x=0, y=0, width=480, height=270, fill=fill), width=480, height=270)
    made["video"]["gif"] = {"dither": False}
    path = tmp_path / "ramp.gif"
    tk.render_video(made, path=path)
    frames, _, _ = frames_of(path)
    still = Image.open(io.BytesIO(tk.render_image(made, moment=0).data))
    assert psnr(frames[0], still) > 46
    assert len(np.unique(np.asarray(frames[0].convert("RGB"))[135], axis=0)) > 64


def test_a_lossy_webp_leaves_no_trail_where_a_title_has_passed(tmp_path):
    # each frame's changes blur into the pixels around them; kept, they drew the title's path
    title = layer("text", "title", x=20, y=100, width=160, height=60, text="Sale!", size=44, weight=800)
    title["color"] = "#facc15"
    title["animations"] = [{"property": "x", "keyframes": [{"time": 0, "value": 20}, {"time": 2, "value": 300}]}]
    made = video(title, width=480, height=270, background="#1e3a8a", duration=2.0, fps=15)
    path = tmp_path / "trail.webp"
    tk.render_video(made, path=path)
    frames, _, _ = frames_of(path)
    still = Image.open(io.BytesIO(tk.render_image(made, moment=29 / 15).data)).convert("RGB")
    off = np.abs(np.asarray(frames[-1].convert("RGB"), int) - np.asarray(still, int)).max(axis=2)
    passed = off[95:165, 0:290]  # where the title was, left behind by the last frame
    assert passed.max() <= 24 and passed.mean() < 2.5


@pytest.mark.parametrize("format", ["webm", "webp"])
def test_a_see_through_gradient_background_keeps_its_alpha(tmp_path, format):
    """WebM and WebP are transparent when the template's background is see-through, a
    gradient with a see-through end too."""
    title = layer("text", "t", x=10, y=10, width=180, height=40, text="Hi", animations=[{"preset": "fade-in"}])
    template = video(title, duration=0.5, fps=10, width=200, height=100)
    template["background"] = {"from": "#ff000000", "to": "#0000ff80", "angle": 90}
    still = Image.open(io.BytesIO(tk.render_image(template).data))
    assert still.mode == "RGBA" and still.getpixel((197, 50))[3] < 200  # the still is see-through
    result = tk.render_video(template, path=tmp_path / f"out.{format}")
    if format == "webp":
        frame = Image.open(result.path)
        frame.load()
        assert frame.mode == "RGBA"
    else:
        import av

        with av.open(str(result.path)) as container:
            assert container.streams.video[0].metadata.get("alpha_mode") == "1"


@pytest.mark.parametrize("format", ["gif", "webm"])
def test_every_video_result_knows_its_extension(format):
    result = tk.render_video(video(duration=0.2, fps=10, width=64, height=64), format=format)
    assert result.extension == format
