"""The fonts Chrome draws figures with: the bundled ones and the template's, nothing
from the system, so that figures look the same on every machine.

Chrome gets its own fontconfig file and a folder of the template's font files, renamed
to a family derived from their content so that two templates' "Brand Sans" never mix.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from templatekit.text.fonts import FONT_DIR, Face

# Grayscale antialiasing: colour fringes would show once the picture is downscaled.
FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>{bundled}</dir>
  <dir>{template}</dir>
  <cachedir>{cache}</cachedir>
  <alias><family>sans-serif</family><prefer><family>Inter</family></prefer></alias>
  <alias><family>serif</family><prefer><family>Inter</family></prefer></alias>
  <alias><family>monospace</family><prefer><family>Inter</family></prefer></alias>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="hinting" mode="assign"><bool>true</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintslight</const></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
  </match>
</fontconfig>
"""


class FontFolder:
    """The fontconfig file Chrome starts with, and the folder of template fonts it lists.
    ``version`` counts the fonts added: Chrome reads fonts when it starts, so a browser
    older than the last font is restarted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._root: Path | None = None
        self.version = 0

    @property
    def config(self) -> Path:
        with self._lock:
            return self._ensure_root() / "fonts.conf"

    def add(self, faces: Sequence[Face]) -> str:
        """The family name under which Chrome knows these faces, their files installed."""
        hashes = [hashlib.sha256(face.file.data or b"").hexdigest() for face in faces]
        identity = "".join(f"{face.weight}{face.italic}{digest}" for face, digest in zip(faces, hashes, strict=True))
        family = "tk" + hashlib.sha256(identity.encode()).hexdigest()[:16]
        with self._lock:
            folder = self._ensure_root() / "fonts"
            for face, digest in zip(faces, hashes, strict=True):
                path = folder / f"{family}-{digest[:16]}.ttf"
                if not path.exists():
                    path.write_bytes(_renamed(face, family))
                    self.version += 1
        return family

    def remove(self) -> None:
        with self._lock:
            if self._root is not None:
                shutil.rmtree(self._root, ignore_errors=True)
                self._root = None

    def _ensure_root(self) -> Path:
        if self._root is None:
            root = Path(tempfile.mkdtemp(prefix="templatekit-chrome-"))
            (root / "fonts").mkdir()
            text = FONTCONFIG.format(bundled=FONT_DIR, template=root / "fonts", cache=root / "cache")
            (root / "fonts.conf").write_text(text, encoding="utf-8")
            self._root = root
        return self._root


def _renamed(face: Face, family: str) -> bytes:
    """The face's font file with ``family`` as its only family name and the face's
    weight, so that Chrome picks the same face for a weight as text layout does."""
    from fontTools.ttLib import TTFont  # only template fonts need it

    font = TTFont(io.BytesIO(face.file.data or b""), fontNumber=face.file.index)
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 16, 21):
            names.setName(family, record.nameID, record.platformID, record.platEncID, record.langID)
    if "OS/2" in font:
        font["OS/2"].usWeightClass = face.weight
    font.flavor = None
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()
