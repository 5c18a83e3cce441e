"""The README's quick start, as a new user runs it, checked from outside.

``python scripts/quickstart_check.py editable`` copies the repository into a fresh folder
and runs the README's first command there, word for word (only ``--port`` is added):
a new virtual environment, ``pip install -e ".[server]"``, ``templatekit serve --demo``.
``python scripts/quickstart_check.py wheel`` builds the wheel, installs
``templatekit[server]`` from it into a fresh virtual environment, and starts
``templatekit serve --demo`` from an empty folder.
``python scripts/quickstart_check.py container`` builds the Dockerfile with podman from a
fresh copy of the repository (on the base image ``$TEMPLATEKIT_CONTAINER_BASE`` names, when
set) and runs ``templatekit serve --demo`` in the image, on the host's network.

Either way the server runs with nothing of this environment (no PATH entry, no
PYTHONPATH), and this script, from the outside, runs the curl line the server printed,
then renders every demo template over HTTP in every way it supports: PNG, JPEG, WebP,
thumbnail, PDF, stored image, signed URL, and for video templates a video streamed to
``done``. Every output is decoded (Pillow, pypdf, PyAV). A template the server announces
at start as not renderable, or any failure, fails the check.
It needs the test extra in the environment that runs it (``pip install -e ".[test]"``).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import io
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import av
import httpx
import pypdf
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
START_SECONDS = 120.0
VIDEO_SECONDS = 300.0
IMAGE_FORMATS = {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP"}


class CheckFailed(Exception):
    """What a new user would have met."""


def readme_command() -> str:
    """The first command of the README's quick start."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    if block is None:
        raise CheckFailed("README.md: the quick start has no ```sh block")
    first = block.group(1).splitlines()[0].strip()
    if not first.endswith("templatekit serve --demo"):
        raise CheckFailed(f"README.md: the first command does not end with 'templatekit serve --demo': {first}")
    return first


def readme_block(heading: str) -> str:
    """The ```sh block of the README's section ``heading``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"\n## {heading}\n", 1)[-1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    if block is None:
        raise CheckFailed(f"README.md: the section {heading!r} has no ```sh block")
    return block.group(1)


def clean_environment() -> dict[str, str]:
    """This process's environment without its virtual environment: what a new shell has."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    ours = Path(sys.prefix) / "bin"
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if Path(p) != ours)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def copy_of_repository(target: Path) -> Path:
    """The files git knows of (committed or not, ignored ones left out), as a fresh checkout has."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (item.decode() for item in listed)):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def editable_command(work: Path, port: int) -> tuple[list[str], Path]:
    checkout = copy_of_repository(work / "templatekit")
    return ["bash", "-c", f"{readme_command()} --port {port}"], checkout


def wheel_command(work: Path, port: int) -> tuple[list[str], Path]:
    dist = work / "dist"
    run(["python3", "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)], work)
    wheel = next(dist.glob("templatekit-*.whl"))
    run(["python3", "-m", "venv", str(work / "venv")], work)
    run([str(work / "venv/bin/pip"), "install", "-q", f"{wheel}[server]"], work)
    folder = work / "empty"
    folder.mkdir()
    return [str(work / "venv/bin/templatekit"), "serve", "--demo", "--port", str(port)], folder


#: The image and the container of the container check.
IMAGE = "localhost/templatekit:quickstart-check"
CONTAINER = "templatekit-quickstart-check"


def container_command(work: Path, port: int) -> tuple[list[str], Path]:
    context = copy_of_repository(work / "templatekit")
    base = os.environ.get("TEMPLATEKIT_CONTAINER_BASE")
    build = ["podman", "build", "--quiet", "--network=host", "--tag", IMAGE]
    run([*build, *(["--build-arg", f"BASE={base}"] if base else []), str(context)], work)
    serve = ["templatekit", "serve", "--demo", "--port", str(port)]
    return ["podman", "run", "--rm", "--name", CONTAINER, "--network=host", IMAGE, *serve], work


COMMANDS = {"editable": editable_command, "wheel": wheel_command, "container": container_command}


def run(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, env=clean_environment(), capture_output=True, text=True)
    if done.returncode != 0:
        raise CheckFailed(f"{shlex.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")


class Server:
    """The server process, with what it printed."""

    def __init__(self, command: list[str], cwd: Path, port: int) -> None:
        self.root = f"http://127.0.0.1:{port}"
        self.lines: list[str] = []
        print(f"$ {shlex.join(command)}  (in {cwd})", flush=True)
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=clean_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def output(self) -> str:
        return "\n".join(self.lines)

    def wait_until_up(self) -> None:
        """Until /v1/liveness answers; installing comes first, so this may take minutes."""
        deadline = time.monotonic() + START_SECONDS + 600
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise CheckFailed(f"the server stopped ({self.process.returncode}):\n{self.output()}")
            try:
                if httpx.get(f"{self.root}/v1/liveness", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        raise CheckFailed(f"the server did not answer:\n{self.output()}")

    def printed(self, pattern: str) -> re.Match[str]:
        for line in self.lines:
            found = re.search(pattern, line)
            if found:
                return found
        raise CheckFailed(f"the server did not print {pattern!r}:\n{self.output()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


# ---------------------------------------------------------------- what a client checks


def whatwg(text: str) -> str:
    """URLSearchParams' form encoding (quote_plus keeps ``~``, which WHATWG encodes)."""
    return quote_plus(text, safe="*").replace("~", "%7E")


