"""Captions layers: cues from SRT and WebVTT files or given inline, drawn at their times
in the MP4 (every frame decoded with PyAV), in stills at the poster moment (PNG and the
PDF's text), with the spoken word highlighted and long cues split into pages."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest

import templatekit as tk
from templatekit.subtitles import read_subtitles
from tests.conftest import decode, layer
from tests.templatekit.video.test_movie import probe, video

FPS = 10
BOX = (20, 100, 300, 150)  # x0, y0, x1, y1 of the captions layer
SRT = """1
00:00:00,500 --> 00:00:01,200
First line

2
00:00:01,800 --> 00:00:02,500
Second line
"""
VTT = """WEBVTT

00:00:00.200 --> 00:00:02.800
one <00:00:00.800>two <00:00:01.400>three <00:00:02.000>four
"""
YELLOW = "#ffff00"


def captions(**fields: Any) -> dict[str, Any]:
    x0, y0, x1, y1 = BOX
    return layer("captions", "subs", x=x0, y=y0, width=x1 - x0, height=y1 - y0, size=24, minSize=10, **fields)


def frames(data: bytes) -> list[np.ndarray]:
    with av.open(io.BytesIO(data)) as container:
        return [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]


def inked(frame: np.ndarray) -> bool:
    """Whether anything light is drawn in the captions' box (the background is black)."""
    x0, y0, x1, y1 = BOX
    return bool((frame[y0:y1, x0:x1].max(axis=2) > 128).any())


def yellow_x(frame: np.ndarray) -> float | None:
    """The mean x of the highlighted (yellow) pixels, None without any."""
    red, green, blue = (frame[..., channel].astype(int) for channel in range(3))
    ys, xs = np.nonzero((red > 180) & (green > 180) & (blue < 90))
    return float(xs.mean()) if len(xs) else None


def test_an_srt_file_shows_each_cue_during_its_time_and_nothing_between(tmp_path):
    (tmp_path / "subs.srt").write_text(SRT)
    clip = video(captions(src=str(tmp_path / "subs.srt")), duration=3.0, fps=FPS, width=320, height=180)
    shown = [inked(frame) for frame in frames(tk.render_video(clip).data)]
    expected = [0.5 <= n / FPS < 1.2 or 1.8 <= n / FPS < 2.5 for n in range(30)]
    assert shown == expected


def test_the_spoken_word_is_highlighted_from_its_webvtt_timestamp(tmp_path):
    (tmp_path / "words.vtt").write_text(VTT)
    highlight = {"color": YELLOW}
    clip = video(captions(src=str(tmp_path / "words.vtt"), wordHighlight=highlight), duration=3.0, fps=FPS)
    clip["width"], clip["height"] = 320, 180
    positions = [yellow_x(frame) for frame in frames(tk.render_video(clip).data)]
    assert positions[:2] == [None, None] and positions[28:] == [None, None]  # outside the cue: no cue, no highlight
    words = [positions[n] for n in (3, 9, 15, 21)]  # one moment in the time of each word
    assert all(x is not None for x in words) and words == sorted(words)  # left to right, one after another
    for start, end in ((2, 8), (8, 14), (14, 20), (20, 28)):  # each word is lit from its timestamp until the next
        assert len({positions[n] for n in range(start, end)}) == 1, (start, positions[start:end])


def test_words_without_timestamps_are_spread_over_the_cue_by_length():
    cue = {"start": 0.0, "end": 2.0, "text": "aaaa bbbb cccc dddd"}
    clip = video(captions(cues=[cue], wordHighlight={"color": YELLOW}), duration=2.0, fps=FPS, width=320, height=180)
    positions = [yellow_x(frame) for frame in frames(tk.render_video(clip).data)]
    assert len(set(positions)) == 4 and positions == sorted(positions)  # four words, each for half a second
    assert positions[0] == positions[4] != positions[5]


def test_a_modification_swaps_the_subtitle_file(tmp_path):
    (tmp_path / "first.srt").write_text(SRT)
    (tmp_path / "late.vtt").write_text("WEBVTT\n\n00:00:02.000 --> 00:00:03.000\nLate\n")
    clip = video(captions(src=str(tmp_path / "first.srt")), duration=3.0, fps=FPS, width=320, height=180)
    swapped = tk.render_video(clip, {"subs": str(tmp_path / "late.vtt")})
    shown = [inked(frame) for frame in frames(swapped.data)]
    assert shown == [n >= 20 for n in range(30)]
    cues = tk.render_video(clip, {"subs": {"src": None, "cues": [{"start": 0, "end": 0.5, "text": "Inline"}]}})
    assert [inked(frame) for frame in frames(cues.data)] == [n < 5 for n in range(30)]


def test_a_still_shows_the_cue_at_the_poster_and_none_without_one(tmp_path):
    (tmp_path / "subs.srt").write_text(SRT)
    clip = video(captions(src=str(tmp_path / "subs.srt")), duration=3.0, fps=FPS, width=320, height=180)
    assert not inked(np.asarray(decode(tk.render_image(clip).data).convert("RGB")))
    clip["video"]["poster"] = 2.0
    assert inked(np.asarray(decode(tk.render_image(clip).data).convert("RGB")))
    pypdf = pytest.importorskip("pypdf")
    pdf = pypdf.PdfReader(io.BytesIO(tk.render_pdf(clip).data))
    assert "Second line" in pdf.pages[0].extract_text()


