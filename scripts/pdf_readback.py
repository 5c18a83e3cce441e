"""Measure how every script's line reads back from our PDFs and from Chromium's PDFs of
the same line, in five text extractors; record it for the tests and the docs.

    python scripts/pdf_readback.py

Each line of ``tests/script_lines.py`` is rendered by ``render_pdf`` and, in Debian's
Chromium with the same bundled fonts, by ``page.pdf()``; poppler's pdftotext, PyMuPDF,
pdfminer.six, pypdf and PDFium read both. The results go to
``tests/templatekit/paint/pdf/pdf_readback.json`` (what each reader gives, with the readers'
versions: the expectations of tests/templatekit/paint/pdf/test_scripts.py) and to the table in
docs/pdf.md. Run it again when a reader or the PDF writer changes, and read the diff.
Needs the test extra and Chromium.
"""

from __future__ import annotations

import html
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import pdf_readers  # noqa: E402
from tests.script_lines import SCRIPT_LINES, one_line  # noqa: E402

import templatekit as tk  # noqa: E402
from templatekit.text.fonts import FONT_DIR  # noqa: E402

RECORD = ROOT / "tests" / "templatekit" / "paint" / "pdf" / "pdf_readback.json"
DOCS = ROOT / "docs" / "pdf.md"
TABLE_START = "<!-- readback table: scripts/pdf_readback.py writes it -->"
TABLE_END = "<!-- end of the readback table -->"


def chromium_pdfs(lines: dict[str, str]) -> dict[str, bytes]:
    """Each line as Chromium prints it, in the bundled fonts (Inter first, then each
    script's Noto face, colour emoji last, as templatekit falls back)."""
    from playwright.sync_api import sync_playwright

    families = [path for path in sorted(FONT_DIR.glob("*-Regular.*"))]
    faces = "".join(
        f"@font-face{{font-family:'{path.stem.removesuffix('-Regular')}';src:url('{path.as_uri()}');}}"
        for path in families
    )
    names = [path.stem.removesuffix("-Regular") for path in families]
    order = ["Inter", *(n for n in names if n not in ("Inter", "DancingScript", "NotoColorEmoji")), "NotoColorEmoji"]
    stack = ",".join(f"'{name}'" for name in order)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    printed = {}
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        for name, text in lines.items():
            source = Path(folder) / "line.html"
            style = f"{faces} body{{margin:10px;font-family:{stack};font-size:28px}}"
            source.write_text(f"<meta charset=utf-8><style>{style}</style><p>{html.escape(text)}</p>")
            page.goto(source.as_uri())
            page.evaluate("document.fonts.ready")
            printed[name] = page.pdf(width="900px", height="80px")
        browser.close()
    return printed


def measure() -> dict[str, object]:
    theirs = chromium_pdfs(SCRIPT_LINES)
    lines: dict[str, dict[str, dict[str, str]]] = {}
    for name, text in SCRIPT_LINES.items():
        ours = tk.render_pdf(one_line(text)).data
        lines[name] = {
            extractor: {
                "ours": pdf_readers.read_back(ours, extractor),
                "chromium": pdf_readers.read_back(theirs[name], extractor),
            }
            for extractor in pdf_readers.EXTRACTORS
        }
    return {"readers": pdf_readers.versions(), "lines": lines}


def table(record: dict[str, object]) -> str:
    """The docs' table: for each script and extractor, ✓ when our PDF reads back exactly,
    and the same for Chromium's PDF of the line."""
    lines = record["lines"]
    assert isinstance(lines, dict)
    extractors = list(pdf_readers.EXTRACTORS)
    rows = [
        "| script | " + " | ".join(extractors) + " |",
        "|---|" + "---|" * len(extractors),
    ]
    for name, results in lines.items():
        cells = []
        for extractor in extractors:
            expected = pdf_readers.normalised(SCRIPT_LINES[name])
            ours = "✓" if results[extractor]["ours"] == expected else "✗"
            theirs = "✓" if results[extractor]["chromium"] == expected else "✗"
            cells.append(f"{ours} ({theirs})")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    record = measure()
    RECORD.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    docs = DOCS.read_text()
    start, end = docs.index(TABLE_START) + len(TABLE_START), docs.index(TABLE_END)
    DOCS.write_text(docs[:start] + "\n" + table(record) + "\n" + docs[end:])
    print(f"wrote {RECORD.relative_to(ROOT)} and the table in {DOCS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