def signed_query(key: str, params: dict[str, str]) -> dict[str, str]:
    text = "&".join(f"{whatwg(name)}={whatwg(value)}" for name, value in sorted(params.items()))
    return {**params, "sign": hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()}


def decoded_image(data: bytes, fmt: str, size: tuple[int, int], what: str) -> None:
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except Exception as exc:
        raise CheckFailed(f"{what}: not an image ({exc}): {data[:200]!r}") from None
    if image.format != fmt or image.size != size:
        raise CheckFailed(f"{what}: {image.format} {image.size}, expected {fmt} {size}")
    extrema = image.convert("RGB").getextrema()
    if all(low == high for low, high in extrema):
        raise CheckFailed(f"{what}: a blank image")


def decoded_pdf(data: bytes, size: tuple[int, int], what: str) -> str:
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        page = reader.pages[0]
    except Exception as exc:
        raise CheckFailed(f"{what}: not a PDF ({exc})") from None
    box = (round(float(page.mediabox.width)), round(float(page.mediabox.height)))
    if box != (round(size[0] * 0.75), round(size[1] * 0.75)):
        raise CheckFailed(f"{what}: page of {box} pt, expected 0.75 pt per px of {size}")
    return "".join(page.extract_text() or "" for page in reader.pages)


def probed_video(data: bytes, size: tuple[int, int], seconds: float, what: str) -> None:
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        fps = float(stream.average_rate or 0)
        found = (stream.codec_context.name, stream.codec_context.width, stream.codec_context.height)
    if found != ("h264", *size) or abs(frames - seconds * fps) > 1:
        raise CheckFailed(f"{what}: {found}, {frames} frames at {fps} fps; expected h264 {size}, {seconds} s")


def expect(answer: httpx.Response, what: str, status: int = 200) -> httpx.Response:
    if answer.status_code != status:
        raise CheckFailed(f"{what}: HTTP {answer.status_code}: {answer.text[:2000]}")
    return answer


class Client:
    """The demo's key, talking to the server as the README tells a user to."""

    def __init__(self, root: str, key: str) -> None:
        self.api = f"{root}/v1"
        self.key = key
        self.http = httpx.Client(timeout=120, headers={"Authorization": f"Bearer {key}"})

    def post(self, path: str, body: dict[str, Any], what: str) -> httpx.Response:
        return expect(self.http.post(f"{self.api}{path}", json=body), what)

    def render_all(self, template: dict[str, Any]) -> list[str]:
        """Every render the template supports, each decoded; what was done, one line each."""
        tid, size = template["id"], (template["width"], template["height"])
        done = []
        for fmt, pil in IMAGE_FORMATS.items():
            answer = self.post("/templates/createImage", {"templateId": tid, "format": fmt}, f"{tid} {fmt}")
            decoded_image(answer.content, pil, size, f"{tid} {fmt}")
            done.append(fmt)
        thumb = self.post("/templates/createImage", {"templateId": tid, "thumbnail": True}, f"{tid} thumbnail")
        longest = max(Image.open(io.BytesIO(thumb.content)).size)
        if longest != min(320, max(size)):
            raise CheckFailed(f"{tid} thumbnail: longest side {longest} px, expected 320")
        done.append("thumbnail")
        pdf = self.post("/templates/createPdf", {"templateId": tid}, f"{tid} pdf")
        text = decoded_pdf(pdf.content, size, f"{tid} pdf")
        done.append(f"pdf ({len(text.split())} words of text)")
        stored = self.post("/templates/createStoredImage", {"templateId": tid, "format": "webp"}, f"{tid} stored")
        url = stored.json()["url"]
        decoded_image(expect(httpx.get(url, timeout=60), f"{tid} stored file").content, "WEBP", size, url)
        done.append("stored image")
        params = {
            "apiKeyHashed": hashlib.sha256(self.key.encode()).hexdigest(),
            "templateId": tid,
            "format": "jpeg",
            "expires": str(int(time.time()) + 600),
        }
        signed = httpx.get(f"{self.api}/templates/signedurl", params=signed_query(self.key, params), timeout=120)
        decoded_image(expect(signed, f"{tid} signed URL").content, "JPEG", size, f"{tid} signed URL")
        done.append("signed URL")
        if template["kind"] == "video":
            done.append(self.video(template))
        return done

    def video(self, template: dict[str, Any]) -> str:
        tid = template["id"]
        source = expect(self.http.get(f"{self.api}/templates/{tid}/source"), f"{tid} source").json()
        seconds = float(source["video"]["duration"])
        events = []
        with self.http.stream(
            "POST", f"{self.api}/templates/renderVideo", params={"stream": "true"}, json={"templateId": tid}
        ) as response:
            expect(response, f"{tid} renderVideo")
            for event, data in sse(response.iter_lines()):
                events.append(event)
                if event == "error":
                    raise CheckFailed(f"{tid} renderVideo: {data}")
                if event == "done":
                    url = data["url"]
                    break
            else:
                raise CheckFailed(f"{tid} renderVideo: the stream ended after {events}")
        if "progress" not in events:
            raise CheckFailed(f"{tid} renderVideo: no progress events in {events}")
        video = expect(httpx.get(url, timeout=120), f"{tid} video file")
        probed_video(video.content, (template["width"], template["height"]), seconds, url)
        return f"video ({seconds:g} s, streamed: {', '.join(dict.fromkeys(events))})"


