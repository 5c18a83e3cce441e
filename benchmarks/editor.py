"""How fast a change shows on the editor's canvas, in Chromium, for each example
template: from the change (a new text typed into the inspector, or a drag step of a
layer on the canvas) to the new render shown on the page, measured in the page.

The editor runs both ways it is served: by ``templatekit edit`` on a copy of the
template file, and by ``templatekit serve`` at /editor/ (previews rendered in the
server's worker processes) with the demo's key and templates. Each figure is the
median of ``--iterations`` changes, each a new text or a new place, so that nothing is
served from a cache of an earlier change.

    python benchmarks/editor.py [--iterations 20] [--templates event-ticket,dashboard]
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import common
from http_server import free_port

TARGET_MS = 100
#: Types text into the first text field of the selected layer and waits, in the page,
#: until the canvas shows the full-size render of that change.
TYPE_AND_WAIT = """async (text) => {
  const image = document.getElementById('canvas');
  const field = document.querySelector("#pane-layer textarea[aria-label='text']");
  const started = performance.now();
  field.value = text;
  field.dispatchEvent(new Event('input', { bubbles: true }));
  await new Promise((done) => {
    const check = () => (image.dataset.current === 'true' ? done() : requestAnimationFrame(check));
    check();
  });
  return performance.now() - started;
}"""
#: One step of a drag: a move of the selected layer as the canvas makes it while the
#: mouse is down, and the time until the thumbnail of it shows.
DRAG_STEP = """async (dx) => {
  const image = document.getElementById('canvas');
  const overlay = document.getElementById('overlay');
  const box = overlay.querySelector('.box.selected').getBoundingClientRect();
  const at = (x) => ({
    clientX: box.left + box.width / 2 + x, clientY: box.top + box.height / 2,
    bubbles: true, pointerId: 1, button: 0, altKey: true,
  });
  overlay.querySelector('.box.selected').dispatchEvent(new PointerEvent('pointerdown', at(0)));
  const started = performance.now();
  const shown = new Promise((done) => {
    image.addEventListener('load', () => done(performance.now() - started), { once: true });
  });
  overlay.dispatchEvent(new PointerEvent('pointermove', at(dx)));
  const elapsed = await shown;
  overlay.dispatchEvent(new PointerEvent('pointerup', at(dx)));
  await new Promise((done) => {
    const check = () => (image.dataset.current === 'true' ? done() : requestAnimationFrame(check));
    check();
  });
  return elapsed;
}"""


def measure(page_url: str, iterations: int, key: str = "", template_id: str = "") -> dict[str, float | str]:
    with common.chromium() as browser:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(page_url)
        if key:
            page.fill("#key", key)
            page.click("#connect button")
            page.wait_for_selector("#workspace:not([hidden])")
            page.select_option("#templates", template_id)
            page.wait_for_selector(".layer-row")
        page.wait_for_selector("#canvas[data-current=true]")
        text_layer = page.evaluate(
            "() => [...document.querySelectorAll('.layer-row')]"
            ".find((row) => row.querySelector('small').textContent === 'text')?.dataset.name"
        )
        page.click(f".layer-row[data-name='{text_layer}'] .layer-name")
        page.wait_for_selector("#pane-layer textarea[aria-label='text']")
        typed = [page.evaluate(TYPE_AND_WAIT, f"Change number {n}") for n in range(iterations + common.WARMUP)]
        dragged = [page.evaluate(DRAG_STEP, 5 + n % 7) for n in range(iterations + common.WARMUP)]
        page.close()
    typed, dragged = typed[common.WARMUP :], dragged[common.WARMUP :]
    return {
        "layer": text_layer,
        "type_ms": statistics.median(typed),
        "type_p90_ms": sorted(typed)[int(len(typed) * 0.9) - 1],
        "drag_ms": statistics.median(dragged),
    }


def started(command: list[str], pattern: str, lines: int = 1) -> tuple[subprocess.Popen[str], list[str]]:
    """A command running, and the groups of ``pattern`` in the first ``lines`` it printed."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    printed = "".join(process.stdout.readline() for _ in range(lines))
    found = re.search(pattern, printed, re.S)
    assert found, f"{command[3]} printed {printed!r}"
    return process, list(found.groups())


def serving(folder: Path) -> tuple[subprocess.Popen[str], str, str]:
    """``templatekit serve --demo`` on a free port: the process, the editor's address, the key."""
    port = free_port()
    command = [sys.executable, "-m", "templatekit.cli", "serve", "--demo", "--port", str(port)]
    command += ["--data-dir", str(folder / "data")]
    process, (key,) = started(command, r"demo API key: (\S+)", lines=5)
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/liveness", timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("templatekit serve did not start") from None
            time.sleep(0.2)
    return process, f"http://127.0.0.1:{port}/editor/", key


def report(name: str, via: str, found: dict[str, float | str]) -> None:
    verdict = "within" if float(found["type_ms"]) <= TARGET_MS else "OVER"
    print(
        f"{name:<16} {via:<7} {found['layer']:<12} {found['type_ms']:>17.1f} ms {found['type_p90_ms']:>5.1f} ms "
        f"{found['drag_ms']:>20.1f} ms   ({verdict} {TARGET_MS} ms)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument(
        "--templates",
        default="social-card,quote-card,product-card,event-ticket,certificate,invoice,dashboard,promo-video",
    )
    args = parser.parse_args(argv)
    names = args.templates.split(",")
    header = f"{'template':<16} {'served':<7} {'text layer':<12} {'type → full render':>20} {'p90':>8}"
    print(f"{header} {'drag step → shown':>23}")
    with tempfile.TemporaryDirectory() as folder:
        copies = Path(folder) / "templates"
        shutil.copytree(common.ROOT / "examples" / "templates", copies)  # edits never touch the examples
        for name in names:
            command = [sys.executable, "-m", "templatekit.cli", "edit", str(copies / f"{name}.json"), "--no-browser"]
            process, (url,) = started(command, r"(http://\S+)")
            try:
                report(name, "file", measure(url, args.iterations))
            finally:
                process.terminate()
        server, url, key = serving(Path(folder))
        try:
            for name in names:
                report(name, "server", measure(url, args.iterations, key, f"tpl_{name.replace('-', '_')}"))
        finally:
            server.terminate()


if __name__ == "__main__":
    main()
