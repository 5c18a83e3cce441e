"""Render the example invoice to PDF with templatekit and with the tools people use instead.

Every contender makes the same one-page invoice (794x1123 px, 595.5x842.25 pt) with the
same Inter font files, and the client's name changes on every render (the same cycle of
names for everyone), so no contender can hand back a document it made before. Each
contender gets 3 warm-up renders, then ``--iterations`` timed ones; the last PDF of each,
and a 96 dpi PNG of its page, are written to ``benchmarks/out/`` so that a person can
check that they all show the same invoice.

    python benchmarks/invoice_pdf.py [--iterations 60] [--json out.json] [--skip chromium]

Needs poppler-utils (pdfinfo, pdftoppm, pdftotext). See docs/benchmarks.md for what is
measured and the targets.
"""

from __future__ import annotations

import argparse
import html
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import segno

import templatekit as tk

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "examples" / "templates" / "invoice.json"
PEERS = Path(__file__).resolve().parent / "peers"
HTML = PEERS / "invoice.html"
OUT = Path(__file__).resolve().parent / "out"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
POPPLER = ("pdfinfo", "pdftoppm", "pdftotext")
WARMUP = 3
QR_URL = "https://pay.example/inv/INV-2026-0142"
HTML_CLIENT = '<span id="client">Acme Robotics Ltd</span>'

# All fit the "Bill to" box on one line at 13 px, so every contender lays out the same lines.
CLIENTS = [
    "Acme Robotics Ltd",
    "Blue Harbour Coffee Co.",
    "Cobalt & Finch LLP",
    "Dunmore Architecture",
    "Elm Street Dental Practice",
    "Fjord Analytics AS",
    "Greenfield Bakery",
    "Halcyon Yoga Studio",
    "Iris Optics GmbH",
    "Juniper Health Trust",
    "Kestrel Outdoor Gear",
    "Lumen Lighting Ltd",
    "Marlow & Sons Builders",
    "Northgate Primary School",
    "Orchard Cider Company",
    "Pemberton Legal",
    "Quayside Ferries",
    "Redwood Software Ltd",
    "Saltmarsh Brewing Co.",
    "Thistle Bookshop",
]

# (label, contender measured, contender compared with, highest allowed ratio)
TIME_TARGETS = [
    ("templatekit time <= 0.5x WeasyPrint", "templatekit", "weasyprint", 0.5),
    ("templatekit time <= 0.35x Chromium", "templatekit", "chromium", 0.35),
    ("templatekit time <= 1.3x ReportLab by hand", "templatekit", "reportlab", 1.3),
]
SIZE_TARGET = ("templatekit PDF bytes <= WeasyPrint's", "templatekit", "weasyprint", 1.0)


@dataclass
class Figures:
    """Timings of one contender in ms, and what its last PDF is like."""

    name: str
    label: str
    times_ms: list[float]
    pdf_bytes: int = 0
    pages: int = 0
    page_size_pt: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def p90(self) -> float:
        return statistics.quantiles(self.times_ms, n=10, method="inclusive")[-1]


class Skipped(Exception):
    """A contender that cannot run on this machine; the message says why."""


def clients(count: int) -> Iterator[str]:
    for index in range(count):
        yield CLIENTS[index % len(CLIENTS)]


def timed(render: Callable[[str], bytes], iterations: int) -> tuple[list[float], bytes]:
    """Warm up, then time ``render`` (which returns the PDF) once per client."""
    for client in clients(WARMUP):
        render(client)
    times: list[float] = []
    pdf = b""
    for client in clients(iterations):
        start = time.perf_counter()
        pdf = render(client)
        times.append((time.perf_counter() - start) * 1000)
    return times, pdf


def inspected(name: str, label: str, times: list[float], pdf: bytes, client: str) -> Figures:
    """Save the last PDF and a PNG of its first page, and read its page count and size.
    A PDF that does not name the last client did not render the change: an error."""
    path = OUT / f"invoice-{name}.pdf"
    path.write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", "96", "-png", "-singlefile", str(path), str(path.with_suffix(""))], check=True)
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    if client not in text:
        raise RuntimeError(f"{name}: the last PDF does not show the last client, {client!r}")
    details = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    info = dict(line.split(":", 1) for line in details.splitlines() if ":" in line)
    size = info["Page size"].split("pts")[0].strip().replace(" x ", "x")
    return Figures(name, label, times, len(pdf), int(info["Pages"]), size)