def readme_commands(checkout: Path, port: int, key: str) -> str:
    """The README's HTTP and command-line blocks, run as written in the checkout with its
    virtual environment active and ``$KEY`` the demo key (the port is the server's), and
    what each wrote decoded."""
    env = {**clean_environment(), "KEY": key, "VIRTUAL_ENV": str(checkout / ".venv")}
    env["PATH"] = f"{checkout / '.venv/bin'}{os.pathsep}{env['PATH']}"
    printed = ""
    for heading in ("Use it over HTTP", "Use it from the command line"):
        block = readme_block(heading).replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block], cwd=checkout, env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise CheckFailed(f"README, {heading}: failed ({done.returncode}):\n{block}\n{done.stdout}\n{done.stderr}")
        printed += done.stdout
    if '"done"' not in printed and "event: done" not in printed:
        raise CheckFailed(f"README: the streamed video did not end with done:\n{printed[-2000:]}")
    decoded_image((checkout / "invoice.png").read_bytes(), "PNG", (794, 1123), "README: invoice.png (curl)")
    decoded_image((checkout / "card.png").read_bytes(), "PNG", (1200, 630), "README: card.png")
    decoded_image((checkout / "mug.jpg").read_bytes(), "JPEG", (1080, 1080), "README: mug.jpg")
    decoded_image((checkout / "ticket.webp").read_bytes(), "WEBP", (320, 128), "README: ticket.webp")
    decoded_pdf((checkout / "invoice.pdf").read_bytes(), (794, 1123), "README: invoice.pdf")
    probed_video((checkout / "promo.mp4").read_bytes(), (1280, 720), 5.0, "README: promo.mp4")
    cards = sorted((checkout / "out").glob("*.png"))
    for card in cards:
        decoded_image(card.read_bytes(), "PNG", (1080, 1080), f"README: batch {card.name}")
    if len(cards) < 3:
        raise CheckFailed(f"README: the batch wrote {[card.name for card in cards]}")
    return f"the HTTP and command-line blocks ran as written; {len(cards)} batch cards and 6 files decoded"


