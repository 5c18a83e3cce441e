"""Rebuild ``src/templatekit/fonts/`` from Debian's font packages and the npm registry.

Run on a Debian machine with npm: ``python scripts/vendor_fonts.py``. It downloads the
packages with ``apt-get download`` and unpacks them with ``dpkg -x``, copies each face
with its package's licence file, and cuts the CJK faces down (with HarfBuzz's subsetter)
to the characters of everyday text: every Hangul syllable, and the Han characters of
GB 2312, Big5 (level 1) and JIS X 0208 with kana and CJK punctuation, which keeps them at
a few megabytes each. The colour emoji font is Noto Color Emoji in its COLRv1 (vector)
form, which Debian does not package; it comes from the npm package of Fontsource, which
redistributes Google Fonts' build under the same licence (OFL).
``python scripts/vendor_fonts.py cjk`` rebuilds the CJK subsets alone.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import uharfbuzz as hb
from fontTools.ttLib import TTFont

DEST = Path(__file__).resolve().parent.parent / "src" / "templatekit" / "fonts"
NOTO = "usr/share/fonts/truetype/noto"
CJK = "usr/share/fonts/opentype/noto"
EMOJI_NPM = "@fontsource/noto-color-emoji"
EMOJI_FILE = "noto-color-emoji-emoji-400-normal.woff"

INTER_STYLES = ("Thin", "ExtraLight", "Light", "Regular", "Medium", "SemiBold", "Bold", "ExtraBold", "Black")
# Scripts with a regular and a bold face, and scripts with a regular one only.
NOTO_TWO = (
    "Arabic", "Armenian", "Bengali", "Devanagari", "Ethiopic", "Georgian", "Gujarati", "Gurmukhi", "Hebrew",
    "Kannada", "Khmer", "Lao", "Malayalam", "Myanmar", "Oriya", "Sinhala", "Tamil", "Telugu", "Thai", "Symbols",
)  # fmt: skip
NOTO_ONE = ("Adlam", "Cherokee", "Mongolian", "NKo", "Syriac", "Thaana", "Tifinagh", "Symbols2", "Math")


def _inter_faces() -> list[tuple[str, str]]:
    faces = []
    for style in INTER_STYLES:
        italic = "Italic" if style == "Regular" else f"{style}Italic"
        faces += [(f"usr/share/fonts/opentype/inter/Inter-{name}.otf", f"Inter-{name}.otf") for name in (style, italic)]
    return faces


# package -> (path inside the package, file name in DEST)
FACES: dict[str, list[tuple[str, str]]] = {
    "fonts-inter": _inter_faces(),
    "fonts-dancingscript": [
        (f"usr/share/fonts/opentype/dancingscript/DancingScript-{s}.otf", f"DancingScript-{s}.otf")
        for s in ("Regular", "Bold")
    ],
    "fonts-noto-core": [
        (f"{NOTO}/NotoSans{script}-{weight}.ttf", f"NotoSans{script}-{weight}.ttf")
        for script in NOTO_TWO
        for weight in ("Regular", "Bold")
    ]
    + [(f"{NOTO}/NotoSans{script}-Regular.ttf", f"NotoSans{script}-Regular.ttf") for script in NOTO_ONE],
}

HANGUL = [(0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7A3), (0xD7B0, 0xD7FF), (0xFFA0, 0xFFDC)]
# CJK punctuation, kana, Bopomofo, enclosed letters, and the full- and half-width forms
# (ICU writes ja-JP yen as U+FFE5)
CJK_COMMON = [
    (0x3000, 0x30FF),
    (0x3100, 0x312F),
    (0x31F0, 0x31FF),
    (0x3200, 0x33FF),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFFEF),
]
# face index in NotoSansCJK-*.ttc (0 JP, 1 KR, 2 SC, 3 TC, 4 HK) -> (file name stem, what it keeps)
CJK_SUBSETS = {1: ("NotoSansCJKKR", "hangul"), 2: ("NotoSansCJKSC", "han")}


def han_characters() -> set[int]:
    """The Han characters of GB 2312, Big5 level 1 and JIS X 0208, by their codecs."""
    found: set[str] = set()
    for high in range(0xA1, 0xFF):
        for low in range(0x40, 0xFF):
            for codec in ("gb2312", "euc_jp", "big5"):
                with contextlib.suppress(UnicodeDecodeError):
                    found.update(bytes([high, low]).decode(codec))
    return {ord(char) for char in found if 0x3400 <= ord(char) <= 0x9FFF}


def subset_cjk(source: Path, index: int, characters: set[int], dest: Path) -> None:
    face = hb.Face(hb.Blob.from_file_path(str(source)), index)
    options = hb.SubsetInput()
    for code in characters:
        options.unicode_set.add(code)
    options.flags = hb.SubsetFlags.NOTDEF_OUTLINE | hb.SubsetFlags.NO_LAYOUT_CLOSURE | hb.SubsetFlags.NO_HINTING
    for tag in ("vhea", "vmtx", "VORG", "DSIG", "BASE"):  # vertical text is not laid out
        options.drop_table_tag_set.add(int.from_bytes(tag.encode("ascii"), "big"))
    dest.write_bytes(hb.subset(face, options).blob.data)


def unpack(package: str, work: Path) -> Path:
    subprocess.run(["apt-get", "download", "-qq", package], cwd=work, check=True)
    deb = next(work.glob(f"{package}_*.deb"))
    root = work / package
    subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True)
    return root


def vendor_emoji(work: Path, licences: Path) -> None:
    """Noto Color Emoji, COLRv1, without its SVG table (the same glyphs again)."""
    subprocess.run(["npm", "pack", "-q", EMOJI_NPM], cwd=work, check=True, capture_output=True)
    archive = next(work.glob("fontsource-noto-color-emoji-*.tgz"))
    with tarfile.open(archive) as tar:
        tar.extractall(work / "emoji", filter="data")
    package = work / "emoji" / "package"
    font = TTFont(package / "files" / EMOJI_FILE)
    font.flavor = None
    del font["SVG "]
    font.save(DEST / "NotoColorEmoji-Regular.ttf")
    shutil.copyfile(package / "LICENSE", licences / "noto-color-emoji.txt")


def vendor_cjk(work: Path, licences: Path) -> None:
    """Noto Sans CJK, subset to the Han of everyday Chinese and Japanese and to Hangul."""
    root = unpack("fonts-noto-cjk", work)
    kept = {
        "hangul": {c for a, b in HANGUL for c in range(a, b + 1)},
        "han": han_characters() | {c for a, b in CJK_COMMON for c in range(a, b + 1)},
    }
    for index, (stem, what) in CJK_SUBSETS.items():
        characters = kept[what]
        for weight in ("Regular", "Bold"):
            subset_cjk(root / CJK / f"NotoSansCJK-{weight}.ttc", index, characters, DEST / f"{stem}-{weight}.otf")
    shutil.copyfile(root / "usr/share/doc/fonts-noto-cjk/copyright", licences / "fonts-noto-cjk.txt")
    print(f"fonts-noto-cjk: {len(CJK_SUBSETS) * 2} subsets")


def main() -> int:
    if sys.argv[1:] == ["cjk"]:  # the CJK subsets alone, the other faces as they are
        with tempfile.TemporaryDirectory() as tmp:
            vendor_cjk(Path(tmp), DEST / "licences")
        return 0
    for old in DEST.glob("*.[ot]t[fc]"):
        old.unlink()
    licences = DEST / "licences"
    shutil.rmtree(licences, ignore_errors=True)
    licences.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for package, faces in FACES.items():
            root = unpack(package, work)
            for inner, name in faces:
                shutil.copyfile(root / inner, DEST / name)
            shutil.copyfile(root / f"usr/share/doc/{package}/copyright", licences / f"{package}.txt")
            print(f"{package}: {len(faces)} faces")
        vendor_cjk(work, licences)
        vendor_emoji(work, licences)
        print("noto-color-emoji: COLRv1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