def test_a_cue_too_long_for_the_box_is_split_into_pages_with_a_warning():
    long = " ".join(["word"] * 60)
    clip = video(captions(cues=[{"start": 0.0, "end": 2.0, "text": long}]), duration=2.0, fps=FPS)
    clip["width"], clip["height"] = 320, 180
    result = tk.render_video(clip)
    assert any("cue 1 (0–2 s) does not fit the box at 10 px: shown in" in warning for warning in result.warnings)
    decoded = frames(result.data)
    assert not np.array_equal(decoded[1], decoded[18])  # another page later in the cue
    assert all(inked(frame) for frame in decoded)


@pytest.mark.parametrize("words", ["مرحبا بالعالم", "你好，世界", "नमस्ते दुनिया", "안녕하세요 세계"])
def test_cues_in_other_scripts_are_shaped_and_drawn(words: str):
    clip = video(captions(cues=[{"start": 0.0, "end": 1.0, "text": words}]), duration=1.0, fps=FPS)
    clip["width"], clip["height"], clip["video"]["poster"] = 320, 180, 0.5
    still = tk.render_image(clip)
    assert not [warning for warning in still.warnings if "no font has" in warning]
    assert inked(np.asarray(decode(still.data).convert("RGB")))


def test_captions_need_one_source_a_video_template_and_a_readable_file(tmp_path):
    both = video(captions(src="a.srt", cues=[{"start": 0, "end": 1, "text": "x"}]))
    with pytest.raises(tk.TemplateError, match="captions come from a subtitle file"):
        tk.load_template(both)
    with pytest.raises(tk.TemplateError, match="captions layers need a video template"):
        tk.load_template({"name": "still", "width": 100, "height": 100, "layers": [captions(src="a.srt")]})
    backwards = video(captions(cues=[{"start": 1, "end": 0.5, "text": "x"}]))
    with pytest.raises(tk.TemplateError, match=r"layers\[0\]\.cues\[0\]\.end: must be after start"):
        tk.load_template(backwards)
    (tmp_path / "bad.srt").write_bytes(b"\x89PNG not subtitles")
    with pytest.raises(tk.AssetError, match="layer 'subs': .*bad.srt: a subtitle file must be UTF-8 text"):
        tk.render_video(video(captions(src=str(tmp_path / "bad.srt"))))
    (tmp_path / "garbled.srt").write_text("1\nnot a time\nHello\n")
    with pytest.raises(tk.AssetError, match="not a WebVTT or SRT file"):
        tk.render_video(video(captions(src=str(tmp_path / "garbled.srt"))))


def test_the_example_captions_template_renders(tmp_path):
    example = Path(__file__).resolve().parents[3] / "examples" / "templates" / "captions-video.json"
    result = tk.render_video(example, path=tmp_path / "captions.webm")
    assert result.warnings == () and result.media_type == "video/webm"


@pytest.mark.parametrize(
    ("subtitles", "message"),
    [
        ("1\n00:00:0x,000 --> 00:00:01,000\nHello\n", r"line 2: '00:00:0x,000 --> 00:00:01,000' is not a cue timing"),
        ("1\n00:00:02,000 --> 00:00:01,000\nBackwards\n", r"line 2: a cue must end after it starts"),
        ("1\n00:00:00,000 --> 00:00:01,000\n\n2\n00:00:01,000 --> 00:00:02,000\nTwo\n", r"line 2: a cue without text"),
        ("WEBVTT\n\n00:00.000 --> 00:01.000\n   \n", r"line 3: a cue without text"),
        ("1\n00:01,000 --> 00:02,000\nNo hours\n", r"line 2: '00:01,000 --> 00:02,000' is not a cue timing this"),
    ],
)
def test_a_subtitle_file_with_a_cue_it_cannot_show_is_refused_naming_the_line(tmp_path, subtitles, message):
    # the reader passed over such cues: a video without captions, or without some, and no word of it
    (tmp_path / "subs.srt").write_text(subtitles)
    clip = video(captions(src=str(tmp_path / "subs.srt")), duration=1.0, fps=FPS, width=320, height=180)
    with pytest.raises(tk.AssetError, match=message):
        tk.render_video(clip)


def test_a_subtitle_file_has_at_most_as_many_cues_as_a_layer(tmp_path, monkeypatch):
    monkeypatch.setattr("templatekit.subtitles.MAX_CUES", 1)
    (tmp_path / "subs.srt").write_text(SRT)
    clip = video(captions(src=str(tmp_path / "subs.srt")), duration=1.0, fps=FPS, width=320, height=180)
    with pytest.raises(tk.AssetError, match="2 cues; a subtitle file has at most 1"):
        tk.render_video(clip)


def test_an_arrow_in_a_cues_text_is_text(tmp_path):
    source = "1\n00:00:00,000 --> 00:00:01,000\nGo left --> there\n"
    (tmp_path / "subs.srt").write_text(source)
    cues = tk.render_video(
        video(captions(src=str(tmp_path / "subs.srt")), duration=1.0, fps=FPS, width=320, height=180)
    )
    assert cues.warnings == ()
    (cue,) = read_subtitles(source.encode(), "subs.srt")
    assert (cue.start, cue.end, cue.text) == (0.0, 1.0, "Go left --> there")


def test_captions_inside_a_frame_are_shown_in_the_video():
    cues = [{"start": 0, "end": 1, "text": "HELLO"}]
    captions = {"type": "captions", "name": "captions", "width": 300, "height": 80, "size": 40, "cues": cues}
    card = layer("frame", "card", x=0, y=0, width=300, height=100, layout="column", layers=[captions])
    template = video(card, duration=1.0, fps=10, width=300, height=100)
    still = np.asarray(decode(tk.render_image(template, moment=0.5).data).convert("L"))
    assert (still > 128).sum() > 200  # the still at 0.5 s shows the cue
    frame = np.asarray(probe(tk.render_video(template).data)["frames"][5].convert("L"))
    assert (frame > 128).sum() > 200
