"""Text layout, asserted on the Scene: lines, fonts, positions."""

from __future__ import annotations

import pytest

from templatekit.layout.fonts import FontBook
from templatekit.layout.scene import Image, TextRun
from templatekit.layout.typeset import TextStyle, fit, measure, place, typeset

BOOK = FontBook.bundled()
STYLE = TextStyle(size=20)


def runs(items):
    return [item for item in items if isinstance(item, TextRun)]


def font_name(run: TextRun) -> str:
    return run.font.path.rsplit("/", 1)[-1]


def test_wraps_by_words_within_the_width():
    block = typeset("the quick brown fox jumps over the lazy dog", STYLE, BOOK, 160)
    assert block.text == ["the quick brown", "fox jumps over", "the lazy dog"]
    assert all(line.width <= 160 for line in block.lines)
    assert block.height == pytest.approx(3 * 20 * 1.2)


def test_long_words_break_and_explicit_newlines_are_kept():
    block = typeset("Supercalifragilistic\nok", STYLE, BOOK, 100)
    assert block.broke_words
    assert "".join(block.text[:-1]) == "Supercalifragilistic"
    assert block.text[-1] == "ok"


def test_max_lines_cuts_with_an_ellipsis_that_fits():
    block = typeset("one two three four five six seven eight", STYLE, BOOK, 120, max_lines=2)
    assert len(block.lines) == 2 and block.truncated
    assert block.text[-1].endswith("\u2026")
    assert block.lines[-1].width <= 120


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


def test_justify_stretches_all_but_the_last_line():
    block = typeset("aa bb cc dd ee ff gg hh ii", STYLE, BOOK, 120)
    items = runs(place(block, 0, 0, 120, 200, "justify"))
    first_line = [r for r in items if r.y == items[0].y]
    assert first_line[-1].x + first_line[-1].width == pytest.approx(120)
    last_line = [r for r in items if r.y == items[-1].y]
    assert last_line[-1].x + last_line[-1].width < 120


def test_weight_and_italic_pick_the_closest_face():
    assert font_name(runs(place(typeset("x", TextStyle(weight=700), BOOK, 100), 0, 0, 100, 50))[0]) == "Inter-Bold.ttf"
    assert (
        font_name(runs(place(typeset("x", TextStyle(weight=650, italic=True), BOOK, 100), 0, 0, 100, 50))[0])
        == "Inter-BoldItalic.ttf"
    )


def test_fallback_picks_a_font_per_script_and_emoji_become_images():
    items = place(typeset("Hi 😀 مرحبا 你好 ♞ שלום", STYLE, BOOK, 1000), 0, 0, 1000, 50)
    fonts = {r.text.strip(): font_name(r) for r in runs(items)}
    assert fonts["Hi"] == "Inter-Regular.ttf"
    assert fonts["مرحبا"] == "NotoSansArabic-Regular.ttf"
    assert fonts["你好"] == "DroidSansFallbackFull.ttf"
    assert fonts["שלום"] == "NotoSansHebrew-Regular.ttf"
    assert fonts["♞"] == "NotoSansSymbols2-Regular.ttf"
    emoji = [item for item in items if isinstance(item, Image)]
    assert len(emoji) == 1 and emoji[0].key == "emoji:😀"
    assert emoji[0].height == pytest.approx(20 * emoji[0].image.height / 109)


def test_emoji_sequences_stay_whole():
    items = place(typeset("👍🏽 👨‍👩‍👧 🇫🇷 1️⃣", STYLE, BOOK, 1000), 0, 0, 1000, 50)
    assert [i.key for i in items if isinstance(i, Image)] == ["emoji:👍🏽", "emoji:👨‍👩‍👧", "emoji:🇫🇷", "emoji:1️⃣"]


def test_right_to_left_runs_are_in_visual_order():
    items = runs(place(typeset("abc שלום 42 עולם", STYLE, BOOK, 1000), 0, 0, 1000, 50))
    assert [(r.text.strip(), r.rtl) for r in sorted(items, key=lambda r: r.x)] == [
        ("abc", False),
        ("עולם", True),
        ("42", False),
        ("שלום", True),
    ]
    rtl_paragraph = runs(place(typeset("שלום עולם! hello 42", STYLE, BOOK, 1000), 0, 0, 1000, 50))
    assert [r.text.strip() for r in sorted(rtl_paragraph, key=lambda r: r.x)] == ["hello 42", "!", "שלום עולם"]


def test_arabic_is_one_shaped_run_measured_as_a_whole():
    (item,) = runs(place(typeset("مرحبا بالعالم", STYLE, BOOK, 1000), 0, 0, 1000, 50))
    assert item.rtl and item.text == "مرحبا بالعالم"
    assert item.width == pytest.approx(measure("مرحبا بالعالم", item.font, 20, True))


def test_letter_spacing_and_transform():
    plain = typeset("abc", STYLE, BOOK, 1000).lines[0].width
    spaced = typeset("abc", TextStyle(size=20, letter_spacing=5), BOOK, 1000).lines[0].width
    assert spaced == pytest.approx(plain + 15, abs=1.5)  # kerning aside, three gaps of 5 px
    assert typeset("Hello", TextStyle(transform="uppercase"), BOOK, 1000).text == ["HELLO"]
    assert typeset("Hello", TextStyle(transform="lowercase"), BOOK, 1000).text == ["hello"]


def test_cjk_breaks_between_ideographs():
    block = typeset("中文字符测试中文字符测试", STYLE, BOOK, 125)
    assert len(block.lines) == 2 and all(len(t) == 6 for t in block.text)


@pytest.mark.parametrize("name", ["Inter-Regular.ttf", "NotoSansArabic-Bold.ttf", "NotoColorEmoji.ttf"])
def test_shipped_coverage_matches_the_font_files(name):
    from templatekit.layout.fonts import FONT_DIR, _bundled_coverage, read_coverage

    assert _bundled_coverage()[name].ranges == read_coverage(str(FONT_DIR / name)).ranges
