"""Render the example social card with templatekit and with the tools people use instead.

Every contender draws the same 1200x630 design with the same Inter font files, and the
title changes on every render (the same cycle of titles for everyone), so no contender
can hand back an image it made before. Each contender gets 3 warm-up renders, then
``--iterations`` timed ones; the last PNG of each is written to ``benchmarks/out/`` so
that a person can check that they all show the same card.

    python benchmarks/social_card.py [--iterations 60] [--json out.json] [--skip chromium]

See docs/benchmarks.md for what is measured and the targets.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import common
import PIL
import segno
from common import OUT, PEERS, ROOT, WARMUP, Column, Skipped, Timings
from PIL import Image

import templatekit as tk
from templatekit.outputs.encode import encode

TEMPLATE = ROOT / "examples" / "templates" / "social-card.json"
#: The second card: a flat background and TrueType fonts (DejaVu Sans, from Debian's
#: fonts-dejavu-core), where Pillow is at its fastest.
FLAT_TEMPLATE = ROOT / "benchmarks" / "flat-card.json"
QR_BASE = "https://templatekit.dev/p/"
SUBTITLE_WORDS = [
    "one JSON design, many outputs.",
    "PNG, JPEG, WebP, PDF and video from one template.",
    "modifications by layer name, rendered in milliseconds.",
    "the same card, in every language and script.",
]
LOGO = ROOT / "examples" / "templates" / "assets" / "logo.svg"
#: Whole processes timed of each command: a start takes a quarter of a second, and the
#: median of 5 moved by a tenth from run to run.
COLD_RUNS = 15

# All fit the title box at 64 px in at most 3 lines, so no contender needs shrink-to-fit.
TITLES = [
    "Render beautiful images from templates, at the speed of Pillow",
    "Ship social cards for every blog post without a headless browser",
    "Ten lessons from a year of generating marketing images",
    "How we cut our image pipeline from seconds to milliseconds",
    "Dynamic Open Graph images in one JSON file",
    "Designing templates that survive long titles",
    "A practical guide to QR codes on printed tickets",
    "Why your thumbnails look blurry and how to fix them",
    "Release notes: gradients, ellipses and better text fitting",
    "From Figma mock-up to production template in an afternoon",
    "Batch-rendering ten thousand product cards overnight",
    "Typography tips for cards that are read at a glance",
    "What we learned replacing Puppeteer in our stack",
    "Automating badges for a conference of 5,000",
    "The anatomy of a good Open Graph image",
    "Localising templates: right-to-left, CJK and emoji",
    "Keeping brand colours consistent across every channel",
    "Benchmarks, honestly: measuring render time on two cores",
    "Migrating a legacy image service without downtime",
    "Announcing templatekit 0.1",
]


@dataclass
class Figures(Timings):
    """Timings of one contender in ms, and the size of its PNGs: for templatekit and
    Pillow the mean over its timed renders (a card's file varies by a tenth with its
    text), for the others the last."""

    png_bytes: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Sized:
    """A render that notes the size of each PNG it returns."""

    def __init__(self, render: Callable[[Any], bytes]) -> None:
        self.render = render
        self.sizes: list[int] = []

    def __call__(self, item: Any) -> bytes:
        data = self.render(item)
        self.sizes.append(len(data))
        return data

    def mean(self, count: int) -> int:
        """The mean size of the last ``count`` PNGs (the timed ones)."""
        return round(statistics.mean(self.sizes[-count:]))


def qr_png() -> tuple[bytes, int]:
    """The QR code PNG that every peer shows (the Pillow peer's), and its side in px."""
    data = common.load_peer("pillow_card.py").qr_png()
    return data, Image.open(io.BytesIO(data)).width


def data_uri(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode()}"


# ------------------------------------------------------------------ contenders


def all_new(title: str, number: int) -> tuple[str, str, str]:
    """A title, subtitle and QR code URL that no earlier card had."""
    return (
        f"{title} ({number})",
        f"Edition {number}: {SUBTITLE_WORDS[number % len(SUBTITLE_WORDS)]}",
        f"{QR_BASE}{number}",
    )


def bench_cards(iterations: int) -> tuple[Figures, ...]:
    """templatekit in-process and the Pillow card by hand, taking turns render by render
    (so that the machine's changes of speed fall on both): a new title each time, then
    everything new each time (title, subtitle and QR code); and templatekit drawing the
    same card again."""
    template = tk.load_template(TEMPLATE)
    card = common.load_peer("pillow_card.py")
    assets = card.load_assets()

    def ours(modifications: dict[str, str]) -> bytes:
        return tk.render_image(template, modifications, format="png").data

    new_title = {
        "templatekit": Sized(lambda title: ours({"title": title})),
        "pillow": Sized(lambda title: bytes(card.render_card(assets, title))),
    }
    titled = common.in_turns(new_title, TITLES, iterations)
    everything = {
        "templatekit-all-new": Sized(lambda texts: ours(dict(zip(("title", "subtitle", "qr"), texts, strict=True)))),
        "pillow-all-new": Sized(lambda texts: bytes(card.render_card(assets, *texts))),
    }
    all_new = common.in_turns(everything, all_new_inputs(iterations), iterations)
    (OUT / "templatekit.png").write_bytes(titled["templatekit"][1])
    (OUT / "pillow.png").write_bytes(titled["pillow"][1])
    again = Sized(lambda _: ours({"title": TITLES[0]}))
    identical, _ = common.timed(again, TITLES, iterations)
    labels = {
        "templatekit": "templatekit (in-process), new title",
        "pillow": "Pillow + segno (by hand), new title",
        "templatekit-all-new": "templatekit, all new (title, subtitle, QR)",
        "pillow-all-new": "Pillow + segno, all new",
    }
    timed = {**titled, **all_new}
    renders = {**new_title, **everything}
    return (
        *(Figures(name, labels[name], timed[name][0], renders[name].mean(iterations)) for name in labels),
        Figures("templatekit-identical", "templatekit, the same card again", identical, again.mean(iterations)),
    )


def all_new_inputs(iterations: int) -> list[tuple[str, str, str]]:
    """The all-new cards' texts, warm-ups first: the same for every contender."""
    return [all_new(title, number + 1) for number, title in enumerate(common.cycled(TITLES, WARMUP + iterations))]


def bench_flat(iterations: int) -> tuple[Figures, Figures]:
    """The flat card (a flat background, DejaVu Sans TrueType: Pillow's fastest path),
    everything new each render, templatekit and Pillow taking turns render by render."""
    card = common.load_peer("pillow_card.py")
    if not (card.DEJAVU / "DejaVuSans.ttf").exists():
        raise Skipped(f"DejaVu Sans not found in {card.DEJAVU} (apt-get install fonts-dejavu-core)")
    template = tk.load_template(FLAT_TEMPLATE)
    assets = card.load_flat_assets()
    renders = {
        "templatekit-flat": Sized(
            lambda texts: (
                tk.render_image(template, {"title": texts[0], "subtitle": texts[1], "qr": texts[2]}, format="png").data
            )
        ),
        "pillow-flat": Sized(lambda texts: bytes(card.render_flat_card(assets, *texts))),
    }
    timed = common.in_turns(renders, all_new_inputs(iterations), iterations)
    for name, (_, last) in timed.items():
        (OUT / f"{name}.png").write_bytes(last)
    return (
        Figures(
            "templatekit-flat",
            "flat card: templatekit, all new",
            timed["templatekit-flat"][0],
            renders["templatekit-flat"].mean(iterations),
        ),
        Figures(
            "pillow-flat",
            "flat card: Pillow + segno, all new",
            timed["pillow-flat"][0],
            renders["pillow-flat"].mean(iterations),
        ),
    )


def bench_encoders(iterations: int, workloads: list[str]) -> list[Figures]:
    """Encoding alone, for each card: templatekit's PNG encoder on its own card's pixels
    against Pillow's ``save(format="PNG")`` (its defaults) on Pillow's card, and the JPEG and
    WebP templatekit writes against Pillow's at the same quality, on the same pixels."""
    return [row for workload in workloads for row in encoders_of(workload, iterations)]


def encoders_of(workload: str, iterations: int) -> list[Figures]:
    image = Image.open(OUT / f"templatekit{workload}.png").convert("RGBA")
    theirs = Image.open(OUT / f"pillow{workload}.png").convert("RGB")
    card = " (flat card)" if workload else ""
    timed = common.in_turns(
        {
            # opaque, as a render of the card passes it: its background is (is_opaque)
            "ours": lambda _: len(encode(image, "png", opaque=True).data),
            "pillow": lambda _: len(pillow_saved(theirs, "PNG")),
        },
        ["png"],
        iterations,
    )
    (ours_png, ours_size), (pillow_png, pillow_size) = timed["ours"], timed["pillow"]
    rows = [
        Figures(f"encode-png{workload}", f"PNG encode, templatekit{card}", ours_png, ours_size),
        Figures(f"pillow-png{workload}", f"PNG save, Pillow default{card}", pillow_png, pillow_size),
    ]
    flat = image.convert("RGB")
    for kind, settings in (("jpeg", {"quality": 90}), ("webp", {"quality": 90, "method": 4})):
        label = f"{kind.upper()} q90 on the same pixels{card}"
        rows += [
            Figures(f"{kind}{workload}", f"  templatekit {label}", [], len(encode(image, kind).data)),
            Figures(f"pillow-{kind}{workload}", f"  Pillow {label}", [], len(pillow_saved(flat, kind, **settings))),
        ]
    return rows


def pillow_saved(image: Image.Image, kind: str, **settings: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, kind, **settings)
    return out.getvalue()


def bench_chromium(iterations: int) -> Figures:
    """One browser and one page; per render only the title changes, then a screenshot."""
    with common.chromium() as browser:
        qr, qr_side = qr_png()
        page = browser.new_page(viewport={"width": 1200, "height": 630}, device_scale_factor=1)
        page.goto((PEERS / "card.html").as_uri())
        page.evaluate(
            """async ([logo, qr, side]) => {
                document.getElementById("logo").src = logo;
                const code = document.getElementById("qr");
                code.src = qr;
                code.width = code.height = side;
                await Promise.all([...document.images].map((image) => image.decode()));
                await document.fonts.ready;
            }""",
            [data_uri("image/svg+xml", LOGO.read_bytes()), data_uri("image/png", qr), qr_side],
        )
        last = b""

        def render(title: str) -> int:
            nonlocal last
            page.evaluate("(title) => { document.getElementById('title').textContent = title; }", title)
            last = page.screenshot(type="png")
            return len(last)

        times, size = common.timed(render, TITLES, iterations)
    (OUT / "chromium.png").write_bytes(last)
    return Figures("chromium", "Chromium + Playwright", times, size)


def npm_ready() -> None:
    """Install the Satori peer's packages from the lock file the first time."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise Skipped("node/npm not found (apt-get install nodejs npm)")
    if (PEERS / "node_modules" / "satori").exists() and (PEERS / "node_modules" / "@resvg" / "resvg-js").exists():
        return
    print("installing the Satori peer: npm ci in benchmarks/peers ...", flush=True)
    try:
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=PEERS, check=True, capture_output=True, text=True, timeout=300
        )
    except subprocess.CalledProcessError as exc:
        raise Skipped(f"npm ci failed: {(exc.stderr or exc.stdout).strip()[-500:]}") from None
    except subprocess.TimeoutExpired:
        raise Skipped("npm ci took more than 5 minutes") from None


@contextmanager
def satori_process() -> Iterator[Callable[[dict[str, Any]], dict[str, Any]]]:
    """The long-running Node peer, and a function that sends it one request."""
    process = subprocess.Popen(
        ["node", str(PEERS / "satori_card.mjs")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        answer = stdout.readline()
        if not answer:
            raise Skipped(f"the Node peer stopped (exit code {process.wait()})")
        return dict(json.loads(answer))

    try:
        yield ask
    finally:
        stdin.close()
        process.wait(timeout=30)


def bench_satori(iterations: int) -> Figures:
    """Per-render time as Node measures it (Satori + resvg-js), without the pipe hop;
    the round trip seen from Python is kept in the JSON output."""
    npm_ready()
    qr, qr_side = qr_png()
    node_times: list[float] = []
    with satori_process() as ask:
        ready = ask(
            {
                "logo": data_uri("image/svg+xml", LOGO.read_bytes()),
                "qr": {"uri": data_uri("image/png", qr), "side": qr_side},
            }
        )

        def render(title: str) -> int:
            answer = ask({"title": title})
            node_times.append(float(answer["ms"]))
            return int(answer["bytes"])

        round_trip, size = common.timed(render, TITLES, iterations)
        ask({"title": common.last_input(TITLES, iterations), "out": str(OUT / "satori.png")})
    return Figures(
        "satori",
        "Satori + resvg-js (in Node)",
        node_times[WARMUP:],
        size,
        {"versions": ready["versions"], "round_trip_median_ms": statistics.median(round_trip)},
    )


def bench_cold() -> tuple[Figures, Figures]:
    """Whole processes, as a person runs them: start, import, load fonts, render once,
    write the file. One untimed run of each first, so that files come from the page
    cache; then the two commands alternate."""
    cli = Path(sys.executable).parent / "templatekit"
    with tempfile.TemporaryDirectory() as scratch:
        commands = {
            "cold-templatekit": [str(cli), "render", str(TEMPLATE), "-o", f"{scratch}/x.png"],
            "cold-pillow": [sys.executable, str(PEERS / "pillow_card.py"), f"{scratch}/y.png"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for run in range(COLD_RUNS + 1):
            for name, command in commands.items():
                elapsed = common.command_ms(command)
                if run:
                    times[name].append(elapsed)
    return (
        Figures("cold-templatekit", "cold: templatekit render (CLI)", times["cold-templatekit"]),
        Figures("cold-pillow", "cold: pillow_card.py", times["cold-pillow"]),
    )


# ------------------------------------------------------------------ report


def machine() -> dict[str, str]:
    return common.machine(
        {
            "pillow": PIL.__version__,
            "segno": segno.__version__,
            "resvg-py": common.package_version("resvg-py"),
            "playwright": common.package_version("playwright"),
            "templatekit": tk.__version__,
            "chromium": common.chromium_version(),
            "node": common.first_line(["node", "--version"]) if shutil.which("node") else "not installed",
        }
    )


def png_bytes(figures: Figures) -> float:
    """The size target's measure; only rows that kept a PNG are compared by size."""
    assert figures.png_bytes is not None
    return figures.png_bytes


# (label, contender measured, contender compared with, highest allowed ratio)
TIME_TARGETS = [
    ("templatekit time <= 0.6x Pillow", "templatekit", "pillow", 0.6),
    ("all new: templatekit time <= 0.6x Pillow", "templatekit-all-new", "pillow-all-new", 0.6),
    ("flat card, all new: templatekit time <= 0.6x Pillow", "templatekit-flat", "pillow-flat", 0.6),
    ("PNG encode <= 0.5x Pillow save", "encode-png", "pillow-png", 0.5),
    ("flat card: PNG encode <= 0.5x Pillow save", "encode-png-flat", "pillow-png-flat", 0.5),
    ("templatekit time <= 0.3x Chromium", "templatekit", "chromium", 0.3),
    ("templatekit time <= 0.5x Satori", "templatekit", "satori", 0.5),
    ("cold templatekit render <= 1.5x cold Pillow script", "cold-templatekit", "cold-pillow", 1.5),
]
SIZE_TARGETS = [
    ("PNG bytes <= 1.1x Pillow's own card", "templatekit-all-new", "pillow-all-new", 1.1),
    ("flat card: PNG bytes <= 1.1x Pillow's own card", "templatekit-flat", "pillow-flat", 1.1),
    ("JPEG bytes <= Pillow's at the same quality", "jpeg", "pillow-jpeg", 1.0),
    ("flat card: JPEG bytes <= Pillow's at the same quality", "jpeg-flat", "pillow-jpeg-flat", 1.0),
    ("WebP bytes <= Pillow's at the same quality", "webp", "pillow-webp", 1.0),
    ("flat card: WebP bytes <= Pillow's at the same quality", "webp-flat", "pillow-webp-flat", 1.0),
]


#: The Pillow row each templatekit row is compared with (the rest: "pillow").
PILLOW_PEERS = {
    "templatekit-all-new": "pillow-all-new",
    "templatekit-flat": "pillow-flat",
    "encode-png": "pillow-png",
    "encode-png-flat": "pillow-png-flat",
}


def report(results: dict[str, Figures], skipped: dict[str, str]) -> list[dict[str, Any]]:
    """Print the table, the targets and where the PNGs are; return the targets' outcome."""

    def versus_pillow(figures: Figures) -> str:
        """Against Pillow doing the same (all new against all new, encoding against saving)."""
        pillow = results.get(PILLOW_PEERS.get(figures.name, "pillow"))
        if pillow is None or not figures.times_ms or figures.name.startswith(("cold", "pillow")):
            return ""
        return f"{figures.median / pillow.median:.2f}x"

    columns: list[Column[Figures]] = [
        *common.timing_columns(),
        ("PNG bytes", 10, lambda figures: f"{figures.png_bytes:,}" if figures.png_bytes is not None else ""),
        ("time vs Pillow", 15, versus_pillow),
    ]
    common.print_table(results, skipped, 52, columns)
    outcomes = common.ratio_outcomes(results, TIME_TARGETS, lambda figures: figures.median)
    outcomes += common.ratio_outcomes(results, SIZE_TARGETS, png_bytes)
    common.print_targets(outcomes, 52)
    print(f"\nlast PNG of each contender: {OUT.relative_to(ROOT)}/")
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__.split("\n\n")[0], ["chromium", "satori", "cold"])
    args = common.parse_arguments(parser, argv)
    OUT.mkdir(exist_ok=True)
    info = machine()
    common.print_setup(info, args.iterations, TITLES, "titles")

    results: dict[str, Figures] = {}
    skipped: dict[str, str] = {}
    print("templatekit and Pillow + segno, in turns ...", flush=True)
    for figures in bench_cards(args.iterations):
        results[figures.name] = figures
    flat = common.attempt(
        "flat", "flat card: templatekit and Pillow + segno, in turns ...", partial(bench_flat, args.iterations), skipped
    )
    for figures in flat or ():
        results[figures.name] = figures
    print("encoders ...", flush=True)
    for figures in bench_encoders(args.iterations, ["", "-flat"] if flat else [""]):
        results[figures.name] = figures
    peers: list[tuple[str, Callable[[int], Figures]]] = [("satori", bench_satori), ("chromium", bench_chromium)]
    common.run_contenders(peers, args.iterations, args.skip, results, skipped, args.rounds)
    if "cold" not in args.skip:
        cold = common.attempt("cold start", f"cold start, {COLD_RUNS} runs each ...", bench_cold, skipped)
        for figures in cold or ():
            results[figures.name] = figures
    if "satori" in results:
        versions = results["satori"].extra["versions"]
        info.update(versions)
        print(f"Node peer: node {versions['node']}, satori {versions['satori']}, resvg-js {versions['resvg-js']}")

    outcomes = report(results, skipped)
    common.save_run(args.json, info, args.iterations, ("titles", TITLES), results, skipped, outcomes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
