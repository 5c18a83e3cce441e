"""The documentation site builds with warnings as errors: every link and anchor resolves,
the gallery is rendered from docs/gallery/*.json, and the API reference is generated from
the server's OpenAPI document."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import needs_chrome

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


@needs_chrome  # the gallery has charts
def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("material")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    sheets = sorted(path.stem for path in (ROOT / "docs" / "gallery").glob("*.json"))
    assert sheets and sorted(path.stem for path in (site / "gallery").glob("*.png")) == sheets
    reference = (site / "api-reference" / "index.html").read_text()
    for operation in ("createImage", "createPdf", "createStoredImage", "renderVideo", "signedUrl", "getVideo"):
        assert f"<code>{operation}</code>" in reference
    assert (site / "openapi.json").exists()
