"""Text layout, asserted on the Scene: lines, fonts, glyphs, positions, in every script."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

import templatekit as tk
from templatekit.font_file import hb_font
from templatekit.scene import GlyphRun
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, fit, place, typeset
from tests.conftest import layer, template

BOOK = FontBook.bundled()
STYLE = TextStyle(size=20)


def runs(items) -> list[GlyphRun]:
    return [item for item in items if isinstance(item, GlyphRun)]


def laid_out(text: str, width: float = 1000, style: TextStyle = STYLE) -> list[GlyphRun]:
    block = typeset(text, style, BOOK, width)
    return runs(place(block, 0, 0, width, block.height))


def font_name(run: GlyphRun) -> str:
    return run.font.path.rsplit("/", 1)[-1]


def test_wraps_by_words_within_the_width():
    block = typeset("the quick brown fox jumps over the lazy dog", STYLE, BOOK, 160)
    assert block.text == ["the quick brown", "fox jumps over", "the lazy dog"]
    assert all(line.width <= 160 for line in block.lines)
    assert block.height == pytest.approx(3 * 20 * 1.2)
    assert not block.broke_words and not block.truncated


def test_a_word_wider_than_the_line_breaks_between_clusters_and_says_so():
    block = typeset("Supercalifragilistic\nok", STYLE, BOOK, 100)
    assert block.broke_words
    assert "".join(block.text[:-1]) == "Supercalifragilistic"
    assert block.text[-1] == "ok"


def test_a_space_after_a_broken_word_hangs_at_the_end_of_its_line_and_takes_no_line():
    block = typeset("ab cd", STYLE, BOOK, 5)  # every letter is wider than the line
    assert [line.strip() for line in block.text] == ["a", "b", "c", "d"]


def test_numbers_stay_whole_while_anything_else_fits():
    block = typeset("Total 200 USD", STYLE, BOOK, 60)
    assert block.text == ["Total", "200", "USD"] and not block.broke_words
    cell = typeset("200", STYLE, BOOK, 25)  # nothing fits: split, and said so
    assert cell.broke_words and "".join(cell.text) == "200"


def test_max_lines_cuts_with_an_ellipsis_that_fits_and_keeps_what_it_hid():
    block = typeset("one two three four five six seven eight", STYLE, BOOK, 120, max_lines=2)
    assert len(block.lines) == 2 and block.truncated
    assert block.text[-1].endswith("\u2026")
    assert block.lines[-1].width <= 120
    assert block.hidden.startswith("five") and block.hidden.endswith("eight")


def test_what_is_hidden_includes_what_the_ellipsis_took_the_place_of():
    block = typeset("Wonderful weather", STYLE, BOOK, 90, max_lines=1)
    shown = block.text[0]
    assert shown.endswith("\u2026") and len(shown) > 1 and not "Wonderful weather".startswith(shown)
    assert shown[:-1] + block.hidden == "Wonderful weather"


def test_box_height_limits_lines_and_ellipsis_can_be_off():
    block = typeset("a b c d e f g h", STYLE, BOOK, 10, max_height=50, ellipsis=False)
    assert len(block.lines) == 2  # 50 px holds two lines of 24 px
    assert not any("\u2026" in t for t in block.text)


def test_auto_fit_shrinks_until_the_text_fits():
    style = TextStyle(size=80)
    block = fit("A headline that is much too long for the box", style, BOOK, 300, 120, min_size=10)
    assert block.style.size < 80
    assert not block.truncated and not block.broke_words and block.height <= 120
    bigger = typeset(
        "A headline that is much too long for the box", TextStyle(size=block.style.size + 1), BOOK, 300, max_height=120
    )
    assert bigger.truncated or bigger.broke_words or bigger.height > 120


def test_alignment_and_vertical_alignment():
    block = typeset("Hi", STYLE, BOOK, 200)
    width = block.lines[0].width
    (left,) = runs(place(block, 10, 0, 200, 100, "left", "top"))
    (centre,) = runs(place(block, 10, 0, 200, 100, "center", "middle"))
    (right,) = runs(place(block, 10, 0, 200, 100, "right", "bottom"))
    assert left.x == 10
    assert centre.x == pytest.approx(10 + (200 - width) / 2)
    assert right.x == pytest.approx(210 - width)
    assert left.y < centre.y < right.y
    assert right.y == pytest.approx(100 - 24 + (24 - block.ascent - block.descent) / 2 + block.ascent)


def test_justify_stretches_all_but_the_last_line_at_its_spaces():
    block = typeset("aa bb cc dd ee ff gg hh ii", STYLE, BOOK, 120)
    items = runs(place(block, 0, 0, 120, 200, "justify"))
    first, last = items[0], items[-1]
    assert first.y != last.y
    assert first.x == 0 and first.x + first.width == pytest.approx(120)
    assert last.x == 0 and last.x + last.width < 120


def test_justified_right_to_left_text_ends_its_last_line_at_the_right():
    text = "שלום עולם זה טקסט ארוך מאוד שצריך לעבור כמה שורות"
    block = typeset(text, STYLE, BOOK, 150)
    assert len(block.lines) > 1
    items = runs(place(block, 0, 0, 150, 300, "justify"))
    last_line = [run for run in items if run.y == items[-1].y]
    assert max(run.x + run.width for run in last_line) == pytest.approx(150)
    assert min(run.x for run in last_line) > 0


def test_weight_and_italic_pick_the_closest_face():
    assert font_name(laid_out("x", style=TextStyle(weight=700))[0]) == "Inter-Bold.otf"
    assert font_name(laid_out("x", style=TextStyle(weight=650, italic=True))[0]) == "Inter-BoldItalic.otf"
    assert font_name(laid_out("x", style=TextStyle(weight=100))[0]) == "Inter-Thin.otf"


@pytest.mark.parametrize(
    ("text", "font"),
    [
        ("Hi", "Inter-Regular.otf"),
        ("Tiếng Việt Ελληνικά Русский", "Inter-Regular.otf"),
        ("مرحبا", "NotoSansArabic-Regular.ttf"),
        ("שלום", "NotoSansHebrew-Regular.ttf"),
        ("नमस्ते", "NotoSansDevanagari-Regular.ttf"),
        ("বাংলা", "NotoSansBengali-Regular.ttf"),
        ("தமிழ்", "NotoSansTamil-Regular.ttf"),
        ("สวัสดี", "NotoSansThai-Regular.ttf"),
        ("ສະບາຍດີ", "NotoSansLao-Regular.ttf"),
        ("ខ្មែរ", "NotoSansKhmer-Regular.ttf"),
        ("မြန်မာ", "NotoSansMyanmar-Regular.ttf"),
        ("ሰላም", "NotoSansEthiopic-Regular.ttf"),
        ("Հայերեն", "NotoSansArmenian-Regular.ttf"),
        ("ქართული", "NotoSansGeorgian-Regular.ttf"),
        ("ᏣᎳᎩ", "NotoSansCherokee-Regular.ttf"),
        ("안녕하세요", "NotoSansCJKKR-Regular.otf"),
        ("你好世界", "NotoSansCJKSC-Regular.otf"),
        ("ひらがなカタカナ", "NotoSansCJKSC-Regular.otf"),
        ("♞", "NotoSansSymbols2-Regular.ttf"),
        ("😀", "NotoColorEmoji-Regular.ttf"),
    ],
)
def test_every_script_has_a_font_and_no_box(text, font):
    block = typeset(text, STYLE, BOOK, 1000)
    assert block.missing == ()
    items = runs(place(block, 0, 0, 1000, 50))
    assert {font_name(run) for run in items} == {font}  # a run per script, all in the script's font
    assert all(glyph != 0 for run in items for glyph in run.glyphs)  # no .notdef box


def test_bold_text_in_other_scripts_is_bold():
    style = TextStyle(size=20, weight=700)
    assert font_name(laid_out("粗体", style=style)[0]) == "NotoSansCJKSC-Bold.otf"
    assert font_name(laid_out("굵게", style=style)[0]) == "NotoSansCJKKR-Bold.otf"
    assert font_name(laid_out("مرحبا", style=style)[0]) == "NotoSansArabic-Bold.ttf"


def test_ligature_characters_and_symbols_of_everyday_text_are_drawn():
    block = typeset("ﬁle ﬂow → ∑ ≠ ½ € ™ ©", STYLE, BOOK, 1000)
    assert block.missing == ()
    assert all(glyph != 0 for run in runs(place(block, 0, 0, 1000, 50)) for glyph in run.glyphs)


def test_invisible_characters_no_font_has_draw_nothing_and_are_no_missing_character():
    """Bidi isolates and marks, zero-width spaces and joiners, the byte order mark:
    default-ignorable code points, which HarfBuzz shapes without a glyph of their own."""
    hidden = "abc \u2066\u05e9\u05dc\u05d5\u05dd\u2069 \u200b\u2060d\ufeffe\u202a\u200ef\u202c"
    block = typeset(hidden, STYLE, BOOK, 1000)
    assert block.missing == ()
    visible = typeset("abc \u05e9\u05dc\u05d5\u05dd def", STYLE, BOOK, 1000)
    assert block.width == pytest.approx(visible.width, abs=0.01)


def test_a_character_no_font_has_is_named_and_its_box_stays_on_the_line():
    block = typeset("a\U0001fbffb", STYLE, BOOK, 1000)  # an unassigned code point
    assert block.missing == ("\U0001fbff",)
    (run,) = [run for run in runs(place(block, 0, 0, 1000, 50)) if "\U0001fbff" in run.text]
    assert run.font.path.endswith("Inter-Regular.otf") and run.glyphs == (0,)
    box = hb_font(run.font).font.get_glyph_extents(0)
    assert box.y_bearing / hb_font(run.font).upem * 20 <= block.ascent  # the box is no taller than the line


def test_emoji_presentation_follows_unicode():
    fonts = {run.text: font_name(run) for run in laid_out("♥ ♥️ ☎ ☎️ ✉ ✉️ 😀 😀︎")}
    emoji = {text for text, font in fonts.items() if font == "NotoColorEmoji-Regular.ttf"}
    assert {"♥️", "☎️", "✉️", "😀"} <= {t.strip() for t in emoji}
    text_runs = " ".join(text for text, font in fonts.items() if font != "NotoColorEmoji-Regular.ttf")
    assert "♥" in text_runs and "☎" in text_runs and "✉" in text_runs


def test_emoji_sequences_are_one_glyph_each():
    (run,) = [r for r in laid_out("👍🏽👨‍👩‍👧🇫🇷1️⃣🧑‍🚀") if font_name(r) == "NotoColorEmoji-Regular.ttf"]
    assert len(run.glyphs) == 5


def test_right_to_left_runs_are_in_visual_order():
    items = laid_out("abc שלום 42 עולם")
    assert [(r.text.strip(), r.rtl) for r in sorted(items, key=lambda r: r.x) if r.text.strip()] == [
        ("abc", False),
        ("עולם", True),
        ("42", False),
        ("שלום", True),
    ]
    rtl_paragraph = laid_out("שלום עולם! hello 42")
    visual = [r.text.strip() for r in sorted(rtl_paragraph, key=lambda r: r.x) if r.text.strip()]
    assert visual == ["hello 42", "!", "שלום עולם"]


def test_arabic_indic_digits_keep_their_order_and_brackets_mirror_in_right_to_left_text():
    items = laid_out("السعر (١٢٠) «نعم»")
    digits = next(run for run in items if "١٢٠" in run.text)
    assert not digits.rtl  # numbers run left to right inside right-to-left text
    brackets = next(run for run in items if "(" in run.text and run.rtl)
    font = hb_font(brackets.font).font
    opening = brackets.glyphs[brackets.clusters.index(brackets.text.index("("))]
    assert font.glyph_to_string(opening) in ("parenright", "parenright.ar", "uni0029")  # mirrored: drawn as ")"


def test_arabic_is_one_shaped_run():
    (item,) = laid_out("مرحبا بالسلام")
    assert item.rtl and item.text == "مرحبا بالسلام"
    assert len(item.glyphs) < len(item.text)  # joined forms, and lam-alef as one glyph


def test_letter_spacing_and_transform():
    plain = typeset("abc", STYLE, BOOK, 1000).lines[0].width
    spaced = typeset("abc", TextStyle(size=20, letter_spacing=5), BOOK, 1000).lines[0].width
    assert spaced == pytest.approx(plain + 15, abs=1.5)  # kerning aside, three gaps of 5 px
    assert typeset("Hello", TextStyle(transform="uppercase"), BOOK, 1000).text == ["HELLO"]
    assert typeset("Hello", TextStyle(transform="lowercase"), BOOK, 1000).text == ["hello"]
    (run,) = laid_out("CERT", style=TextStyle(size=20, letter_spacing=4))
    assert run.letter_spacing == 4


def test_chinese_and_japanese_lines_neither_start_with_closing_marks_nor_end_with_opening_ones():
    block = typeset("這是一個測試。「你好」他說。這是一個測試。", STYLE, BOOK, 100)
    assert len(block.lines) > 1
    assert not any(line[0] in "。、」）』" for line in block.text)
    assert not any(line[-1] in "「（『“" for line in block.text)


def test_cjk_breaks_between_ideographs():
    block = typeset("中文字符测试中文字符测试", STYLE, BOOK, 125)
    assert len(block.lines) == 2 and all(len(t) == 6 for t in block.text)


def test_thai_breaks_between_words_not_inside_them():
    block = typeset("สวัสดีครับผมชื่อจอห์นยินดีที่ได้รู้จัก", STYLE, BOOK, 90)
    words = {"สวัสดี", "ครับ", "ผม", "ชื่อ", "จอห์น", "ยินดี", "ที่", "ได้", "รู้จัก"}
    assert len(block.lines) > 1 and not block.broke_words
    for line in block.text:  # each line is a sequence of whole words
        rest = line
        while rest:
            word = next((w for w in sorted(words, key=len, reverse=True) if rest.startswith(w)), None)
            assert word is not None, (line, rest)
            rest = rest[len(word) :]


def test_glyph_runs_carry_the_text_and_clusters_they_draw():
    (run,) = laid_out("Hamburg")
    assert run.text == "Hamburg" and run.clusters == tuple(range(7))
    assert run.positions[0] == (0.0, 0.0) and run.positions[1][0] > 0
    (devanagari,) = laid_out("नमस्ते")
    assert set(devanagari.clusters) <= set(range(len(devanagari.text)))


def test_emoji_stay_sharp_at_300_px():
    """Colour emoji are drawn from the vector font at their size: the edge of the face of
    😀 at 300 px goes from clear to opaque within two pixels (a 136 px bitmap scaled up
    blurs it over four or more)."""
    import templatekit as tk
    from tests.conftest import decode, layer, template

    data = template(layer("text", "e", x=0, y=0, width=400, height=400, text="😀", size=300), width=400, height=400)
    image = decode(tk.render_image(data).data)
    alpha = image.getchannel("A")
    row = [alpha.getpixel((x, 200 - 40)) for x in range(400)]
    start = next(x for x, a in enumerate(row) if a > 25)
    opaque = next(x for x, a in enumerate(row) if a > 230)
    assert opaque - start <= 2, row[start - 2 : opaque + 2]
    colours = image.convert("RGB").getcolors(1 << 20)
    assert colours is not None and len(colours) > 200  # shaded, not flat


def test_a_script_no_bundled_font_has_falls_back_to_the_systems_fonts():
    """Canadian Syllabics are not bundled: fontconfig's sans-serif choice that has them
    draws them (where the system has one)."""
    from templatekit.text.fonts import system_font_for

    found = system_font_for("ᓄ")
    if found is None:
        pytest.skip("no system font with Canadian Syllabics (fontconfig and, say, fonts-dejavu-core)")
    block = typeset("ᓄᓇᕗᑦ", STYLE, BOOK, 1000)
    assert block.missing == ()
    (run,) = runs(place(block, 0, 0, 1000, 50))
    assert run.font == found and 0 not in run.glyphs


SHY = "\u00ad"


def test_a_soft_hyphen_where_the_line_breaks_shows_as_a_hyphen():
    """U+00AD is a place a word may break: the line ends there with a hyphen (U+2010,
    as browsers draw it), counted in the line's width; the next line goes on without."""
    text = f"Donau{SHY}dampf{SHY}schiff{SHY}fahrt"
    block = typeset(text, STYLE, BOOK, 150)
    assert [line.replace(SHY, "") for line in block.text] == ["Donaudampf\u2010", "schifffahrt"]
    assert all(line.width <= 150 for line in block.lines) and not block.broke_words
    first, second = laid_out(text, 150)
    assert first.glyphs[-1] == hb_font(first.font).font.get_nominal_glyph(0x2010)
    assert hb_font(second.font).font.get_nominal_glyph(0x2010) not in second.glyphs