def bill_to_after_name() -> str:
    """The lines of the template's "Bill to" text under the client's name, each after a
    newline: the client's name plus this is the whole text."""
    layers = json.loads(TEMPLATE.read_text(encoding="utf-8"))["layers"]
    text = next(layer["text"] for layer in layers if layer["name"] == "bill_to")
    return text[text.index("\n") :]


def qr_svg_uri() -> str:
    """The payment QR code as the template draws it: error level M, 2 px modules, a quiet
    zone of 1 module (62 px in all)."""
    return segno.make(QR_URL, error="m", micro=False, boost_error=False).svg_data_uri(scale=2, border=1)


# ------------------------------------------------------------------ contenders


def bench_templatekit(iterations: int) -> Figures:
    template = tk.load_template(TEMPLATE)
    after_name = bill_to_after_name()

    def render(client: str) -> bytes:
        return tk.render_pdf(template, {"bill_to": client + after_name}).data

    times, pdf = timed(render, iterations)
    return inspected("templatekit", "templatekit (in-process)", times, pdf, last_client(iterations))


def load_reportlab_invoice() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reportlab_invoice", PEERS / "reportlab_invoice.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def bench_reportlab(iterations: int) -> Figures:
    invoice = load_reportlab_invoice()
    assets = invoice.load_assets()
    times, pdf = timed(lambda client: invoice.render_invoice(assets, client), iterations)
    return inspected("reportlab", "ReportLab canvas (by hand)", times, pdf, last_client(iterations))


def bench_weasyprint(iterations: int) -> Figures:
    """The HTML with the QR code put in once; per render the client's name is put in and
    the whole string is laid out and written. Images are shared across renders through
    WeasyPrint's own ``cache`` argument."""
    try:
        import weasyprint
    except ImportError:
        raise Skipped("weasyprint is not installed (pip install weasyprint)") from None
    except OSError as exc:  # Pango or HarfBuzz missing
        raise Skipped(f"weasyprint cannot load its libraries: {exc}") from None
    page = HTML.read_text(encoding="utf-8").replace("QR_CODE_URI", qr_svg_uri())
    if page.count(HTML_CLIENT) != 1:
        raise Skipped(f"{HTML.name} no longer holds {HTML_CLIENT} once")
    base_url = f"{PEERS}/"
    images: dict[str, Any] = {}

    def render(client: str) -> bytes:
        document = page.replace(HTML_CLIENT, f'<span id="client">{html.escape(client)}</span>')
        return bytes(weasyprint.HTML(string=document, base_url=base_url).write_pdf(cache=images))

    times, pdf = timed(render, iterations)
    figures = inspected("weasyprint", "WeasyPrint (in-process)", times, pdf, last_client(iterations))
    figures.extra["versions"] = {"weasyprint": weasyprint.__version__, "pango": pango_version()}
    return figures


def pango_version() -> str:
    from weasyprint.text.ffi import pango

    number = int(pango.pango_version())
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


def bench_chromium(iterations: int) -> Figures:
    """One browser and one page; per render only the client's name changes, then page.pdf."""
    if not Path(CHROMIUM).exists():
        raise Skipped(f"{CHROMIUM} not found (apt-get install chromium)")
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        raise Skipped('playwright is not installed (pip install -e ".[bench]")') from None
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        except Error as exc:
            raise Skipped(f"Chromium did not start: {str(exc).strip().splitlines()[0]}") from None
        try:
            page = browser.new_page()
            page.goto(HTML.as_uri())
            page.evaluate(
                """async (qr) => {
                    document.querySelector(".qr img").src = qr;
                    await Promise.all([...document.images].map((image) => image.decode()));
                    await document.fonts.ready;
                }""",
                qr_svg_uri(),
            )

            def render(client: str) -> bytes:
                page.evaluate("(name) => { document.getElementById('client').textContent = name; }", client)
                return page.pdf(width="794px", height="1123px", print_background=True)

            times, pdf = timed(render, iterations)
        finally:
            browser.close()
    return inspected("chromium", "Chromium + Playwright", times, pdf, last_client(iterations))


def last_client(iterations: int) -> str:
    return CLIENTS[(iterations - 1) % len(CLIENTS)]


# ------------------------------------------------------------------ report


