"""Rebuild ``src/templatekit/fonts/`` from Debian's font packages.

Run on a Debian machine: ``python scripts/vendor_fonts.py``. It downloads the
packages with ``apt-get download``, unpacks them with ``dpkg -x``, converts
CFF-outline OpenType faces to TrueType outlines (the PDF writer embeds only
TrueType outlines), copies each face with its package's licence file, and writes
the code point ranges of every face to ``coverage.json``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from fontTools.ttLib import TTFont

from templatekit.fontconv import truetype_outlines

DEST = Path(__file__).resolve().parent.parent / "src" / "templatekit" / "fonts"

# package -> (path inside the package, file name in DEST)
FACES: dict[str, list[tuple[str, str]]] = {
    "fonts-inter": [
        (f"usr/share/fonts/opentype/inter/Inter-{style}.otf", f"Inter-{style}.ttf")
        for style in (
            "Light",
            "LightItalic",
            "Regular",
            "Italic",
            "Medium",
            "MediumItalic",
            "SemiBold",
            "SemiBoldItalic",
            "Bold",
            "BoldItalic",
            "ExtraBold",
            "ExtraBoldItalic",
            "Black",
            "BlackItalic",
        )
    ],
    "fonts-dancingscript": [
        (f"usr/share/fonts/opentype/dancingscript/DancingScript-{s}.otf", f"DancingScript-{s}.ttf")
        for s in ("Regular", "Bold")
    ],
    "fonts-noto-core": [
        (f"usr/share/fonts/truetype/noto/{name}", name)
        for name in (
            "NotoSansArabic-Regular.ttf",
            "NotoSansArabic-Bold.ttf",
            "NotoSansHebrew-Regular.ttf",
            "NotoSansHebrew-Bold.ttf",
            "NotoSansDevanagari-Regular.ttf",
            "NotoSansDevanagari-Bold.ttf",
            "NotoSansThai-Regular.ttf",
            "NotoSansThai-Bold.ttf",
            "NotoSansSymbols-Regular.ttf",
            "NotoSansSymbols2-Regular.ttf",
            "NotoSansMath-Regular.ttf",
        )
    ],
    "fonts-droid-fallback": [("usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", "DroidSansFallbackFull.ttf")],
    "fonts-noto-color-emoji": [("usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", "NotoColorEmoji.ttf")],
}


def cff_to_truetype(src: Path, dest: Path) -> None:
    truetype_outlines(TTFont(src)).save(dest)


def main() -> int:
    DEST.mkdir(parents=True, exist_ok=True)
    licences = DEST / "licences"
    licences.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for package, faces in FACES.items():
            subprocess.run(["apt-get", "download", "-qq", package], cwd=work, check=True)
            deb = next(work.glob(f"{package}_*.deb"))
            root = work / package
            subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True)
            for inner, name in faces:
                src = root / inner
                if src.suffix == ".otf":
                    cff_to_truetype(src, DEST / name)
                else:
                    shutil.copyfile(src, DEST / name)
            shutil.copyfile(root / f"usr/share/doc/{package}/copyright", licences / f"{package}.txt")
            print(f"{package}: {len(faces)} faces")
    write_coverage()
    return 0


def write_coverage() -> None:
    """Code point ranges of every face, so that rendering never decodes a cmap."""
    from templatekit.layout.fonts import COVERAGE_FILE, read_coverage

    ranges = {font.name: read_coverage(str(font)).ranges for font in sorted(DEST.glob("*.ttf"))}
    (DEST / COVERAGE_FILE).write_text(json.dumps(ranges, separators=(",", ":")) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