def sse(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line[len("event: ") :]
        elif line.startswith("data: ") and event is not None:
            yield event, json.loads(line[len("data: ") :])
            event = None


def editor_works(client: Client, page: str) -> str:
    """The editor's page and every module it imports are served from the installed
    package, and a preview of a demo template reads its QR code back (zxing-cpp came
    with the server extra)."""
    served: set[str] = set()
    waiting = [page]
    while waiting:
        url = waiting.pop()
        text = expect(client.http.get(url), f"GET {url}").text
        served.add(url)
        found = re.findall(r'(?:src|href)="([^":]+)"|from "(\.{1,2}/[^"]+)"', text)
        for linked in (a or b for a, b in found):
            absolute = urllib.parse.urljoin(url, linked)
            if absolute not in served and absolute not in waiting:
                waiting.append(absolute)
    source = expect(client.http.get(f"{client.api}/templates/tpl_event_ticket/source"), "the ticket's source").json()
    drawn = expect(client.http.post(f"{client.api}/templates/preview", json={"template": source}), "previewTemplate")
    decoded_image(drawn.content, "PNG", (source["width"], source["height"]), "the ticket's preview")
    scans = json.loads(drawn.headers.get("X-Templatekit-Scans", "[]"))
    if not any(scan["scans"] is True for scan in scans):
        raise CheckFailed(f"the ticket's QR code was not read back from its preview: {scans}")
    return f"{len(served)} files served; a preview's QR code scans"


def dashboard_works(address: str, email: str, password: str) -> str:
    """The demo owner signs in to the dashboard the server printed, and its pages come
    from the installed package: its HTML templates, its style sheet, a thumbnail."""
    with httpx.Client(follow_redirects=True, timeout=60) as browser:
        form = expect(browser.get(address), "the dashboard's sign-in page")
        token = re.search(r'name="csrf" value="([^"]+)"', form.text)
        if token is None:
            raise CheckFailed("the sign-in page has no CSRF token")
        signed = browser.post(str(form.url), data={"email": email, "password": password, "csrf": token.group(1)})
        expect(signed, "signing in as the demo owner")
        if "Demo project" not in signed.text:
            raise CheckFailed("signed in, the dashboard does not show the demo project")
        sheet = re.search(r'href="([^"]+dashboard\.css)"', signed.text)
        expect(browser.get(urllib.parse.urljoin(str(signed.url), sheet.group(1) if sheet else "")), "its style sheet")
        pages = expect(browser.get(urllib.parse.urljoin(str(signed.url), "templates")), "the templates page")
        thumbnail = re.search(r'<img src="([^"]+thumbnail\.png[^"]*)"', pages.text)
        if thumbnail is None:
            raise CheckFailed("the templates page shows no thumbnail")
        drawn = expect(
            browser.get(urllib.parse.urljoin(str(pages.url), thumbnail.group(1).replace("&amp;", "&"))), "a thumbnail"
        )
        if not drawn.content.startswith(b"\x89PNG"):
            raise CheckFailed("a thumbnail is not a PNG")
    return "the demo owner signs in; pages, style sheet and thumbnails are served"


def check(mode: str) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="quickstart-") as scratch:
        work = Path(scratch)
        command, cwd = COMMANDS[mode](work, port)
        server = Server(command, cwd, port)
        try:
            server.wait_until_up()
            key = server.printed(r"demo API key: (tk_live_\S+)").group(1)
            curl = server.printed(r"^\s+(curl .*)$").group(1)
            server.printed(rf"http://127\.0\.0\.1:{port}/playground/")
            notes = (re.match(r"^note: .* \((tpl_\w+)\): (.*)$", line) for line in server.lines)
            announced = {note.group(1): note.group(2) for note in notes if note}
            out = work / "curl"
            out.mkdir()
            done = subprocess.run(shlex.split(curl), cwd=out, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise CheckFailed(f"the printed curl line failed: {curl}\n{done.stderr}")
            decoded_image((out / "card.png").read_bytes(), "PNG", (1200, 630), "the printed curl line's card.png")
            print("curl line: card.png 1200x630", flush=True)
            client = Client(server.root, key)
            templates = expect(client.http.get(f"{client.api}/templates"), "list templates").json()
            if len(templates) < 8:
                raise CheckFailed(f"the demo has {len(templates)} templates: {[t['id'] for t in templates]}")
            for template in templates:
                reason = announced.get(template["id"])
                if reason is not None:
                    raise CheckFailed(f"{template['id']}: the server says it cannot render it: {reason}")
                print(f"{template['id']}: {', '.join(client.render_all(template))}", flush=True)
            if mode == "editable":
                print(f"README: {readme_commands(cwd, port, key)}", flush=True)
            editor = server.printed(rf"(http://127\.0\.0\.1:{port}/editor/)").group(1)
            print(f"editor: {editor_works(client, editor)}", flush=True)
            signing_in = server.printed(r"dashboard: (\S+)  sign in with (\S+) / (\S+)$")
            print(f"dashboard: {dashboard_works(*signing_in.groups())}", flush=True)
        except CheckFailed:
            print(server.output()[-6000:], file=sys.stderr)
            raise
        finally:
            server.stop()
            if mode == "container":  # stopped by the signal podman passes on; else removed here
                subprocess.run(["podman", "rm", "--force", "--ignore", CONTAINER], capture_output=True, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "mode", choices=COMMANDS, help="install as the README says, from the wheel, or in the container image"
    )
    args = parser.parse_args()
    started = time.monotonic()
    try:
        check(args.mode)
    except CheckFailed as exc:
        print(f"quick start ({args.mode}) FAILED: {exc}", file=sys.stderr)
        return 1
    print(f"quick start ({args.mode}): every demo template checked in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
