"""A worker of ``templatekit batch`` killed mid-batch (the OOM killer, a crash in native
code): the batch ends, says so, keeps the warnings of the files it wrote, and exits 1;
it neither hangs nor ends in a traceback."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys

import pytest

from templatekit.batch_command import WARNINGS_FILE
from tests.conftest import layer, template

pytestmark = pytest.mark.slow

#: Runs the command with one row that kills its worker process, as the OOM killer would.
KILLER = """
import os, signal, sys
import templatekit.batch as batch
from templatekit.cli import main

drawn = batch.render_image

def render_image(template, modifications, **options):
    if any(m.get("text") == "kill me" for m in modifications):
        os.kill(os.getpid(), signal.SIGKILL)
    return drawn(template, modifications, **options)

batch.render_image = render_image  # the pool's workers are forks: they inherit it
sys.exit(main(sys.argv[1:]))
"""

#: Big enough that a worker's results fill the pipe they go back on.
CARD = template(
    layer("image", "noise", x=0, y=0, width=600, height=600, src="noise.png"),
    layer("text", "title", x=0, y=0, width=120, height=30, text="Hello"),
    width=600,
    height=600,
)


def test_a_killed_worker_ends_the_batch_with_its_summary_not_a_hang(tmp_path):
    from PIL import Image

    Image.effect_noise((600, 600), 100).convert("RGB").save(tmp_path / "noise.png")
    template_path = tmp_path / "card.json"
    template_path.write_text(json.dumps(CARD))
    long = "words that do not fit in the box " * 10
    titles = [long] * 40 + ["kill me"] + [long] * 40
    data = tmp_path / "data.csv"
    with data.open("w", newline="") as handle:
        csv.writer(handle).writerows([["title"], *([title] for title in titles)])
    out = tmp_path / "o"
    command = [sys.executable, "-c", KILLER, "batch", str(template_path), "--csv", str(data), "-o", str(out)]
    process = subprocess.Popen(
        [*command, "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the command and its workers
        process.communicate()
        pytest.fail("the batch hung after one of its workers was killed")
    assert process.returncode == 1 and "Traceback" not in stderr, stderr
    assert "worker" in stderr  # why the batch ended
    written = sorted(path.name for path in out.glob("*.png"))
    assert 0 < len(written) < len(titles) and f"{out}: {len(written)} written" in stdout
    with (out / WARNINGS_FILE).open(newline="") as handle:
        warned = {entry["file"] for entry in csv.DictReader(handle)}
    assert warned == set(written)  # a second run skips these files: their warnings must be kept now
