"""The social card written by hand with Pillow and segno, as a developer would without templatekit.

Fonts, the logo (rasterised once from SVG) and the QR code of the fixed URL are prepared
once by ``load_assets``; ``render_card`` draws everything else for each title (and a new
subtitle and QR code when asked, for cards where everything is new) and saves with
Pillow's default PNG settings. A new QR code is drawn from segno's matrix with one
NEAREST resize (no PNG written and read back), a word's width is measured once per font,
and a title too long for three lines at 64 px shrinks to fit, as the template's
``autoFit: "shrink"`` does. Run as a script, it renders one card cold:
``python benchmarks/peers/pillow_card.py out.png ["a title"]``.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from pathlib import Path

import resvg_py
import segno
from PIL import Image, ImageChops, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[2]
FONTS = ROOT / "src" / "templatekit" / "fonts"
LOGO = ROOT / "examples" / "templates" / "assets" / "logo.svg"

WIDTH, HEIGHT = 1200, 630
QR_URL = "https://templatekit.dev/docs"
#: Debian's fonts-dejavu-core, for the flat card.
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
FLAT_BACKGROUND = "#f8fafc"
DEFAULT_TITLE = "Render beautiful images from templates, at the speed of Pillow"
SUBTITLE = "One JSON design, many outputs: PNG, JPEG, WebP, PDF and video."


@dataclass
class Assets:
    """What does not change between cards: the fonts, and the card with everything but
    its title, subtitle and QR code drawn (the gradient, the glow, the logo, the brand,
    the caption and the address), onto which each card is drawn."""

    bold64: ImageFont.FreeTypeFont
    regular28: ImageFont.FreeTypeFont
    base: Image.Image
    qr: Image.Image
    shrunk: dict[float, ImageFont.FreeTypeFont]  # the title's font at sizes shrink-to-fit chose


def font(style: str, size: float) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONTS / f"Inter-{style}.otf"), size)


def logo(side: int) -> Image.Image:
    """The logo rasterised from its SVG, once."""
    png = resvg_py.svg_to_bytes(svg_path=str(LOGO), width=side, height=side, skip_system_fonts=True)
    return Image.open(io.BytesIO(bytes(png))).convert("RGBA")


def load_assets() -> Assets:
    """Everything that does not change between cards."""
    base = gradient((WIDTH, HEIGHT), "#1e1b4b", "#0f172a").convert("RGBA")
    glow = Image.new("RGBA", (640, 640))
    ImageDraw.Draw(glow).ellipse((0, 0, 639, 639), fill=(99, 102, 241, 38))
    base.alpha_composite(glow, dest=(760, 0), source=(0, 220))
    base.alpha_composite(logo(56), dest=(64, 56))
    draw = ImageDraw.Draw(base)
    draw_lines(draw, ["templatekit"], font("SemiBold", 30), 136, 64 + (40 - 36) / 2, 36, "#e2e8f0")
    draw.rectangle((908, 300, 908 + 228 - 1, 300 + 228 - 1), fill="#ffffff")
    draw_lines(draw, ["Scan to read the docs"], font("Regular", 18), 908 + 114, 540, 18 * 1.2, "#cbd5e1", anchor="ms")
    draw_lines(draw, ["templatekit.dev"], font("SemiBold", 22), 64, 560, 22 * 1.2, "#818cf8")
    return Assets(
        bold64=font("Bold", 64),
        regular28=font("Regular", 28),
        base=base.convert("RGB"),
        qr=qr_image(QR_URL, 228),
        shrunk={},
    )


def qr_png(url: str = QR_URL, box: int = 228) -> bytes:
    """The QR code as the template draws it (error level M, a quiet zone of 2 modules),
    with as many whole pixels per module as fit the box."""
    code = segno.make(url, error="m", micro=False, boost_error=False)
    scale = box // code.symbol_size(scale=1, border=2)[0]
    out = io.BytesIO()
    code.save(out, kind="png", scale=scale, border=2, dark="#0f172a", light="#ffffff")
    return out.getvalue()


def qr_image(url: str, box: int) -> Image.Image:
    """The same code as ``qr_png`` draws, as an image: segno's matrix (with its quiet zone)
    as a two-colour palette image, enlarged with one NEAREST resize."""
    code = segno.make(url, error="m", micro=False, boost_error=False)
    rows = code.matrix  # a bytearray of 0 and 1 per row: the image's bytes as they are
    side = len(rows) + 4
    scale = box // side
    modules = Image.new("P", (side, side), 0)
    modules.paste(Image.frombytes("P", (len(rows[0]), len(rows)), b"".join(rows)), (2, 2))
    modules.putpalette((255, 255, 255, 0x0F, 0x17, 0x2A))
    return modules.resize((side * scale, side * scale), Image.NEAREST).convert("RGB")


def gradient(size: tuple[int, int], start: str, end: str) -> Image.Image:
    """A 135-degree CSS linear gradient: the mix is (x + y) / (width + height)."""
    width, height = size
    span = width + height
    across = Image.new("L", (width, 1))
    across.putdata([255 * x // span for x in range(width)])
    down = Image.new("L", (1, height))
    down.putdata([255 * y // span for y in range(height)])
    mask = ImageChops.add(across.resize(size), down.resize(size))
    return Image.composite(Image.new("RGB", size, end), Image.new("RGB", size, start), mask)


_WIDTHS: dict[ImageFont.FreeTypeFont, dict[str, float]] = {}


def wrap(text: str, font: ImageFont.FreeTypeFont, max_width: float) -> list[str]:
    """Greedy word wrap; each word is measured once per font (kept across cards), a line
    is its words and the spaces between them."""
    widths = _WIDTHS.setdefault(font, {})
    space = widths.get(" ") or widths.setdefault(" ", font.getlength(" "))
    lines: list[str] = []
    line: list[str] = []
    used = 0.0
    for word in text.split():
        width = widths.get(word)
        if width is None:
            width = widths[word] = font.getlength(word)
        if line and used + space + width > max_width:
            lines.append(" ".join(line))
            line, used = [word], width
        else:
            used = used + space + width if line else width
            line.append(word)
    return [*lines, " ".join(line)]


def shrink_to_fit(
    text: str, font: ImageFont.FreeTypeFont, max_width: float, max_lines: int, min_size: float
) -> tuple[float, list[str]]:
    """The largest size in [min_size, the font's size], to a quarter px, at which the text
    wraps in ``max_lines`` (as templatekit's ``autoFit: "shrink"``), and its lines. Widths
    scale with the size, so each try is a wrap at the font's size in a wider box."""
    lines = wrap(text, font, max_width)
    if len(lines) <= max_lines:
        return font.size, lines
    low, high = min_size, font.size
    best = wrap(text, font, max_width * font.size / low)
    while high - low > 0.25:
        middle = (low + high) / 2
        tried = wrap(text, font, max_width * font.size / middle)
        if len(tried) <= max_lines:
            low, best = middle, tried
        else:
            high = middle
    return low, best[:max_lines]


def draw_lines(
    draw: ImageDraw.ImageDraw,
    lines: list[str],
    font: ImageFont.FreeTypeFont,
    x: float,
    top: float,
    line_height: float,
    fill: str,
    anchor: str = "ls",
) -> None:
    """Lines on baselines placed like CSS: half the leading above each line's ascent."""
    ascent, descent = font.getmetrics()
    for number, line in enumerate(lines):
        baseline = top + number * line_height + (line_height - ascent - descent) / 2 + ascent
        draw.text((x, baseline), line, font=font, fill=fill, anchor=anchor)


def render_card(assets: Assets, title: str, subtitle: str = SUBTITLE, qr_url: str | None = None) -> bytes:
    """One card as PNG bytes; with ``qr_url``, its QR code is made for this card."""
    qr = assets.qr if qr_url is None else qr_image(qr_url, 228)
    card = assets.base.copy()
    draw = ImageDraw.Draw(card)
    # the title and the subtitle under it, 20 px apart, centred together in 168..524
    size, title_lines = shrink_to_fit(title, assets.bold64, 760, 3, 32)
    bold = assets.bold64
    if size != bold.size:
        bold = assets.shrunk.get(size) or assets.shrunk.setdefault(size, font("Bold", size))
    subtitle_lines = wrap(subtitle, assets.regular28, 760)[:2]
    title_height = len(title_lines) * size * 1.15
    top = 168 + (356 - (title_height + 20 + len(subtitle_lines) * 28 * 1.35)) / 2
    draw_lines(draw, title_lines, bold, 64, top, size * 1.15, "#ffffff")
    draw_lines(draw, subtitle_lines, assets.regular28, 64, top + title_height + 20, 28 * 1.35, "#94a3b8")
    offset = (228 - qr.width) // 2
    card.paste(qr, (908 + offset, 300 + offset))
    return png(card)


def png(card: Image.Image) -> bytes:
    """Pillow's default PNG settings."""
    out = io.BytesIO()
    card.save(out, "PNG")
    return out.getvalue()


@dataclass
class FlatAssets:
    """The flat card's fonts (DejaVu Sans, TrueType: Pillow's fastest path) and its
    background with the logo on it."""

    bold64: ImageFont.FreeTypeFont
    regular32: ImageFont.FreeTypeFont
    base: Image.Image


def load_flat_assets() -> FlatAssets:
    base = Image.new("RGB", (WIDTH, HEIGHT), FLAT_BACKGROUND)
    mark = logo(96)
    base.paste(mark, (64, 56), mark)
    ImageDraw.Draw(base).rectangle((1000, 430, 1000 + 160 - 1, 430 + 160 - 1), fill="#ffffff")
    return FlatAssets(
        bold64=ImageFont.truetype(str(DEJAVU / "DejaVuSans-Bold.ttf"), 64),
        regular32=ImageFont.truetype(str(DEJAVU / "DejaVuSans.ttf"), 32),
        base=base,
    )


def render_flat_card(assets: FlatAssets, title: str, subtitle: str, qr_url: str) -> bytes:
    """The flat card (benchmarks/flat-card.json) as PNG bytes: a title of up to three
    lines, a subtitle of up to two and a QR code, all new each time."""
    card = assets.base.copy()
    draw = ImageDraw.Draw(card)
    draw_lines(draw, wrap(title, assets.bold64, 900)[:3], assets.bold64, 64, 184, 64 * 1.2, "#0f172a")
    draw_lines(draw, wrap(subtitle, assets.regular32, 900)[:2], assets.regular32, 64, 440, 32 * 1.3, "#475569")
    qr = qr_image(qr_url, 160)
    offset = (160 - qr.width) // 2
    card.paste(qr, (1000 + offset, 430 + offset))
    return png(card)


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: pillow_card.py OUT.png [TITLE]", file=sys.stderr)
        return 2
    title = argv[2] if len(argv) == 3 else DEFAULT_TITLE
    Path(argv[1]).write_bytes(render_card(load_assets(), title))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