def machine() -> dict[str, str]:
    cpu = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.partition(":")[2].strip()
                break
    return {
        "nproc": str(len(os.sched_getaffinity(0))),
        "cpu": cpu,
        "os": platform.platform(),
        "python": platform.python_version(),
        "templatekit": tk.__version__,
        "reportlab": _package_version("reportlab"),
        "segno": segno.__version__,
        "resvg-py": _package_version("resvg-py"),
        "weasyprint": _package_version("weasyprint"),
        "pydyf": _package_version("pydyf"),
        "playwright": _package_version("playwright"),
        "chromium": _first_line([CHROMIUM, "--version"]) if Path(CHROMIUM).exists() else "not installed",
        "poppler": _first_line(["pdftoppm", "-v"]),
    }


def _package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _first_line(command: list[str]) -> str:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    return ((result.stdout or result.stderr).strip().splitlines() or ["?"])[0]


def summary(figures: Figures) -> dict[str, Any]:
    return {**asdict(figures), "median_ms": round(figures.median, 2), "p90_ms": round(figures.p90, 2)}


def report(results: dict[str, Figures], skipped: dict[str, str]) -> list[dict[str, Any]]:
    """Print the table and the targets; return the targets' outcome."""
    baseline = results["reportlab"]
    print(
        f"\n{'contender':<28} {'median ms':>10} {'p90 ms':>9} {'PDF bytes':>10} {'pages':>6} "
        f"{'page pt':>14} {'time vs ReportLab':>18}"
    )
    for figures in results.values():
        print(
            f"{figures.label:<28} {figures.median:>10.1f} {figures.p90:>9.1f} {figures.pdf_bytes:>10,} "
            f"{figures.pages:>6} {figures.page_size_pt:>14} {figures.median / baseline.median:>17.2f}x"
        )
    for name, reason in skipped.items():
        print(f"{name:<28} skipped: {reason}")

    outcomes: list[dict[str, Any]] = []
    for label, measured, compared, limit in TIME_TARGETS:
        if measured in results and compared in results:
            outcomes.append(_outcome(label, results[measured].median / results[compared].median, limit))
        else:
            outcomes.append({"target": label, "ratio": None, "limit": limit, "result": "SKIP"})
    label, measured, compared, limit = SIZE_TARGET
    if compared in results:
        outcomes.append(_outcome(label, results[measured].pdf_bytes / results[compared].pdf_bytes, limit))
    else:
        outcomes.append({"target": label, "ratio": None, "limit": limit, "result": "SKIP"})

    print(f"\n{'target':<46} {'measured':>9}  result")
    for outcome in outcomes:
        ratio = f"{outcome['ratio']:.3f}x" if outcome["ratio"] is not None else "-"
        print(f"{outcome['target']:<46} {ratio:>9}  {outcome['result']}")
    return outcomes


def _outcome(label: str, ratio: float, limit: float) -> dict[str, Any]:
    return {"target": label, "ratio": round(ratio, 3), "limit": limit, "result": "PASS" if ratio <= limit else "MISS"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=60, help="timed renders per contender (default 60)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also save the figures as JSON")
    parser.add_argument(
        "--skip", action="append", default=[], choices=["weasyprint", "chromium"], help="leave a contender out"
    )
    args = parser.parse_args(argv)
    if args.iterations < 2:
        parser.error("--iterations must be at least 2")
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    if missing:
        parser.error(f"{', '.join(missing)} not found (apt-get install poppler-utils)")

    OUT.mkdir(exist_ok=True)
    info = machine()
    print("machine: " + ", ".join(f"{key} {value}" for key, value in info.items()))
    print(f"{args.iterations} timed renders per contender after {WARMUP} warm-ups; {len(CLIENTS)} clients in turn")

    results: dict[str, Figures] = {}
    skipped: dict[str, str] = {}
    contenders: list[tuple[str, Callable[[int], Figures]]] = [
        ("templatekit", bench_templatekit),
        ("reportlab", bench_reportlab),
        ("weasyprint", bench_weasyprint),
        ("chromium", bench_chromium),
    ]
    for name, bench in contenders:
        if name in args.skip:
            continue
        print(f"{name} ...", flush=True)
        try:
            results[name] = bench(args.iterations)
        except Skipped as exc:
            print(f"  skipped: {exc}")
            skipped[name] = str(exc)
    if "weasyprint" in results:
        info.update(results["weasyprint"].extra["versions"])

    outcomes = report(results, skipped)
    print(f"\nlast PDF of each contender, and a 96 dpi PNG of its page: {OUT.relative_to(ROOT)}/invoice-*")
    if args.json:
        payload = {
            "machine": info,
            "iterations": args.iterations,
            "warmup": WARMUP,
            "clients": CLIENTS,
            "contenders": {name: summary(figures) for name, figures in results.items()},
            "skipped": skipped,
            "targets": outcomes,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"figures saved to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