def test_a_soft_hyphen_draws_as_a_hyphen_exactly_where_one_typed_at_the_break_would():
    """Pixel for pixel the PNG of a hyphen typed where the line breaks, and without a
    break nothing at all: the word as if the soft hyphens were not there."""

    def png(text: str, width: int) -> Image.Image:
        source = template(layer("text", "t", x=10, y=10, width=width, height=120, text=text, size=28))
        return Image.open(io.BytesIO(tk.render_image(source).data)).convert("RGBA")

    broken, typed = png(f"Donau{SHY}dampf{SHY}schiff", 190), png("Donaudampf\u2010\nschiff", 190)
    assert ImageChops.difference(broken, typed).getbbox() is None
    whole, plain = png(f"Donau{SHY}dampf{SHY}schiff", 380), png("Donaudampfschiff", 380)
    assert ImageChops.difference(whole, plain).getbbox() is None


def test_blank_lines_past_the_box_hide_nothing_and_take_no_ellipsis():
    block = typeset("Hello\n\n\n\n", STYLE, BOOK, 200, max_height=30)
    assert (block.text, block.truncated, block.hidden) == (["Hello"], False, "")
    cut = typeset("Hello\n\n\nWorld", STYLE, BOOK, 200, max_height=30)
    assert (cut.text, cut.truncated, cut.hidden) == (["Hello…"], True, "World")
    layer_spec = layer("text", "note", width=200, height=30, text="Hello" + "\n" * 30, size=20)
    assert tk.render_image(template(layer_spec, width=200, height=30)).warnings == ()
