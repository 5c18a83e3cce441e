"""PDF readers nobody here wrote, for tests that check a PDF as its users will see it.

Four renderers rasterise a page (poppler's pdftoppm, MuPDF through PyMuPDF, Ghostscript,
PDFium through pypdfium2) and five extractors read its text (poppler's pdftotext,
PyMuPDF, pdfminer.six, pypdf, PDFium). One reader's tolerance hides another's blank
page, so a PDF counts as right only when all of them agree with the PNG. A reader that
is not installed is reported as missing, and the test that needs it is skipped. An older
MuPDF, the system's ``mutool``, draws a page too, for tests of what it once drew wrong.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
import shutil
import subprocess
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageChops, ImageStat

DPI = 96  # one PDF point is 0.75 px: 96 dpi gives the PNG's pixel size


def _poppler(pdf: bytes) -> list[Image.Image]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "doc.pdf"
        source.write_bytes(pdf)
        subprocess.run(["pdftoppm", "-r", str(DPI), "-png", str(source), str(Path(folder) / "page")], check=True)
        return [_opened(path) for path in sorted(Path(folder).glob("page*.png"), key=_page_number)]


def _ghostscript(pdf: bytes) -> list[Image.Image]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "doc.pdf"
        source.write_bytes(pdf)
        command = ["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=png16m", f"-r{DPI}"]
        command += ["-dTextAlphaBits=4", "-dGraphicsAlphaBits=4", f"-sOutputFile={folder}/page%d.png", str(source)]
        subprocess.run(command, check=True, capture_output=True)
        return [_opened(path) for path in sorted(Path(folder).glob("page*.png"), key=_page_number)]


def _mupdf(pdf: bytes) -> list[Image.Image]:
    import pymupdf

    pages = []
    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        for page in document:
            pixmap = page.get_pixmap(dpi=DPI, alpha=False)
            pages.append(Image.frombytes("RGB", (pixmap.width, pixmap.height), pixmap.samples))
    return pages


def _mutool(pdf: bytes) -> list[Image.Image]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "doc.pdf"
        source.write_bytes(pdf)
        command = ["mutool", "draw", "-q", "-r", str(DPI), "-c", "rgb", "-o", f"{folder}/page%d.png", str(source)]
        subprocess.run(command, check=True, capture_output=True)
        return [_opened(path) for path in sorted(Path(folder).glob("page*.png"), key=_page_number)]


def _pdfium(pdf: bytes) -> list[Image.Image]:
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        return [page.render(scale=DPI / 72).to_pil().convert("RGB") for page in document]
    finally:
        document.close()


def _opened(path: Path) -> Image.Image:
    with Image.open(path) as image:
        return image.convert("RGB")


def _page_number(path: Path) -> int:
    return int(re.sub(r"\D", "", path.stem) or 0)


def _pdftotext(pdf: bytes) -> str:
    return subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()


def _pymupdf_text(pdf: bytes) -> str:
    import pymupdf

    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        return "".join(page.get_text() for page in document)


def _pdfminer_text(pdf: bytes) -> str:
    from pdfminer.high_level import extract_text

    return extract_text(io.BytesIO(pdf))


def pdf_objects(pdf: bytes) -> bytes:
    """Every object of the document written out as PDF syntax, those packed in object
    streams too (streams as their dictionaries): what a test looks for in a document's
    fonts, images, shadings and blend modes, read by pypdf."""
    import pytest

    pypdf = pytest.importorskip("pypdf")
    from pypdf.generic import DictionaryObject, IndirectObject, StreamObject

    reader = pypdf.PdfReader(io.BytesIO(pdf))
    out = io.BytesIO()
    for number in range(1, int(reader.trailer["/Size"])):
        found = reader.get_object(IndirectObject(number, 0, reader))
        if found is None:
            continue
        value = DictionaryObject(found) if isinstance(found, StreamObject) else found
        out.write(b"%d 0 obj\n" % number)
        value.write_to_stream(out)
        out.write(b"\nendobj\n")
    return out.getvalue()


def _pypdf_text(pdf: bytes) -> str:
    import pypdf

    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)


def _pdfium_text(pdf: bytes) -> str:
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        return "\n".join(page.get_textpage().get_text_bounded() for page in document)
    finally:
        document.close()


def _module(name: str) -> Callable[[], bool]:
    def present() -> bool:
        try:
            __import__(name)
        except ImportError:
            return False
        return True

    return present


def _program(name: str) -> Callable[[], bool]:
    return lambda: shutil.which(name) is not None


RENDERERS: dict[str, tuple[Callable[[bytes], list[Image.Image]], Callable[[], bool]]] = {
    "poppler": (_poppler, _program("pdftoppm")),
    "mupdf": (_mupdf, _module("pymupdf")),
    "ghostscript": (_ghostscript, _program("gs")),
    "pdfium": (_pdfium, _module("pypdfium2")),
}

#: The MuPDF of the system's ``mutool`` (Debian 12's is 1.21), older than PyMuPDF's own:
#: for what an older MuPDF draws differently (it ignores a soft mask's transfer
#: function). Not among the four every design is compared in.
OLDER_RENDERERS: dict[str, tuple[Callable[[bytes], list[Image.Image]], Callable[[], bool]]] = {
    "mutool": (_mutool, _program("mutool")),
}

EXTRACTORS: dict[str, tuple[Callable[[bytes], str], Callable[[], bool]]] = {
    "pdftotext": (_pdftotext, _program("pdftotext")),
    "pymupdf": (_pymupdf_text, _module("pymupdf")),
    "pdfminer": (_pdfminer_text, _module("pdfminer")),
    "pypdf": (_pypdf_text, _module("pypdf")),
    "pdfium": (_pdfium_text, _module("pypdfium2")),
}


@functools.cache
def available(name: str) -> bool:
    """Whether the renderer or extractor ``name`` is installed."""
    for table in (RENDERERS, OLDER_RENDERERS, EXTRACTORS):
        if name in table:
            return table[name][1]()
    raise KeyError(name)


def rasterise(pdf: bytes, renderer: str) -> list[Image.Image]:
    """Every page at 96 dpi (one image pixel per template px), as ``renderer`` draws it."""
    return {**RENDERERS, **OLDER_RENDERERS}[renderer][0](pdf)


def extract(pdf: bytes, extractor: str) -> str:
    """The text of every page, as ``extractor`` reads it."""
    return EXTRACTORS[extractor][0](pdf)


_BIDI_MARKS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def read_back(pdf: bytes, extractor: str) -> str:
    """The text as ``extractor`` reads it, as a reader compares it with what was written
    (see ``normalised``)."""
    return normalised(extract(pdf, extractor))


def normalised(text: str) -> str:
    """``text`` with bidi marks left out (poppler wraps runs in them), composed (NFC),
    and each run of white space (a space, a line or page break) one space."""
    text = unicodedata.normalize("NFC", _BIDI_MARKS.sub("", text))
    return " ".join(text.split())


def flatten(png: bytes) -> Image.Image:
    """A PNG onto white, as a PDF viewer shows a page."""
    image = Image.open(io.BytesIO(png)).convert("RGBA")
    page = Image.new("RGBA", image.size, "white")
    page.alpha_composite(image)
    return page.convert("RGB")


BLOCK = 16


def difference(a: Image.Image, b: Image.Image) -> tuple[float, int]:
    """(MEAN, LOCAL): the mean absolute difference of the most different channel over
    the page, and the largest difference of one channel of one 16 x 16 block of the two
    images averaged by blocks (averaging cancels anti-aliasing, not a misplaced glyph)."""
    assert a.size == b.size, (a.size, b.size)
    mean = max(ImageStat.Stat(ImageChops.difference(a, b)).mean)
    local = max(high for _, high in ImageChops.difference(a.reduce(BLOCK), b.reduce(BLOCK)).getextrema())
    return mean, local


def versions() -> dict[str, str]:
    """Each installed reader's version, for the record of what each reader gives."""
    from importlib import metadata

    found: dict[str, str] = {}
    if available("poppler"):
        found["poppler"] = subprocess.run(["pdftoppm", "-v"], capture_output=True, text=True).stderr.split()[2]
    if available("ghostscript"):
        found["ghostscript"] = subprocess.run(["gs", "--version"], capture_output=True, text=True).stdout.strip()
    if available("mupdf"):
        import pymupdf

        found["mupdf"] = f"MuPDF {pymupdf.VersionFitz} (PyMuPDF {metadata.version('pymupdf')})"
    if available("pdfium"):
        import pypdfium2.version

        found["pdfium"] = f"PDFium {pypdfium2.version.PDFIUM_INFO} (pypdfium2 {metadata.version('pypdfium2')})"
    for package in ("pdfminer.six", "pypdf"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[package] = metadata.version(package)
    return found
