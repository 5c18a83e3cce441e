"""Optional extras: a missing package is named by the distribution that provides it,
with the extra that installs it, wherever it is needed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from templatekit import extras
from tests.conftest import layer, template, without_modules

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "templates"


def test_a_dependency_of_a_dependency_is_named_too():
    nested = ModuleNotFoundError("No module named 'gone.browsers'", name="gone.browsers")
    assert extras.explain("charts", nested) == (
        'drawing charts with Plotly needs gone, which is not installed: pip install "templatekit[charts]"'
    )
    broken = ImportError("libGL.so.1: cannot open shared object file", name="cv2")
    assert extras.explain("video", broken) == (
        "video rendering needs opencv-python-headless, which is installed but cannot be imported"
        ' (libGL.so.1: cannot open shared object file): pip install "templatekit[video]"'
    )


def test_everything_of_the_test_installation_is_available():
    for name in extras.EXTRAS:
        assert extras.unavailable(name) is None, name


def run_hiding(tmp_path: Path, names: tuple[str, ...], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **without_modules(tmp_path, *names)}
    command = [sys.executable, "-m", "templatekit.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)


@pytest.mark.parametrize(
    ("hidden", "named"),
    [
        (("cv2",), "opencv-python-headless, which is"),
        (("av",), "av, which is"),
        (("numpy", "cv2"), "numpy, opencv-python-headless, which are"),
    ],
)
def test_a_video_without_its_packages_names_the_missing_one(tmp_path, hidden, named):
    path = tmp_path / "clip.json"
    path.write_text(json.dumps(template(layer("shape", "box", fill="#ff0000"), video={"duration": 1, "fps": 10})))
    done = run_hiding(tmp_path, hidden, "render", str(path), "-o", str(tmp_path / "clip.mp4"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: video rendering needs {named}")
    assert 'pip install "templatekit[video]"' in done.stderr
    assert not (tmp_path / "clip.mp4").exists()


def test_a_missing_server_is_named(tmp_path):
    done = run_hiding(tmp_path, ("starlette",), "serve", "--port", "1")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: templatekit serve: the server needs starlette, which is not installed:"
        ' pip install "templatekit[server]"'
    )


def test_a_missing_editor_is_named(tmp_path):
    done = run_hiding(tmp_path, ("starlette",), "edit", str(tmp_path / "card.json"), "--no-browser")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: templatekit edit: the editor on a file needs starlette, which is not installed:"
        ' pip install "templatekit[editor]"'
    )
