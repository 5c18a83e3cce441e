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

import html
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import common
import segno
from common import OUT, PEERS, ROOT, Column, Skipped, Timings

import templatekit as tk

TEMPLATE = ROOT / "examples" / "templates" / "invoice.json"
HTML = PEERS / "invoice.html"
POPPLER = ("pdfinfo", "pdftoppm", "pdftotext")
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


@dataclass
class Figures(Timings):
    """Timings of one contender in ms, and what its last PDF is like."""

    pdf_bytes: int = 0
    pages: int = 0
    page_size_pt: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


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


def bench_in_process(iterations: int) -> tuple[Figures, Figures]:
    """templatekit and the ReportLab canvas by hand, both in this process, taking turns
    render by render (so that the machine's changes of speed fall on both alike)."""
    template = tk.load_template(TEMPLATE)
    after_name = bill_to_after_name()
    invoice = common.load_peer("reportlab_invoice.py")
    assets = invoice.load_assets()
    renders = {
        "templatekit": lambda client: tk.render_pdf(template, {"bill_to": client + after_name}).data,
        "reportlab": lambda client: invoice.render_invoice(assets, client),
    }
    timed = common.in_turns(renders, CLIENTS, iterations)
    client = CLIENTS[(common.WARMUP + iterations - 1) % len(CLIENTS)]
    return (
        inspected("templatekit", "templatekit (in-process)", *timed["templatekit"], client),
        inspected("reportlab", "ReportLab canvas (by hand)", *timed["reportlab"], client),
    )


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

    times, pdf = common.timed(render, CLIENTS, iterations)
    figures = inspected("weasyprint", "WeasyPrint (in-process)", times, pdf, common.last_input(CLIENTS, iterations))
    figures.extra["versions"] = {"weasyprint": weasyprint.__version__, "pango": pango_version()}
    return figures


def pango_version() -> str:
    from weasyprint.text.ffi import pango

    number = int(pango.pango_version())
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


def bench_chromium(iterations: int) -> Figures:
    """One browser and one page; per render only the client's name changes, then page.pdf."""
    with common.chromium() as browser:
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

        times, pdf = common.timed(render, CLIENTS, iterations)
    return inspected("chromium", "Chromium + Playwright", times, pdf, common.last_input(CLIENTS, iterations))


# ------------------------------------------------------------------ report


def machine() -> dict[str, str]:
    return common.machine(
        {
            "templatekit": tk.__version__,
            "reportlab": common.package_version("reportlab"),
            "segno": segno.__version__,
            "resvg-py": common.package_version("resvg-py"),
            "weasyprint": common.package_version("weasyprint"),
            "pydyf": common.package_version("pydyf"),
            "playwright": common.package_version("playwright"),
            "chromium": common.chromium_version(),
            "poppler": common.first_line(["pdftoppm", "-v"]),
        }
    )


# (label, contender measured, contender compared with, highest allowed ratio)
TIME_TARGETS = [
    ("templatekit time <= 0.5x WeasyPrint", "templatekit", "weasyprint", 0.5),
    ("templatekit time <= 0.35x Chromium", "templatekit", "chromium", 0.35),
    ("templatekit time <= 0.5x ReportLab by hand", "templatekit", "reportlab", 0.5),
]
SIZE_TARGET = ("templatekit PDF bytes <= WeasyPrint's", "templatekit", "weasyprint", 1.0)


def report(results: dict[str, Figures], skipped: dict[str, str]) -> list[dict[str, Any]]:
    """Print the table, the targets and where the PDFs are; return the targets' outcome."""
    baseline = results["reportlab"]
    columns: list[Column[Figures]] = [
        *common.timing_columns(),
        ("PDF bytes", 10, lambda figures: f"{figures.pdf_bytes:,}"),
        ("pages", 6, lambda figures: str(figures.pages)),
        ("page pt", 14, lambda figures: figures.page_size_pt),
        ("time vs ReportLab", 18, lambda figures: f"{figures.median / baseline.median:.2f}x"),
    ]
    common.print_table(results, skipped, 28, columns)
    outcomes = common.ratio_outcomes(results, TIME_TARGETS, lambda figures: figures.median)
    outcomes += common.ratio_outcomes(results, [SIZE_TARGET], lambda figures: figures.pdf_bytes)
    common.print_targets(outcomes, 46)
    print(f"\nlast PDF of each contender, and a 96 dpi PNG of its page: {OUT.relative_to(ROOT)}/invoice-*")
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__.split("\n\n")[0], ["weasyprint", "chromium"])
    args = common.parse_arguments(parser, argv)
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    if missing:
        parser.error(f"{', '.join(missing)} not found (apt-get install poppler-utils)")

    OUT.mkdir(exist_ok=True)
    info = machine()
    common.print_setup(info, args.iterations, CLIENTS, "clients")

    results: dict[str, Figures] = {}
    skipped: dict[str, str] = {}
    print("templatekit and ReportLab, in turns ...", flush=True)
    for figures in bench_in_process(args.iterations):
        results[figures.name] = figures
    contenders: list[tuple[str, Callable[[int], Figures]]] = [
        ("weasyprint", bench_weasyprint),
        ("chromium", bench_chromium),
    ]
    common.run_contenders(contenders, args.iterations, args.skip, results, skipped, args.rounds)
    if "weasyprint" in results:
        info.update(results["weasyprint"].extra["versions"])

    outcomes = report(results, skipped)
    common.save_run(args.json, info, args.iterations, ("clients", CLIENTS), results, skipped, outcomes, digits=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
