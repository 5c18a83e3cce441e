"""The command line, run as a user runs it."""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import decode, layer, template

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "templates"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "templatekit.cli", *args], capture_output=True, text=True, cwd=cwd)


def template_file(tmp_path: Path, *layers: dict) -> Path:
    """A template of ``layers`` on a white 400×200 canvas, written to a file."""
    path = tmp_path / "t.json"
    path.write_text(json.dumps(template(*layers, background="#ffffff")))
    return path


def test_render_with_modifications_and_sets(tmp_path):
    path = template_file(
        tmp_path,
        layer("text", "title", width=380, text="old"),
        layer("shape", "box", x=0, y=150, width=400, height=50, fill="#000000"),
    )
    mods = tmp_path / "mods.json"
    mods.write_text(json.dumps({"title": "from file"}))
    out = tmp_path / "out.png"
    done = run("render", str(path), "-m", str(mods), "--set", "box.fill=#ff0000", "--set", "title=New", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "out.png (400x200" in done.stdout
    image = decode(out.read_bytes()).convert("RGB")
    assert image.getpixel((200, 175)) == (255, 0, 0)


def test_set_gives_a_text_field_its_value_as_text(tmp_path):
    """``--set title=true`` writes "true", and a QR code's JSON payload stays its text; a
    field that is no text still reads JSON (``box.opacity=0.5``), and a JSON string is
    unquoted (``title="Hi"``)."""
    path = template_file(
        tmp_path,
        layer("text", "title", width=380, text="old"),
        layer("qrcode", "code", x=0, y=60, width=120, height=120, qrcode="x"),
        layer("shape", "box", x=200, y=150, width=200, height=50, fill="#000000"),
    )
    cases = [
        (
            ["title=true", 'code={"id": 1}', "box.opacity=0.5"],
            {"title": "true", "code": '{"id": 1}', "box": {"opacity": 0.5}},
        ),
        (['title="Hi"'], {"title": "Hi"}),
    ]
    for n, (sets, modifications) in enumerate(cases):
        done = run("render", str(path), *[f"--set={value}" for value in sets], "-o", str(tmp_path / f"set{n}.png"))
        assert done.returncode == 0, done.stderr
        same = run("render", str(path), "-m", json.dumps(modifications), "-o", str(tmp_path / f"m{n}.png"))
        assert same.returncode == 0, same.stderr
        assert (tmp_path / f"set{n}.png").read_bytes() == (tmp_path / f"m{n}.png").read_bytes(), sets
    assert (tmp_path / "set0.png").read_bytes() != (tmp_path / "set1.png").read_bytes()


def test_render_formats_and_thumbnail(tmp_path):
    for suffix, fmt in ((".jpg", "JPEG"), (".webp", "WEBP")):
        out = tmp_path / f"card{suffix}"
        assert run("render", str(EXAMPLES / "social-card.json"), "-o", str(out), "--thumbnail").returncode == 0
        image = decode(out.read_bytes())
        assert image.format == fmt and image.size == (320, 168)


def test_render_reports_warnings_and_errors(tmp_path):
    out = tmp_path / "x.png"
    warned = run("render", str(EXAMPLES / "social-card.json"), "--set", "nope=1", "-o", str(out))
    assert warned.returncode == 0 and "warning: modifications[0]: no layer named 'nope'" in warned.stderr
    bad = run("render", str(EXAMPLES / "social-card.json"), "--set", "title.size=-3", "-o", str(out))
    assert bad.returncode == 1 and "size: must be a positive number (got -3.0)" in bad.stderr
    assert "Traceback" not in bad.stderr
    wrong = run("render", str(EXAMPLES / "social-card.json"), "-o", str(tmp_path / "x.tiff"))
    assert wrong.returncode == 2
    assert "must end in one of .png, .jpg, .jpeg, .webp, .pdf, .mp4, .webm, .gif" in wrong.stderr


def test_validate_lists_every_problem(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(template(layer("text", "t", size=0, colour="red"), width=0)))
    done = run("validate", str(broken), str(EXAMPLES / "social-card.json"))
    assert done.returncode == 1
    assert f"{broken}: 3 problem(s)" in done.stdout
    assert "  layers[0]: unknown field(s): colour" in done.stdout
    assert "  width: must be between 1 and 10000 (got 0)" in done.stdout
    assert "  layers[0].size: must be a positive number (got 0.0)" in done.stdout
    assert "social-card.json: ok (1200x630, 10 layers)" in done.stdout
    assert run("validate", str(EXAMPLES / "quote-card.json")).returncode == 0


def test_render_a_video_with_progress(tmp_path):
    import av

    path = tmp_path / "clip.json"
    box = layer("shape", "box", x=0, y=0, width=100, height=100, fill="#ff0000", animations=[{"preset": "fade-in"}])
    path.write_text(json.dumps(template(box, video={"duration": 1, "fps": 24})))
    out = tmp_path / "clip.mp4"
    done = run("render", str(path), "--set", "box.fill=#00ff00", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "clip.mp4 (400x200, 1 s at 24 fps" in done.stdout
    progress = [line for line in done.stderr.splitlines() if line.startswith("rendering:")]
    assert len(progress) >= 10 and progress[-1] == "rendering: 100% (24/24 frames)"
    with av.open(str(out)) as container:
        frames = [frame.to_image() for frame in container.decode(video=0)]
    assert len(frames) == 24 and frames[-1].getpixel((50, 50))[1] > 200  # the modification took


def test_a_still_template_to_mp4_is_an_error_about_the_extension(tmp_path):
    path = tmp_path / "still.json"
    path.write_text(json.dumps(template(layer("shape", "box", fill="#ff0000"))))
    done = run("render", str(path), "-o", str(tmp_path / "x.mp4"))
    assert done.returncode == 2 and not (tmp_path / "x.mp4").exists()
    assert f"-o {tmp_path / 'x.mp4'}: MP4 output needs a video template" in done.stderr
    assert "write .png, .jpg, .jpeg, .webp, .pdf" in done.stderr and "Traceback" not in done.stderr
    for suffix in ("webm", "gif"):
        refused = run("render", str(path), "-o", str(tmp_path / f"x.{suffix}"))
        assert refused.returncode == 2 and f"{suffix.upper()} output needs a video template" in refused.stderr
    assert run("render", str(path), "-o", str(tmp_path / "x.avi")).returncode == 2
    assert not list(tmp_path.glob("x.*"))


def test_a_video_template_to_each_format_and_a_still_with_still(tmp_path):
    import av
    from PIL import Image

    path = tmp_path / "clip.json"
    box = layer("shape", "box", x=0, y=0, width=100, height=100, fill="#ff0000", animations=[{"preset": "fade-in"}])
    path.write_text(json.dumps(template(box, video={"duration": 1, "fps": 30}, background="#ffffff")))
    for suffix, fps in (("webm", 30), ("gif", 15), ("webp", 30)):
        done = run("render", str(path), "-o", str(tmp_path / f"clip.{suffix}"))
        assert done.returncode == 0, done.stderr
        assert f"clip.{suffix} (400x200, 1 s at {fps} fps" in done.stdout
    with av.open(str(tmp_path / "clip.webm")) as container:
        assert container.format.name == "matroska,webm" and sum(1 for _ in container.decode(video=0)) == 30
    for suffix in ("gif", "webp"):  # FFmpeg's WebP decoder reads no animation: Pillow reads both
        with Image.open(tmp_path / f"clip.{suffix}") as animation:
            assert animation.format == suffix.upper() and animation.is_animated
    still = run("render", str(path), "--still", "-o", str(tmp_path / "poster.webp"))
    assert still.returncode == 0, still.stderr
    with Image.open(tmp_path / "poster.webp") as poster:
        assert not getattr(poster, "is_animated", False) and poster.size == (400, 200)
    wrong = run("render", str(path), "--still", "-o", str(tmp_path / "poster.gif"))
    assert wrong.returncode == 2 and "--still writes a still" in wrong.stderr


def test_validate_and_render_report_the_same_problems(tmp_path):
    """One check for both commands: validate lists the unknown kind and the bad value;
    render (lenient about kinds it does not know) fails on the value and still tells of
    the unknown kind."""
    path = tmp_path / "t.json"
    path.write_text(json.dumps(template(layer("txt", "a"), layer("text", "b", text="hi", size=-3))))
    validated = run("validate", str(path))
    assert validated.returncode == 1 and f"{path}: 2 problem(s)" in validated.stdout
    assert "  layers[0].type: must be one of text, image," in validated.stdout and "(got 'txt')" in validated.stdout
    assert "  layers[1].size: must be a positive number (got -3.0)" in validated.stdout
    rendered = run("render", str(path), "-o", str(tmp_path / "x.png"))
    assert rendered.returncode == 1 and "Traceback" not in rendered.stderr
    assert "  layers[1].size: must be a positive number (got -3.0)" in rendered.stderr
    assert "  layers[0]: unknown layer type 'txt'; kept but not drawn" in rendered.stderr


def test_output_folders_are_made_and_a_file_in_the_way_is_named(tmp_path):
    out = tmp_path / "new" / "deeper" / "card.png"
    done = run("render", str(EXAMPLES / "social-card.json"), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert decode(out.read_bytes()).size == (1200, 630)
    (tmp_path / "plain").write_text("a file")
    blocked = run("render", str(EXAMPLES / "social-card.json"), "-o", str(tmp_path / "plain" / "sub" / "card.png"))
    assert blocked.returncode == 2 and "Traceback" not in blocked.stderr
    assert f"{tmp_path / 'plain'} is a file, not a folder" in blocked.stderr


def test_a_file_that_is_not_utf8_and_bad_batch_arguments_are_named_not_tracebacks(tmp_path):
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(json.dumps(template(name="caf\u00e9"), ensure_ascii=False).encode("latin-1"))
    for command in (("validate", str(latin1)), ("render", str(latin1), "-o", str(tmp_path / "a.png"))):
        done = run(*command)
        assert done.returncode == 1 and "Traceback" not in done.stderr + done.stdout
        assert f"{latin1} is not UTF-8 text (byte 0xe9 at offset" in done.stderr + done.stdout
    marked = tmp_path / "marked.json"  # a byte order mark, as some editors write
    marked.write_bytes(b"\xef\xbb\xbf" + json.dumps(template()).encode())
    assert run("validate", str(marked)).returncode == 0
    rows = tmp_path / "rows.csv"
    rows.write_text("title\nOne\n")
    (tmp_path / "afile").write_text("in the way")
    card = str(EXAMPLES / "social-card.json")
    blocked = run("batch", card, "--csv", str(rows), "-o", str(tmp_path / "afile"))
    assert blocked.returncode == 2 and "is a file, not a folder" in blocked.stderr and "Traceback" not in blocked.stderr
    nothing = run("render", card, "-m", "null", "-o", str(tmp_path / "plain.png"))  # JSON text, not a file's name
    assert nothing.returncode == 0, nothing.stderr
    missing = run("render", card, "-m", "mods.json", "-o", str(tmp_path / "m.png"))
    assert missing.returncode == 2 and "-m mods.json: no such file, nor JSON text" in missing.stderr
    string = run("render", card, "-m", '"x"', "-o", str(tmp_path / "m.png"))
    assert string.returncode == 2 and "-m: modifications are a JSON list or object, or null" in string.stderr
    unset = run("render", card, "--set", "title", "-o", str(tmp_path / "m.png"))
    assert unset.returncode == 2 and "--set 'title': expected LAYER.FIELD=VALUE or LAYER=VALUE" in unset.stderr
    negative = run("batch", card, "--csv", str(rows), "-o", str(tmp_path / "out"), "--workers", "-3")
    assert negative.returncode == 2 and "--workers: must be a whole number of 1 or more (got '-3')" in negative.stderr
    most = 4 * (os.cpu_count() or 1)
    many = run("batch", card, "--csv", str(rows), "-o", str(tmp_path / "out"), "--workers", "1000000")
    assert many.returncode == 2 and f"--workers: at most {most}, 4 per core (got '1000000')" in many.stderr
    folder = tmp_path / "clip.gif"
    folder.mkdir()
    video = run("render", str(EXAMPLES / "promo-video.json"), "-o", str(folder))
    assert video.returncode == 2 and f"-o {folder}: is a folder; name the file to write" in video.stderr
    unwritable = run("render", str(EXAMPLES / "promo-video.json"), "-o", "/proc/clip.mp4")
    assert unwritable.returncode == 2 and "-o /proc/clip.mp4: cannot" in unwritable.stderr, unwritable.stderr
    assert "Traceback" not in video.stderr + unwritable.stderr


def test_the_readme_modifications_example_runs(tmp_path):
    """The README's `-m mods.json` line, with the file the examples ship."""
    out = tmp_path / "ticket.webp"
    done = run(
        "render",
        "examples/templates/event-ticket.json",
        "-m",
        "examples/mods/event-ticket.json",
        "-o",
        str(out),
        "--thumbnail",
        cwd=EXAMPLES.parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # every modification of the example applies
    assert decode(out.read_bytes()).format == "WEBP"
    readme = (EXAMPLES.parents[1] / "README.md").read_text()
    assert "-m examples/mods/event-ticket.json" in readme


def test_help_names_every_output_and_option():
    overview = run("--help").stdout
    assert "render a template to an image, a PDF or an MP4 video" in overview
    batch = run("batch", "--help").stdout
    assert "file format of every row" in batch


def test_version_names_the_installed_package_and_python():
    done = run("--version")
    expected = f"templatekit {importlib.metadata.version('templatekit')} (Python {platform.python_version()})"
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, expected, "")


EXIT = """
import atexit, sys, threading, time
from pathlib import Path
from templatekit.cli import _exit_without_teardown
out = Path(sys.argv[1])
atexit.register(lambda: (out / "exit-handler").open("a").write("ran"))  # twice: "ranran"
if sys.argv[2] == "thread":
    threading.Thread(target=lambda: (time.sleep(0.3), (out / "thread").write_text("done"))).start()
sys.stdout.write("written, not flushed")
_exit_without_teardown(3)
sys.exit(4)  # reached only when the process is left to Python's usual exit
"""


@pytest.mark.parametrize("thread", ["none", "thread"])
def test_a_command_ends_its_process_with_its_streams_handlers_and_threads_done(tmp_path, thread):
    ended = subprocess.run([sys.executable, "-c", EXIT, str(tmp_path), thread], capture_output=True, text=True)
    assert ended.stdout == "written, not flushed"
    assert (tmp_path / "exit-handler").read_text() == "ran"
    if thread == "thread":  # a thread still running: Python's exit, which waits for it
        assert ended.returncode == 4 and (tmp_path / "thread").read_text() == "done"
    else:
        assert ended.returncode == 3


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_that_cannot_be_written_is_reported_not_lost(tmp_path):
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        command = [sys.executable, "-c", EXIT, str(tmp_path), "none"]
        ended = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, env=buffered)
    assert ended.returncode == 120  # as Python reports a standard stream it could not flush
    assert b"No space left on device" in ended.stderr
    assert (tmp_path / "exit-handler").read_text() == "ran"  # once, not again by Python's exit


def test_a_profiler_still_writes_its_report(tmp_path):
    report = tmp_path / "profile.out"
    command = [sys.executable, "-m", "cProfile", "-o", str(report), "-m", "templatekit.cli", "validate"]
    ended = subprocess.run([*command, str(EXAMPLES / "social-card.json")], capture_output=True, text=True)
    assert ended.returncode == 0 and "ok (1200x630" in ended.stdout
    assert report.stat().st_size > 0
